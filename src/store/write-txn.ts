import type { Transaction } from "kysely";
import type { Db } from "./db.js";
import { dialectOf } from "./dialect-of.js";
import { sql } from "./kysely.js";
import type { Database } from "./schema/index.js";
import { directOfStore, heldBy, letGo } from "./sqlite-direct.js";

export type Tx = Transaction<Database> | Db;

/**
 * A transaction that writes, serialised against every other writer of the store from the
 * start: `BEGIN IMMEDIATE` on SQLite (several processes on one file take the write lock before
 * reading, so what they read cannot change before they write), an ordinary transaction on
 * PostgreSQL, where the caller locks the rows it decides on (`for update`).
 */
export async function writeTxn<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  if (dialectOf(db) === "postgres") return db.transaction().execute(fn);
  const direct = directOfStore(db);
  return db.connection().execute(async (conn) => {
    // The connection is this transaction's until it returns: its prepared statements may run
    // on it straight (sqlite-direct.ts).
    if (direct) heldBy(conn, direct);
    try {
      await sql`begin immediate`.execute(conn);
      try {
        const out = await fn(conn);
        await sql`commit`.execute(conn);
        return out;
      } catch (err) {
        await sql`rollback`.execute(conn).catch(() => {});
        throw err;
      }
    } finally {
      letGo(conn);
    }
  });
}

/** Attempts at a transaction that lost a deadlock on PostgreSQL before it gives up. */
const RACE_ATTEMPTS = 5;

/**
 * `writeTxn`, run again from the start when it lost a race on PostgreSQL (deadlock_detected,
 * serialization_failure: 40P01, 40001), a bounded number of times. Only for a transaction that
 * gave nothing back before it committed, so nothing was decided on account of a lost run.
 */
export async function writeTxnRetried<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await writeTxn(db, fn);
    } catch (err) {
      if (attempt < RACE_ATTEMPTS && lostRace(err)) continue;
      throw err;
    }
  }
}

/**
 * Whether a PostgreSQL statement failed because its session is gone: ended by the server (an
 * idle transaction past IDLE_IN_TRANSACTION_MS while this process was frozen, an operator's
 * `pg_terminate_backend`, a restart: class 57P and 25P03, class 08), its connection cut (the
 * driver's own words, a socket's error), or a new one refused while the server starts up. What
 * that transaction wrote was rolled back, unless the connection was cut while its COMMIT was on
 * the way, when it may have committed: only a write that gives the same result run twice may
 * be run again on it (SqlJournal's completion).
 */
export function connectionLost(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === "string" ? e.code : "";
  if (/^(08|57P0)/.test(code) || code === "25P03") return true;
  // A connection refused (the server restarting) sent nothing: any write may be asked again.
  if (["ECONNRESET", "EPIPE", "ETIMEDOUT", "ECONNREFUSED"].includes(code)) return true;
  const message = typeof e?.message === "string" ? e.message : "";
  return /Connection terminated|not queryable|connection error/i.test(message);
}

function lostRace(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === "40P01" || code === "40001";
}
