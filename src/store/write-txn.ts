import type { Transaction } from "kysely";
import type { Clock } from "../clock.js";
import type { Db } from "./db.js";
import { dialectOf } from "./dialect-of.js";
import { sql } from "./kysely.js";
import { isStalePlan } from "./pg-named.js";
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
 * serialization_failure: 40P01, 40001; or a named statement's cached plan made stale by another
 * process's schema change, pg-named.ts, whose connection prepares it anew), a bounded number of times. Only for a transaction that
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
 * `writeTxnRetried`, and on PostgreSQL the fate of a transaction whose COMMIT went unanswered.
 * A connection cut while the COMMIT was on its way leaves the transaction committed or not,
 * and the caller cannot tell which: the group commit would run its writes again, and a write
 * run twice is not always the same write (an admission that committed, run again, finds its own
 * lease on the site and writes a second row, the first then read as a request interrupted on
 * the wire, counted as sent: P15, P27, though nothing was sent). Each transaction here first
 * asks for its id (`txid_current()`, one round trip); when its COMMIT's answer is lost, a fresh
 * session asks the server what became of it (fateOf): committed, it gives back what it
 * decided, as if the answer had come; rolled back, or not known within the bound, the error
 * goes up as before (the group commit runs a batch's writes again, each alone). The pauses
 * between its questions are slept on `clock` (the store's caller's: the real one in a night).
 */
export async function writeTxnKnown<T>(
  db: Db,
  fn: (tx: Tx) => Promise<T>,
  clock: Clock,
): Promise<T> {
  if (dialectOf(db) !== "postgres") return writeTxnRetried(db, fn);
  // The run under way: its transaction's id and backend, and what it decided once every
  // write ran (only its COMMIT was left).
  type Run = { xid: string; pid: number; decided?: { value: T } };
  let run: Run | undefined;
  try {
    return await writeTxnRetried(db, async (tx) => {
      run = undefined;
      const r = await sql<{
        xid: string;
        pid: number;
      }>`select txid_current()::text as xid, pg_backend_pid() as pid`.execute(tx);
      const me = r.rows[0];
      if (me === undefined) throw new Error("txid_current() gave no row");
      const thisRun: Run = { xid: me.xid, pid: me.pid };
      run = thisRun;
      thisRun.decided = { value: await fn(tx) };
      return thisRun.decided.value;
    });
  } catch (err) {
    const lost = run as Run | undefined;
    if (lost?.decided === undefined || !connectionLost(err)) throw err;
    if ((await fateOf(db, lost.xid, lost.pid, clock)) === "committed") return lost.decided.value;
    throw err;
  }
}

/**
 * The pauses before a write on a lost PostgreSQL session is tried again (a completion or a
 * head's wait: journal.ts askedAgainOnLoss; a lost COMMIT's fate question, asked at once first):
 * twelve tries over about 14 s, so a server restarting (its sessions ended, new connections
 * refused or ended at once while it starts up, commonly a few seconds) is waited for. Asked
 * again at once, all tries fell within the same millisecond of the restart and the answer was
 * lost: the site's end, a no or a Retry-After (P10, P15, P21). The lane waits meanwhile, its
 * site held: nothing is sent on its account. Slept on the clock the journal is given (a night's
 * own, the system's in production; tests pass one whose pauses they control).
 */
export const LOSS_PAUSES_MS = [
  50, 100, 250, 500, 1000, 2000, 2000, 2000, 2000, 2000, 2000,
] as const;

const FATE_PAUSES_MS = [0, ...LOSS_PAUSES_MS] as const;

/**
 * What became of PostgreSQL transaction `xid`, asked on a fresh session (`txid_status`). Still
 * in progress, its session is either finishing the COMMIT or sitting idle without it, holding
 * its locks until the server ends it (IDLE_IN_TRANSACTION_MS): that session, found by its
 * backend and transaction both (a pid alone may have been given to another session since), is
 * ended, so the transaction is rolled back unless its COMMIT had arrived, and asked again. A
 * question that fails for another reason than a lost connection is no answer: "unknown". The
 * pauses between the questions are slept on `clock`.
 */
async function fateOf(
  db: Db,
  xid: string,
  pid: number,
  clock: Clock,
): Promise<"committed" | "aborted" | "unknown"> {
  let ended = false;
  for (const pause of FATE_PAUSES_MS) {
    if (pause > 0) await clock.sleep(pause);
    let s: string | null | undefined;
    try {
      const r = await sql<{ s: string | null }>`select txid_status(${xid}::bigint) as s`.execute(
        db,
      );
      s = r.rows[0]?.s;
    } catch (err) {
      if (connectionLost(err)) continue;
      // The question failed, not the COMMIT: a server that does not know the transaction (a
      // standby promoted before it got there: "in the future"), a session refused for another
      // reason. Nothing is known of it: the lost COMMIT's own error goes up, as before this was
      // asked (a completion is asked again on a fresh session).
      return "unknown";
    }
    if (s === "committed" || s === "aborted") return s;
    if (s !== "in progress") return "unknown";
    if (!ended) {
      try {
        await sql`select pg_terminate_backend(pid) from pg_stat_activity
          where pid = ${pid} and backend_xid::text = (${xid}::bigint % 4294967296)::text`.execute(
          db,
        );
        ended = true;
      } catch (err) {
        // Not this role's to end (pg_terminate_backend's EXECUTE revoked): asked on, the
        // session perhaps finishing its COMMIT; the server ends it when idle.
        if (!connectionLost(err)) ended = true;
      }
    }
  }
  return "unknown";
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
  return code === "40P01" || code === "40001" || isStalePlan(err);
}
