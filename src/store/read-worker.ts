/**
 * One reader of the store, in a worker thread (src/store/read-pool.ts starts it), so that slow
 * work never stops the web server's event loop.
 *
 * On SQLite it holds its own read-only better-sqlite3 connection on the same file (WAL lets it
 * read while the night writes) and runs the statements the main thread compiled. Prepared
 * statements are kept (a bounded cache): the same few statements run again and again.
 *
 * It can also run jobs: whole pieces of work that read and then build an answer from what they
 * read (a page of 500 records, a feed), so that the building, not only the SQL, is off the main
 * thread. The job module (`jobs`, a URL, so that the store never imports the layers above it)
 * exports `runJob(db, job)`; `db` is a kysely Db over this worker's own connection on SQLite, or
 * over a small pool of its own on PostgreSQL (where this worker runs jobs only).
 */
import { type MessagePort, parentPort, workerData } from "node:worker_threads";
import type Sqlite from "better-sqlite3";
import { requireCjs } from "../cjs.js";
import type { Db } from "./db.js";

export interface ReadWorkerData {
  /** SQLite: the store's file, opened read-only; statements and jobs run on it. */
  file?: string;
  /** PostgreSQL: jobs only, over a pool of `connections` of this worker's own. */
  postgres?: { url: string; connections: number; name: string };
  /** The job module's URL (its `runJob(db, job)`), when this reader takes jobs. */
  jobs?: string;
  /**
   * For tests only: while hold[0] is 1 every statement (and job) waits at its start, and hold[1]
   * counts those that did. It shows that a read held here keeps no other request waiting.
   */
  hold?: Int32Array;
}

export type ReadRequest =
  | { id: number; sql: string; parameters: readonly unknown[] }
  | { id: number; job: unknown };

export type ReadReply =
  | { kind: "ready" }
  | { kind: "failed"; message: string }
  | { id: number; rows: unknown[] }
  | { id: number; changes: number; lastInsertRowid: number | bigint }
  | { id: number; result: unknown }
  | { id: number; error: { message: string; code?: string } };

/** What a job module exports. */
export type JobRunner = (db: Db, job: unknown) => Promise<unknown>;

const STATEMENTS_KEPT = 256;

if (!parentPort) throw new Error("read-worker.js runs only as a worker thread");
const port: MessagePort = parentPort;
const { file, postgres, jobs, hold } = workerData as ReadWorkerData;

const failed = (err: unknown) =>
  port.postMessage({
    kind: "failed",
    message: err instanceof Error ? err.message : String(err),
  } satisfies ReadReply);

let db: Sqlite.Database | undefined;
/** The jobs' Db, made on first use (SQLite) or at the start (PostgreSQL). */
let jobDb: Promise<Db> | undefined;

if (file !== undefined) {
  try {
    const Database = requireCjs("better-sqlite3") as typeof Sqlite;
    db = new Database(file, { readonly: true, fileMustExist: true });
    db.pragma("busy_timeout = 5000");
    port.postMessage({ kind: "ready" } satisfies ReadReply);
  } catch (err) {
    failed(err);
  }
} else if (postgres !== undefined) {
  try {
    await dbForJobs();
    port.postMessage({ kind: "ready" } satisfies ReadReply);
  } catch (err) {
    failed(err);
  }
} else {
  failed(new Error("a reader needs a SQLite file or a PostgreSQL URL"));
}

function dbForJobs(): Promise<Db> {
  jobDb ??= (async () => {
    if (postgres !== undefined) {
      const { openPostgresPool } = await import("./db.js");
      return openPostgresPool(postgres.url, postgres.connections, postgres.name);
    }
    const conn = db;
    if (!conn) throw new Error("the reader has no connection");
    const [{ Kysely, SqliteDialect }, { StatementCache }, { noNul }] = await Promise.all([
      import("./kysely.js"),
      import("./statement-cache.js"),
      import("./no-nul.js"),
    ]);
    return new Kysely({
      dialect: noNul(new SqliteDialect({ database: new StatementCache(conn) })),
    });
  })();
  return jobDb;
}

let runner: Promise<JobRunner> | undefined;

function jobRunner(): Promise<JobRunner> {
  runner ??= (async () => {
    if (jobs === undefined) throw new Error("this reader takes no jobs");
    const mod = (await import(jobs)) as { runJob?: unknown };
    if (typeof mod.runJob !== "function") throw new Error(`${jobs} exports no runJob`);
    return mod.runJob as JobRunner;
  })();
  return runner;
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

function errorReply(id: number, err: unknown): ReadReply {
  const e = err as { message?: unknown; code?: unknown };
  return {
    id,
    error: {
      message: typeof e.message === "string" ? e.message : String(err),
      ...(typeof e.code === "string" ? { code: e.code } : {}),
    },
  };
}

async function runJob(id: number, job: unknown): Promise<void> {
  let reply: ReadReply;
  try {
    waitWhileHeld();
    const [run, jdb] = await Promise.all([jobRunner(), dbForJobs()]);
    reply = { id, result: await run(jdb, job) };
  } catch (err) {
    reply = errorReply(id, err);
  }
  port.postMessage(reply);
}

port.on("message", (m: ReadRequest) => {
  if ("job" in m) {
    void runJob(m.id, m.job);
    return;
  }
  const conn = db;
  if (!conn) {
    port.postMessage(errorReply(m.id, new Error("this reader runs jobs only")));
    return;
  }
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
    reply = errorReply(m.id, err);
  }
  port.postMessage(reply);
});
