/**
 * Every read of the time goes through a Clock, so a simulated night of 10,000 sources runs
 * in seconds and politeness (P10, P13, P15) is tested without sleeping.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Resolves after `ms` of this clock's time; rejects with the signal's reason if aborted. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const timer = setTimeout(
        () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
        Math.max(0, ms),
      );
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
    }),
};

interface Timer {
  at: number;
  seq: number;
  resolve: () => void;
}

/**
 * Virtual time for tests and simulations. `sleep` registers a timer; time only moves when
 * `advance(ms)` or `step()` is called. A driver that calls `step()` whenever every task is
 * asleep (the simulation, `night/simulate.ts`) runs a whole night as fast as the CPU allows.
 */
export class ManualClock implements Clock {
  #now: number;
  #timers: Timer[] = [];
  #seq = 0;

  constructor(start = Date.UTC(2026, 10, 5, 8, 0, 0)) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const onAbort = () => {
        this.#timers = this.#timers.filter((t) => t !== timer);
        reject(signal?.reason);
      };
      // Woken, it stops listening: a night's signal would otherwise hold a listener for every
      // sleep of the night (and adding one looks through all of them: a simulated night of
      // 30,000 sources spent most of its time there).
      const wake = () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      };
      const timer: Timer = { at: this.#now + Math.max(0, ms), seq: this.#seq++, resolve: wake };
      this.#timers.push(timer);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Number of sleepers waiting. */
  get pending(): number {
    return this.#timers.length;
  }

  /** When the earliest sleeper wakes, if anyone sleeps. */
  get nextAt(): number | undefined {
    return this.#earliest()?.at;
  }

  /** Moves time forward by `ms`, waking sleepers in time order. */
  async advance(ms: number): Promise<void> {
    const target = this.#now + ms;
    for (;;) {
      const next = this.#earliest();
      if (!next || next.at > target) break;
      this.#wake(next);
      // Let the woken task run until it sleeps again or finishes.
      await flushMicrotasks();
    }
    this.#now = target;
  }

  /** Wakes the earliest sleeper (moving time to it). Returns false when nobody sleeps. */
  async step(): Promise<boolean> {
    const next = this.#earliest();
    if (!next) return false;
    this.#wake(next);
    await flushMicrotasks();
    return true;
  }

  #earliest(): Timer | undefined {
    let best: Timer | undefined;
    for (const t of this.#timers) {
      if (!best || t.at < best.at || (t.at === best.at && t.seq < best.seq)) best = t;
    }
    return best;
  }

  #wake(t: Timer) {
    this.#timers = this.#timers.filter((x) => x !== t);
    if (t.at > this.#now) this.#now = t.at;
    t.resolve();
  }
}

async function flushMicrotasks(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
  await new Promise<void>((r) => setImmediate(r));
}
