/**
 * P15: when a failed attempt is tried again, and after how long. Pure: the caller passes the
 * time in and still enforces the 2 s site gap (P10) on top of any wait decided here.
 */
import { NorError } from "../errors.js";
import { MAX_RETRIES, RETRY_AFTER_MAX_MS, RETRY_WAITS_MS } from "./constants.js";

export type RetryDecision =
  | { retry: true; waitMs: number }
  | {
      retry: false;
      reason:
        | "not-retryable"
        | "retries-exhausted"
        | "retry-after-too-long"
        | "retry-after-unreadable";
    };

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const DAY = "(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)";
const LONG_DAY = "(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)";
const MON = "(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)";
const TIME = "(\\d{2}):(\\d{2}):(\\d{2})";
/** RFC 9110 §5.6.7 IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`. */
const IMF = new RegExp(`^${DAY}, (\\d{2}) ${MON} (\\d{4}) ${TIME} GMT$`);
/** Obsolete RFC 850 form: `Sunday, 06-Nov-94 08:49:37 GMT`. */
const RFC850 = new RegExp(`^${LONG_DAY}, (\\d{2})-${MON}-(\\d{2}) ${TIME} GMT$`);
/** Obsolete asctime form: `Sun Nov  6 08:49:37 1994` (day padded with a space). */
const ASCTIME = new RegExp(`^${DAY} ${MON} ([ \\d]\\d) ${TIME} (\\d{4})$`);

/**
 * Parses an HTTP-date (RFC 9110 §5.6.7) in any of its three forms into ms since the epoch.
 * Returns undefined for anything else, including impossible dates such as 31 Feb.
 */
export function parseHttpDate(value: string, now: number): number | undefined {
  let m = IMF.exec(value);
  if (m) return build(Number(m[3]), m[2]!, Number(m[1]), m[4]!, m[5]!, m[6]!);
  m = RFC850.exec(value);
  if (m) {
    // §5.6.7: a two-digit year more than 50 years in the future is the most recent past
    // year with the same last two digits.
    const yy = Number(m[3]);
    const thisYear = new Date(now).getUTCFullYear();
    let year = Math.floor(thisYear / 100) * 100 + yy;
    if (year > thisYear + 50) year -= 100;
    return build(year, m[2]!, Number(m[1]), m[4]!, m[5]!, m[6]!);
  }
  m = ASCTIME.exec(value);
  if (m) return build(Number(m[6]), m[1]!, Number(m[2]!.trim()), m[3]!, m[4]!, m[5]!);
  return undefined;
}

function build(y: number, mon: string, d: number, hh: string, mm: string, ss: string) {
  const month = MONTHS.indexOf(mon.toLowerCase());
  const [h, mi, s] = [Number(hh), Number(mm), Number(ss)];
  // §5.6.7 allows a leap second (60); JavaScript time has none, so read it as :59.
  if (h > 23 || mi > 59 || s > 60 || d < 1) return undefined;
  const t = Date.UTC(y, month, d, h, mi, Math.min(s, 59));
  const check = new Date(t);
  if (check.getUTCDate() !== d || check.getUTCMonth() !== month) return undefined;
  return t;
}

/** What a Retry-After field says, as read by {@link readRetryAfter}. */
export type RetryAfter =
  | { kind: "absent" }
  | { kind: "delay"; ms: number }
  | { kind: "unreadable"; value: string };

const DAY_NAME =
  /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)$/;

/** How far a server's Date may be from our clock and still be read as its clock (P15). */
export const SERVER_DATE_TRUST_MS = 24 * 60 * 60 * 1000;

/**
 * The server's clock, from the answer's `Date` header (RFC 9110 §6.6.1), when it is one
 * readable HTTP-date within a day of ours; undefined otherwise (absent, unreadable, sent
 * twice, or so far off that it says nothing about the wait: a Date of 1970 must not hold a
 * site for decades).
 */
export function serverClock(date: string | undefined, now: number): number | undefined {
  if (date === undefined) return undefined;
  const at = parseHttpDate(date.replace(/^[ \t]+|[ \t]+$/g, ""), now);
  if (at === undefined || Math.abs(at - now) > SERVER_DATE_TRUST_MS) return undefined;
  return at;
}

/**
 * One Retry-After value (RFC 9110 §10.2.3): delta-seconds or an HTTP-date, as a delay in ms.
 * An HTTP-date is the server's time: read against our clock and, when the answer's Date is
 * trusted, against the server's own, the longer of the two (a server whose clock is behind
 * ours still gets the wait it asked for; one ahead gets a longer one, which is harmless).
 */
function oneRetryAfter(v: string, now: number, server: number | undefined): number | undefined {
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = parseHttpDate(v, now);
  if (at === undefined) return undefined;
  // A date in the past (on both clocks) means "now".
  return Math.max(0, at - now, server === undefined ? 0 : at - server);
}

/**
 * P15, RFC 9110 §10.2.3: Retry-After is delta-seconds (a non-negative integer) or an
 * HTTP-date. A field sent more than once arrives joined with ", " (RFC 9110 §5.3), so the
 * value is read as a list: the commas inside an IMF-fixdate or RFC 850 date (after the day
 * name) are put back together, and empty elements are ignored (§5.6.1). Several readable
 * values: the largest delay, so the checker never comes back sooner than any of them asked.
 * Any element that cannot be read (`45.0`, `-5`, `soon`) makes the whole field unreadable:
 * the caller must not guess a shorter wait. `date` is the answer's own Date header, if any
 * (see {@link serverClock}): an HTTP-date is waited the longer of its distance from our now
 * and from the server's.
 */
export function readRetryAfter(
  value: string | undefined,
  now: number,
  date?: string | undefined,
): RetryAfter {
  if (value === undefined) return { kind: "absent" };
  const server = serverClock(date, now);
  // OWS is space and tab only (RFC 9110 §5.6.3).
  const parts = value.split(",").map((p) => p.replace(/^[ \t]+|[ \t]+$/g, ""));
  const items: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    const next = parts[i + 1];
    if (DAY_NAME.test(p) && next !== undefined) {
      items.push(`${p}, ${next}`);
      i++;
    } else if (p !== "") {
      items.push(p);
    }
  }
  if (items.length === 0) return { kind: "unreadable", value };
  let largest = 0;
  for (const item of items) {
    const ms = oneRetryAfter(item, now, server);
    if (ms === undefined) return { kind: "unreadable", value };
    largest = Math.max(largest, ms);
  }
  return { kind: "delay", ms: largest };
}

/**
 * The latest instant a hold is kept as: 9999-12-31, the last the store writes as fixed-width
 * ISO text (store/iso-time.ts; past it `toISOString` widens the year, or throws). A Retry-After
 * asking for longer (any run of digits is delta-seconds) holds the site until then: still
 * never sooner than asked, in any lifetime of this program.
 */
export const LATEST_HOLD_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * P15 after a crash: an attempt whose head asked for a wait (`retryAt`, written when the head
 * came, after `startedAt`) and whose process died while its body was read. The answer ended at
 * the latest when the crash was found (`now`), so the wait counts from then: `now` plus the
 * wait asked (at most `retryAt - startedAt`, never shorter). "Not again tonight" stays so.
 */
export function waitAfterCrash(retryAt: number, startedAt: number, now: number): number {
  if (retryAt >= LATEST_HOLD_MS) return retryAt;
  return Math.max(retryAt, now + Math.max(0, retryAt - startedAt));
}

/**
 * P15 for an attempt cut short by the checker's own end: its death (`kill -9`, a crash; found
 * later by another process or the next run, and counted from then: the connection ended at the
 * latest then) or its stop (a signal; counted from the cut). To the site, a connection closed
 * before the answer was complete, so tried again as one is, 5 s after the first send and 20 s
 * after the second. Undefined after the last send a night allows.
 */
export function waitAfterCut(attempt: number): number | undefined {
  if (!(attempt >= 1) || attempt > MAX_RETRIES) return undefined;
  return attempt === 1 ? RETRY_WAITS_MS[0] : RETRY_WAITS_MS[1];
}

/**
 * P15 for an attempt whose process died in it, found `now`: the wait its head asked for
 * (`retryAt`, waitAfterCrash), else the wait of a send cut short (waitAfterCut), from now;
 * undefined when it is tried no more.
 */
export function retryAfterDeath(
  retryAt: number | undefined,
  startedAt: number,
  attempt: number,
  now: number,
): number | undefined {
  if (retryAt !== undefined) return waitAfterCrash(retryAt, startedAt, now);
  const wait = waitAfterCut(attempt);
  return wait === undefined ? undefined : now + wait;
}

/**
 * The delay a Retry-After asks for, in ms from `now`, or undefined when it is absent or
 * cannot be read (see {@link readRetryAfter}, which tells those two apart). `date`: the
 * answer's Date header, trusted within a day of `now` (a server clock behind ours never
 * shortens the wait it asked for).
 */
export function parseRetryAfter(
  value: string | undefined,
  now: number,
  date?: string | undefined,
): number | undefined {
  const r = readRetryAfter(value, now, date);
  return r.kind === "delay" ? r.ms : undefined;
}

/**
 * P15. Only a 5xx, a 429 or a connection closed before a full response is retried (never a
 * time-out, another 4xx, TLS or DNS), at most MAX_RETRIES more times. A Retry-After of up
 * to 60 s is waited exactly; a longer one means no retry tonight, because the checker never
 * comes back sooner than asked. Sent several times, the largest value counts; a value that
 * cannot be read means no retry tonight (when in doubt, do not send). Without one the waits
 * are RETRY_WAITS_MS: 5 s, then 20 s.
 */
export function retryDecision(a: {
  /** 1-based number of the attempt that just ended. */
  attempt: number;
  status?: number;
  /** The connection closed before a full response. */
  closedEarly?: boolean;
  retryAfter?: string;
  /** The answer's Date header: an HTTP-date Retry-After is read against it too. */
  date?: string;
  now: number;
}): RetryDecision {
  if (!Number.isInteger(a.attempt) || a.attempt < 1) {
    throw new NorError(
      "E_INTERNAL",
      `retryDecision: attempt must be a 1-based integer, got ${a.attempt}`,
    );
  }
  const s = a.status;
  const retryable =
    a.closedEarly === true || s === 429 || (s !== undefined && s >= 500 && s <= 599);
  if (!retryable) return { retry: false, reason: "not-retryable" };
  if (a.attempt > MAX_RETRIES) return { retry: false, reason: "retries-exhausted" };
  const asked = readRetryAfter(a.retryAfter, a.now, a.date);
  if (asked.kind === "unreadable") return { retry: false, reason: "retry-after-unreadable" };
  if (asked.kind === "delay") {
    if (asked.ms > RETRY_AFTER_MAX_MS) return { retry: false, reason: "retry-after-too-long" };
    return { retry: true, waitMs: asked.ms };
  }
  return { retry: true, waitMs: a.attempt === 1 ? RETRY_WAITS_MS[0] : RETRY_WAITS_MS[1] };
}
