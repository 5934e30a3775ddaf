/**
 * Group commit: the journal's writes (admissions, completions) that arrive while another batch
 * is being written, or in the same turn of the event loop, share one transaction and so one
 * fsync (synchronous=FULL on SQLite; one WAL flush on PostgreSQL). Nothing is given back before
 * its batch has committed, so a request's row is still durable before its first byte is sent.
 *
 * Writes of one batch run one after another in the order they arrived, each seeing what the
 * earlier ones wrote, exactly as if each had been its own transaction in that order. A write
 * that throws (a bug, a constraint) rolls the batch back, and then each write runs again in its
 * own transaction: the one that throws rejects alone, the others commit. Nothing was given back
 * before, so nothing was sent on account of the rolled-back run. A batch whose transaction
 * cannot begin, the write lock held by another process past the wait's bound, fails each of its
 * writes with that error, at once: none ran. On PostgreSQL a batch that loses a deadlock or a
 * serialisation check (40P01, 40001) is run again from the start, a bounded number of times:
 * nothing it decided was given back, so nothing was sent on its account. A batch whose COMMIT's
 * answer was lost on PostgreSQL (its connection cut) is asked after: made, its writes are given
 * back as written; not made, they run again each alone (write-txn.ts writeTxnKnown).
 */

import { type Clock, systemClock } from "../clock.js";
import { type Db, lockWaitGivenUp } from "./db.js";
import { type Tx, writeTxnKnown } from "./write-txn.js";

interface Pending<T> {
  fn: (tx: Tx) => Promise<T>;
  resolve(value: T): void;
  reject(err: unknown): void;
}

/** The most writes one transaction takes: a bound on the time a batch holds the write lock. */
export const GROUP_MAX = 64;

export class GroupCommit {
  readonly #db: Db;
  /** What the pauses after a lost PostgreSQL connection are slept on (writeTxnKnown). */
  readonly #clock: Clock;
  #queue: Pending<unknown>[] = [];
  #running = false;
  /**
   * Transactions committed and writes in them, for tests and `bench/`: writes / batches ≥ 1;
   * `alone`: batches rolled back because a write threw, whose writes then ran one by one.
   */
  readonly stats = { batches: 0, writes: 0, alone: 0 };

  /**
   * `clock`: what this process's waits are slept on (a night's own); the system's by default,
   * for a command that keeps no clock of its own and waits in real time.
   */
  constructor(db: Db, clock: Clock = systemClock) {
    this.#db = db;
    this.#clock = clock;
  }

  /** The store its transactions commit to. */
  get db(): Db {
    return this.#db;
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
    if (batch.length > 1) {
      const out = await this.#together(batch);
      if ("values" in out) {
        this.stats.batches++;
        this.stats.writes += batch.length;
        for (const [i, p] of batch.entries()) p.resolve(out.values[i]);
        return;
      }
      // The transaction could not begin, its wait for the store's write lock (held by another
      // process) given up (db.ts waitForLock): no write ran, none is to blame, and each run
      // alone would only meet the lock again. Each fails with it.
      if (!out.began && lockWaitGivenUp(out.error)) {
        for (const p of batch) p.reject(out.error);
        return;
      }
      // A write threw: nothing of the batch was kept or given back. Each write runs again in
      // its own transaction, in the same order, and the one that throws fails alone.
      this.stats.alone++;
    }
    for (const p of batch) {
      try {
        const value = await this.#transaction((tx) => p.fn(tx));
        this.stats.batches++;
        this.stats.writes++;
        p.resolve(value);
      } catch (err) {
        p.reject(err);
      }
    }
  }

  /**
   * The batch's writes one after another in one transaction, without savepoints (each would
   * cost two more round trips on PostgreSQL). The error when it failed (rolled back), and whether
   * its transaction began.
   */
  async #together(
    batch: Pending<unknown>[],
  ): Promise<{ values: unknown[] } | { error: unknown; began: boolean }> {
    let began = false;
    try {
      const values = await this.#transaction(async (tx) => {
        began = true;
        const out: unknown[] = [];
        for (const p of batch) out.push(await p.fn(tx));
        return out;
      });
      return { values };
    } catch (error) {
      return { error, began };
    }
  }

  /**
   * One transaction, run again from the start when it lost a race on PostgreSQL, and given
   * back as committed when its COMMIT's answer was lost but the server had committed it.
   */
  #transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return writeTxnKnown(this.#db, fn, this.#clock);
  }
}
