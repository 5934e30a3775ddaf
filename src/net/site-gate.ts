import type { Clock } from "../clock.js";
import type { SiteStatePort } from "./types.js";

export type GateResult<T> = { ran: true; value: T } | { ran: false; reason: "deadline" };

/**
 * P10, P13: the longest wait the gate will sleep through. A Crawl-delay of weeks, or a stored
 * end in the future (the clock went back), means "not tonight", never a sleep that a timer
 * cuts short (setTimeout fires at once past 2^31-1 ms) and never a negative or NaN wait.
 */
export const LONGEST_WAIT_MS = 24 * 60 * 60 * 1000;

/**
 * P9 and P10: one lane per site. A request waits for the one before it on the same site to
 * end, then for at least `gapMs` after that end (the end persisted through SiteStatePort, so
 * the gap also holds across a restart), and only then starts. Robots.txt fetches, redirect
 * hops, retries and rechecks all pass through here.
 *
 * P13: when the start would fall after the deadline the request does not run at all; the
 * delay is never shortened to fit.
 */
export class SiteGate {
  readonly #clock: Clock;
  readonly #state: SiteStatePort;
  readonly #deadline: number | undefined;
  readonly #tails = new Map<string, Promise<void>>();
  readonly #ends = new Map<string, number>();

  constructor(clock: Clock, state: SiteStatePort, deadline?: number) {
    this.#clock = clock;
    this.#state = state;
    this.#deadline = deadline;
  }

  /**
   * Runs `fn` alone on `site`, starting no sooner than `gapMs` after the site's last end and
   * no sooner than `notBefore` (a retry's wait, P15). The end is recorded when `fn` settles.
   */
  async run<T>(
    site: string,
    gapMs: number,
    fn: () => Promise<T>,
    notBefore?: number,
  ): Promise<GateResult<T>> {
    const previous = this.#tails.get(site) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => {
      release = r;
    });
    const tail = previous.then(() => mine);
    this.#tails.set(site, tail);
    await previous;
    try {
      const stored = await this.#state.lastEnd(site);
      const last = Math.max(this.#ends.get(site) ?? -Infinity, stored ?? -Infinity);
      const now = this.#clock.now();
      const startAt = Math.max(last + gapMs, notBefore ?? -Infinity, now);
      // Math.max passes NaN through: an unreadable wait is "not tonight", never "now".
      if (!(startAt - now <= LONGEST_WAIT_MS)) return { ran: false, reason: "deadline" };
      if (this.#deadline !== undefined && startAt > this.#deadline) {
        return { ran: false, reason: "deadline" };
      }
      // A timer may fire a hair early against the wall clock; sleep again for the rest.
      for (let i = 0; i < 10 && this.#clock.now() < startAt; i++) {
        await this.#clock.sleep(startAt - this.#clock.now());
      }
      // Fail closed: a clock that never reaches startAt does not get the request sent early.
      if (this.#clock.now() < startAt) return { ran: false, reason: "deadline" };
      try {
        return { ran: true, value: await fn() };
      } finally {
        const end = this.#clock.now();
        this.#ends.set(site, end);
        await this.#state.setLastEnd(site, end);
      }
    } finally {
      release();
      if (this.#tails.get(site) === tail) this.#tails.delete(site);
    }
  }
}
