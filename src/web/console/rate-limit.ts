/**
 * Sign-in attempts per client address: at most 5 password checks in any 15 minutes, counted
 * when the check begins (before the slow scrypt hash), and at most one check in flight per
 * address. So 300 guesses sent at once get at most 5 checks: the rest are answered 429 without
 * touching the password, even the right one, or guessing would go on. A right password clears
 * the address's count.
 *
 * An IPv6 address is counted by its /64: one subscriber is handed a whole /64 (2^64 addresses),
 * so per single address, anyone with IPv6 could name a new address for every guess. An
 * IPv4-mapped IPv6 address (::ffff:1.2.3.4) counts as its IPv4 address.
 *
 * In memory: a restart forgets, which costs an attacker a restart of our process to gain 5
 * more guesses against a scrypt hash (acceptable; documented in docs/operations.md).
 */
import { isIPv4, isIPv6 } from "node:net";
export const MAX_CHECKS = 5;
/** Kept for callers that speak of failures: every check counts until it succeeds. */
export const MAX_FAILURES = MAX_CHECKS;
export const FAILURE_WINDOW_MS = 15 * 60 * 1000;
/** Bounds memory if many addresses try: the oldest address is forgotten first. */
const MAX_ADDRESSES = 10_000;

/**
 * What sign-ins are counted by: an IPv4 address as it is, an IPv6 address by its /64
 * ("2001:db8:1:2::/64"), anything else (an unknown, a header's odd value) as written.
 */
export function limitKey(address: string): string {
  const a = address
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, "$1")
    .replace(/%.*$/, "");
  const mapped = /^(?:0{0,4}:){0,5}:?ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(a)?.[1];
  if (mapped !== undefined && isIPv4(mapped)) return mapped;
  if (!isIPv6(a)) return a;
  const [head = "", tail] = a.split("::");
  const groups = (part: string) =>
    part === "" ? [] : part.split(":").flatMap((g) => (g.includes(".") ? ["0", "0"] : [g]));
  const h = groups(head);
  const t = tail === undefined ? [] : groups(tail);
  const all = [
    ...h,
    ...Array.from({ length: Math.max(0, 8 - h.length - t.length) }, () => "0"),
    ...t,
  ];
  return `${all
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(":")}::/64`;
}

export type Admission =
  | { ok: true; done: (succeeded: boolean) => void }
  | { ok: false; retryAfterMs: number };

export class SignInLimiter {
  readonly #checks = new Map<string, number[]>();
  readonly #inFlight = new Set<string>();

  #recent(address: string, now: number): number[] {
    const list = (this.#checks.get(address) ?? []).filter((t) => now - t < FAILURE_WINDOW_MS);
    if (list.length === 0) this.#checks.delete(address);
    else this.#checks.set(address, list);
    return list;
  }

  /** Milliseconds until this address may try again; 0 when it may now. */
  retryAfterMs(from: string, now: number): number {
    const address = limitKey(from);
    if (this.#inFlight.has(address)) return 1000;
    const list = this.#recent(address, now);
    if (list.length < MAX_CHECKS) return 0;
    const oldest = list[list.length - MAX_CHECKS] ?? now;
    return Math.max(1, oldest + FAILURE_WINDOW_MS - now);
  }

  /**
   * Synchronously reserves one check for `address` (counted now, before any await), or says
   * how long to wait. The caller must call `done` once the check is over.
   */
  admit(from: string, now: number): Admission {
    const address = limitKey(from);
    const wait = this.retryAfterMs(address, now);
    if (wait > 0) return { ok: false, retryAfterMs: wait };
    const list = this.#recent(address, now);
    list.push(now);
    this.#checks.delete(address);
    this.#checks.set(address, list);
    if (this.#checks.size > MAX_ADDRESSES) {
      const first = this.#checks.keys().next().value;
      if (first !== undefined) this.#checks.delete(first);
    }
    this.#inFlight.add(address);
    let finished = false;
    return {
      ok: true,
      done: (succeeded) => {
        if (finished) return;
        finished = true;
        this.#inFlight.delete(address);
        if (succeeded) this.#checks.delete(address);
      },
    };
  }
}
