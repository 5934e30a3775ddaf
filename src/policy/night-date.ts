/**
 * Nights are named by their calendar date (YYYY-MM-DD) in the operator's zone, so "the
 * night of Nov 5" means the same thing in the log (P27), the directory (P23) and the
 * recheck schedule (P25). Date arithmetic is on the calendar date itself (UTC days), so
 * daylight-saving changes never make a day 23 or 25 hours long here.
 */

import { NorError } from "../errors.js";
import { keptAnswers } from "./kept-answers.js";
import { instantOf, wallTimeAt } from "./zone.js";

/** The calendar date (YYYY-MM-DD) in `timeZone` at the instant `now` (ms since epoch). */
export function nightOf(now: number, timeZone = "America/New_York"): string {
  if (!Number.isFinite(now)) throw new NorError("E_INTERNAL", `nightOf: bad time ${now}`);
  const w = wallTimeAt(now, timeZone);
  const p = (n: number, width = 2) => String(n).padStart(width, "0");
  return `${p(w.year, 4)}-${p(w.month)}-${p(w.day)}`;
}

const NIGHT = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * Dates lately read and written (a night's plan reads its sources' few dates over and over, the
 * recheck calendar several a source): each a regular expression and a Date made and checked,
 * or a Date made and printed, kept instead (keptAnswers); only a real date is kept, so anything
 * else throws as ever.
 */
const DATES_KEPT = 4_096;

/** Days since the epoch of a YYYY-MM-DD date; throws on anything that is not a real date. */
const dayNumber = keptAnswers(dayNumberOf, { max: DATES_KEPT });

function dayNumberOf(night: string): number {
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

const fromDayNumber = keptAnswers(
  (n: number) => new Date(n * 86_400_000).toISOString().slice(0, 10),
  { max: DATES_KEPT },
);

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

/**
 * How long after the moment it is named a night may open (its catalog imported, the opening
 * lock had): `nor night` names the night by the clock when it starts, and the store records its
 * start once it opens. A night begun later than this into a date after its own was asked for by
 * a past date (`nor night --night`), after its own date was over.
 */
export const OPENING_GRACE_MS = 60 * 60 * 1000;

/**
 * Whether `night` began after its own date was over in New York (more than OPENING_GRACE_MS into
 * a later date): a night asked for by a past date (`nor night --night`).
 */
export function begunAfterItsDate(night: string, startedAt: number): boolean {
  if (!isNightDate(night) || !Number.isFinite(startedAt)) return false;
  return nightOf(startedAt - OPENING_GRACE_MS) > night;
}

/** What closingTime knows beside the night's own row. */
export interface ClosingContext {
  /**
   * The start of the first night of a later date begun after this one, if one has: the next
   * night's start, known (a night asked for by an earlier date is no next night of it).
   */
  nextStartedAt?: number | undefined;
  /**
   * The night is asked for by its name (`nor night --night D`): a night asked for by a past date
   * lasts until its deadline for that. Without it (a plain `nor night`, `nor start`), such a night
   * is over from its start: a plain `nor night` begins tonight's night instead.
   */
  byName?: boolean;
}

/**
 * When an unfinished night's time is over (P13), the one rule `nor night`, `nor start` and `nor
 * status` read: its own deadline, and never more than 24 h after it began, whatever the schedule
 * that started it (`nor start --at 20:00 --deadline 20h`: until 16:00 the next day). Sooner only
 * where the next night's start is known, never assumed (no schedule is known to the store): once
 * a night of a later date has begun (`nextStartedAt`); and for a night asked for by a past date
 * (begunAfterItsDate), which only its name resumes, at its start for a plain `nor night` (so a
 * night named Nov 30 but begun on Dec 3 does not take tonight's place: a plain `nor night`
 * begins tonight's with the options it is given). While a night's time lasts no other night
 * starts beside it (`nor night` resumes it; a night asked for by another date is refused); after
 * it, it is closed as incomplete.
 */
export function closingTime(
  startedAt: string,
  deadlineAt: string,
  night?: string,
  context: ClosingContext = {},
): number | undefined {
  const start = Date.parse(startedAt);
  const deadline = Date.parse(deadlineAt);
  if (Number.isNaN(start) || Number.isNaN(deadline)) return undefined;
  const next = context.nextStartedAt;
  const overAtStart =
    night !== undefined && context.byName !== true && begunAfterItsDate(night, start);
  return Math.min(
    deadline,
    start + NIGHT_SPAN_MS,
    next !== undefined && Number.isFinite(next) ? next : Number.POSITIVE_INFINITY,
    overAtStart ? start : Number.POSITIVE_INFINITY,
  );
}

/**
 * How versions before this rule closed an unfinished night: also at 01:00 New York on the date
 * after its name, as if every night ran on the default schedule. Read only to tell a night they
 * closed incomplete (admin.ts recentNights); never to close one.
 */
export function legacyClosingTime(
  startedAt: string,
  deadlineAt: string,
  night: string,
): number | undefined {
  const start = Date.parse(startedAt);
  const deadline = Date.parse(deadlineAt);
  if (Number.isNaN(start) || Number.isNaN(deadline) || !isNightDate(night)) return undefined;
  const [y, m, d] = addDays(night, 1).split("-").map(Number) as [number, number, number];
  const oneAm = instantOf(
    { year: y, month: m, day: d, hour: 1, minute: 0, second: 0, ms: 0 },
    "America/New_York",
    "earlier",
  );
  return Math.min(deadline, start + NIGHT_SPAN_MS, oneAm);
}
