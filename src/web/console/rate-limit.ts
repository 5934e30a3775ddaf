/**
 * Failed sign-ins per client address: at most 5 in any 15 minutes, then the address gets 429
 * until the oldest failure ages out — even for the right password, or guessing would go on.
 * In memory: a restart forgets, which costs an attacker a restart of our process to gain 5
 * more guesses against a scrypt hash (acceptable; documented in docs/operations.md).
 */
export const MAX_FAILURES = 5;
export const FAILURE_WINDOW_MS = 15 * 60 * 1000;
/** Bounds memory if many addresses fail: the oldest address is forgotten first. */
const MAX_ADDRESSES = 10_000;

export class SignInLimiter {
  readonly #failures = new Map<string, number[]>();

  #recent(address: string, now: number): number[] {
    const list = (this.#failures.get(address) ?? []).filter((t) => now - t < FAILURE_WINDOW_MS);
    if (list.length === 0) this.#failures.delete(address);
    else this.#failures.set(address, list);
    return list;
  }

  /** Milliseconds until this address may try again; 0 when it may now. */
  retryAfterMs(address: string, now: number): number {
    const list = this.#recent(address, now);
    if (list.length < MAX_FAILURES) return 0;
    const oldest = list[list.length - MAX_FAILURES] ?? now;
    return Math.max(1, oldest + FAILURE_WINDOW_MS - now);
  }

  fail(address: string, now: number): void {
    const list = this.#recent(address, now);
    list.push(now);
    this.#failures.delete(address);
    this.#failures.set(address, list);
    if (this.#failures.size > MAX_ADDRESSES) {
      const first = this.#failures.keys().next().value;
      if (first !== undefined) this.#failures.delete(first);
    }
  }

  /** A right password clears the address's failures. */
  succeed(address: string): void {
    this.#failures.delete(address);
  }
}
