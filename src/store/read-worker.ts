/**
 * One reader of the SQLite store, in a worker thread (src/store/read-pool.ts starts it). It
 * holds its own read-only better-sqlite3 connection on the same file (WAL lets it read while
 * the night writes) and runs the statements the main thread compiled, so a slow read never
 * stops the web server's event loop. Prepared statements are kept (a bounded cache): the same
 * few statements run again and again.
 */
import { parentPort, workerData } from "node:worker_threads";
import Sqlite from "better-sqlite3";

export interface ReadWorkerData {
  file: string;
  /**
   * For tests only: while hold[0] is 1 every statement waits at its start, and hold[1] counts
   * the statements that did. It shows that a read held here keeps no other request waiting.
   */
  hold?: Int32Array;
}

export type ReadRequest = { id: number; sql: string; parameters: readonly unknown[] };

export type ReadReply =
  | { kind: "ready" }
  | { kind: "failed"; message: string }
  | { id: number; rows: unknown[] }
  | { id: number; changes: number; lastInsertRowid: number | bigint }
  | { id: number; error: { message: string; code?: string } };

const STATEMENTS_KEPT = 256;

const port = parentPort;
if (!port) throw new Error("read-worker.js runs only as a worker thread");
const { file, hold } = workerData as ReadWorkerData;

let db: Sqlite.Database | undefined;
try {
  db = new Sqlite(file, { readonly: true, fileMustExist: true });
  db.pragma("busy_timeout = 5000");
  port.postMessage({ kind: "ready" } satisfies ReadReply);
} catch (err) {
  port.postMessage({
    kind: "failed",
    message: err instanceof Error ? err.message : String(err),
  } satisfies ReadReply);
}

const statements = new Map<string, Sqlite.Statement>();

function prepared(conn: Sqlite.Database, text: string): Sqlite.Statement {
  const kept = statements.get(text);
  if (kept) {
    // Most recently used last: the first entry is the one to forget.
    statements.delete(text);
    statements.set(text, kept);
    return kept;
  }
  const stmt = conn.prepare(text);
  statements.set(text, stmt);
  if (statements.size > STATEMENTS_KEPT) {
    const oldest = statements.keys().next().value;
    if (oldest !== undefined) statements.delete(oldest);
  }
  return stmt;
}

function waitWhileHeld(): void {
  if (!hold || Atomics.load(hold, 0) !== 1) return;
  Atomics.add(hold, 1, 1);
  Atomics.notify(hold, 1);
  while (Atomics.load(hold, 0) === 1) Atomics.wait(hold, 0, 1);
}

port.on("message", (m: ReadRequest) => {
  const conn = db;
  if (!conn) return;
  let reply: ReadReply;
  try {
    waitWhileHeld();
    const stmt = prepared(conn, m.sql);
    if (stmt.reader) {
      reply = { id: m.id, rows: stmt.all(m.parameters) };
    } else {
      const r = stmt.run(m.parameters);
      reply = { id: m.id, changes: r.changes, lastInsertRowid: r.lastInsertRowid };
    }
  } catch (err) {
    const e = err as { message?: unknown; code?: unknown };
    reply = {
      id: m.id,
      error: {
        message: typeof e.message === "string" ? e.message : String(err),
        ...(typeof e.code === "string" ? { code: e.code } : {}),
      },
    };
  }
  port.postMessage(reply);
});
