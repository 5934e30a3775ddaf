/**
 * How soon after its last byte each answer was made durable (P8, P27): from the moment the
 * checker read the end of an answer to the moment its journal row's completion committed
 * (the body was archived before that). A night reports the median, the 99th percentile and
 * the longest, so an operator sees whether the store keeps up (the target is 250 ms).
 * Whole milliseconds in a fixed histogram: the same memory for ten answers or a million.
 */
export interface DurableSummary {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

const BUCKETS = 10_000;

export class DurableWindow {
  readonly #counts = new Uint32Array(BUCKETS + 1);
  #count = 0;
  #max = 0;

  /**
   * A journal row's completion, committed at `now`: counted when it completed an answer (a
   * status was read). A row completed with nothing read (not sent: stopped, past the deadline;
   * no connection) has no last byte, and its near-zero wait would flatter the figures.
   */
  completed(c: { status: number | null; endedAt: number }, now: number): void {
    if (c.status !== null) this.record(now - c.endedAt);
  }

  record(ms: number): void {
    const v = Math.max(0, Math.round(ms));
    this.#counts[Math.min(v, BUCKETS)]! += 1;
    this.#count++;
    if (v > this.#max) this.#max = v;
  }

  summary(): DurableSummary | undefined {
    if (this.#count === 0) return undefined;
    return {
      count: this.#count,
      p50: this.#at(0.5),
      p99: this.#at(0.99),
      max: this.#max,
    };
  }

  /** The smallest value at or under which at least `q` of the answers fall (the top bucket: the max). */
  #at(q: number): number {
    const want = Math.ceil(q * this.#count);
    let seen = 0;
    for (let i = 0; i < BUCKETS; i++) {
      seen += this.#counts[i]!;
      if (seen >= want) return i;
    }
    return this.#max;
  }
}
