/**
 * Nights are named by their calendar date (YYYY-MM-DD) in the operator's zone, so "the
 * night of Nov 5" means the same thing in the log (P27), the directory (P23) and the
 * recheck schedule (P25). Date arithmetic is on the calendar date itself (UTC days), so
 * daylight-saving changes never make a day 23 or 25 hours long here.
 */
import { NorError } from "../errors.js";
import { instantOf, wallTimeAt } from "./zone.js";

/** The calendar date (YYYY-MM-DD) in `timeZone` at the instant `now` (ms since epoch). */
export function nightOf(now: number, timeZone = "America/New_York"): string {
  if (!Number.isFinite(now)) throw new NorError("E_INTERNAL", `nightOf: bad time ${now}`);
  const w = wallTimeAt(now, timeZone);
  const p = (n: number, width = 2) => String(n).padStart(width, "0");
  return `${p(w.year, 4)}-${p(w.month)}-${p(w.day)}`;
}

const NIGHT = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Days since the epoch of a YYYY-MM-DD date; throws on anything that is not a real date. */
function dayNumber(night: string): number {
  const m = NIGHT.exec(night);
  if (m) {
    const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
    const t = Date.UTC(y, mo - 1, d);
    const back = new Date(t);
    if (back.getUTCFullYear() === y && back.getUTCMonth() === mo - 1 && back.getUTCDate() === d) {
      return t / 86_400_000;
    }
  }
  throw new NorError("E_INTERNAL", `not a night date (YYYY-MM-DD): ${JSON.stringify(night)}`);
}

function fromDayNumber(n: number): string {
  return new Date(n * 86_400_000).toISOString().slice(0, 10);
}

/** Whether `text` is a real calendar date written YYYY-MM-DD (2026-02-30 is not). */
export function isNightDate(text: string): boolean {
  try {
    dayNumber(text);
    return true;
  } catch {
    return false;
  }
}

/** The night `n` calendar days after (or, for negative n, before) `night`. */
export function addDays(night: string, n: number): string {
  if (!Number.isInteger(n)) throw new NorError("E_INTERNAL", `addDays: not a whole number ${n}`);
  return fromDayNumber(dayNumber(night) + n);
}

/** Whole calendar days from `a` to `b` (positive when b is later). */
export function daysBetween(a: string, b: string): number {
  return dayNumber(b) - dayNumber(a);
}

/** A night lasts at most a day: the next night may start 24 h after this one started. */
export const NIGHT_SPAN_MS = 24 * 60 * 60 * 1000;

/** When the night after `night` begins by the default schedule: 01:00 New York on the next date. */
export function nextNightStart(night: string): number | undefined {
  if (!isNightDate(night)) return undefined;
  const [y, m, d] = addDays(night, 1).split("-").map(Number) as [number, number, number];
  return instantOf(
    { year: y, month: m, day: d, hour: 1, minute: 0, second: 0, ms: 0 },
    "America/New_York",
    "earlier",
  );
}

/**
 * When an unfinished night's time is over (P13): its deadline, 24 h after its start, or the
 * start of the next night (01:00 New York on the date after its name), whichever comes first.
 * So a night named Nov 30 but begun on Dec 3 is over at once, and a plain `nor night` begins
 * tonight's with the options it is given.
 */
export function closingTime(
  startedAt: string,
  deadlineAt: string,
  night?: string,
): number | undefined {
  const start = Date.parse(startedAt);
  const deadline = Date.parse(deadlineAt);
  if (Number.isNaN(start) || Number.isNaN(deadline)) return undefined;
  const next = night === undefined ? undefined : nextNightStart(night);
  return Math.min(deadline, start + NIGHT_SPAN_MS, next ?? Number.POSITIVE_INFINITY);
}
