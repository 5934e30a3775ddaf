import type { Clock } from "../../src/clock.js";

/**
 * A clock for the store's pauses after a lost PostgreSQL connection (write-txn.ts
 * LOSS_PAUSES_MS): each sleep is recorded (`slept`, in order) and moves its time on by as much,
 * and it ends as soon as `until` says the world outside is as the pause waited for it to be (a
 * stuck session ended by the server); without `until`, at once. No test waits the pauses' real
 * seconds, and none depends on how long a real pause would have been.
 */
export class PauseClock implements Clock {
  readonly slept: number[] = [];
  #now: number;
  readonly #until: (() => Promise<void>) | undefined;

  constructor(opts: { start?: number; until?: () => Promise<void> } = {}) {
    this.#now = opts.start ?? Date.UTC(2026, 10, 5, 6, 0, 0);
    this.#until = opts.until;
  }

  now(): number {
    return this.#now;
  }

  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    this.slept.push(ms);
    this.#now += Math.max(0, ms);
    await this.#until?.();
  }
}
