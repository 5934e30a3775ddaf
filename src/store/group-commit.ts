/**
 * Group commit: the journal's writes (admissions, completions) that arrive while another batch
 * is being written, or in the same turn of the event loop, share one transaction and so one
 * fsync (synchronous=FULL on SQLite; one WAL flush on PostgreSQL). Nothing is given back before
 * its batch has committed, so a request's row is still durable before its first byte is sent.
 *
 * Each write runs in its own savepoint: a write that throws (a bug, a constraint) is rolled
 * back alone and rejects alone; the others commit. Writes of one batch run one after another in
 * the order they arrived, each seeing what the earlier ones wrote, exactly as if each had been
 * its own transaction in that order. On PostgreSQL a batch that loses a deadlock or a
 * serialisation check (40P01, 40001) is run again from the start, a bounded number of times:
 * nothing it decided was given back, so nothing was sent on its account.
 */

import type { Db } from "./db.js";
import { sql } from "./kysely.js";
import { type Tx, writeTxn } from "./write-txn.js";

interface Pending<T> {
  fn: (tx: Tx) => Promise<T>;
  resolve(value: T): void;
  reject(err: unknown): void;
}

/** The most writes one transaction takes: a bound on the time a batch holds the write lock. */
export const GROUP_MAX = 64;
/** Attempts at a batch that lost a deadlock on PostgreSQL before its writes are rejected. */
const RETRIES = 5;

type Settled = { ok: true; value: unknown } | { ok: false; err: unknown };

export class GroupCommit {
  readonly #db: Db;
  #queue: Pending<unknown>[] = [];
  #running = false;
  /** Batches committed and writes in them, for tests and `bench/`: writes / batches ≥ 1. */
  readonly stats = { batches: 0, writes: 0 };

  constructor(db: Db) {
    this.#db = db;
  }

  /** Runs `fn` inside a shared write transaction; resolves once that transaction committed. */
  run<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ fn, resolve, reject } as Pending<unknown>);
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#running) return;
    this.#running = true;
    // The rest of this turn's writes (other lanes' answers read in the same poll) join.
    setImmediate(() => void this.#drain());
  }

  async #drain(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0, GROUP_MAX);
        await this.#commit(batch);
      }
    } finally {
      this.#running = false;
      // A write queued between the last splice and here would otherwise wait for the next one.
      if (this.#queue.length > 0) this.#schedule();
    }
  }

  async #commit(batch: Pending<unknown>[]): Promise<void> {
    let settled: Settled[] = [];
    for (let attempt = 1; ; attempt++) {
      try {
        settled = await writeTxn(this.#db, async (tx) => {
          const out: Settled[] = [];
          if (batch.length === 1) {
            // Alone in its transaction: no savepoint needed, a throw rolls back only this.
            return [{ ok: true, value: await (batch[0] as Pending<unknown>).fn(tx) }];
          }
          for (const [i, p] of batch.entries()) {
            const sp = sql.raw(`gc_${i}`);
            await sql`savepoint ${sp}`.execute(tx);
            try {
              out.push({ ok: true, value: await p.fn(tx) });
              await sql`release savepoint ${sp}`.execute(tx);
            } catch (err) {
              if (lostRace(err)) throw err; // the whole batch runs again
              await sql`rollback to savepoint ${sp}`.execute(tx);
              await sql`release savepoint ${sp}`.execute(tx);
              out.push({ ok: false, err });
            }
          }
          return out;
        });
        break;
      } catch (err) {
        if (attempt < RETRIES && lostRace(err)) continue;
        for (const p of batch) p.reject(err);
        return;
      }
    }
    this.stats.batches++;
    this.stats.writes += batch.length;
    for (const [i, p] of batch.entries()) {
      const s = settled[i];
      if (s?.ok) p.resolve(s.value);
      else p.reject(s ? s.err : new Error("group commit: a write has no result"));
    }
  }
}

/** PostgreSQL's deadlock_detected and serialization_failure: the batch may simply run again. */
function lostRace(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === "40P01" || code === "40001";
}
