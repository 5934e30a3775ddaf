/**
 * P16, P20: how long a stored answer for an origin's robots.txt stands, for a night and for a
 * command outside one (`nor discover`) alike. Pure: the caller gives the time.
 */
import { ROBOTS_REREAD_AFTER_MS, ROBOTS_TTL_MS } from "../constants.js";
import { addDays, nightOf } from "../night-date.js";
import { dayStart, SITE_OWNER_ZONE } from "../zone.js";

/** What of a stored answer its standing depends on. */
export interface StoredRobotsAnswer {
  state: "rules" | "allow-all" | "unreachable";
  /** When it was read (ms since the epoch, by the clock that read it). */
  fetchedAt: number;
  /** The night it was read in (YYYY-MM-DD); none when read outside a night. */
  night?: string;
}

/**
 * P20: an unreachable robots.txt keeps the checker off its origin for the whole night it was
 * found in. Outside a night (`nor discover`, no night under way) the answer holds for the rest
 * of that day: the New York date (the night's name, as the journal names a no outside a night,
 * net/fetcher.ts) it was found on, or the night it was found in (a past night caught up).
 * P16 (at most once a day) both ways: one found outside any night holds for a night too, the
 * whole night named for the day it was found on (`nor discover` at 10:00, that day's night at
 * 22:00 and on past midnight) and, on that day, any other night (a past night caught up the day
 * discover found it). An earlier night's answer never holds for a later night: the next night
 * asks again.
 */
export function unreachableHolds(a: StoredRobotsAnswer, now: number, night?: string): boolean {
  const found = Number.isFinite(a.fetchedAt) ? nightOf(a.fetchedAt) : undefined;
  const today = nightOf(now);
  if (night !== undefined)
    return a.night === night || (a.night === undefined && (found === night || found === today));
  return a.night === today || found === today;
}

/**
 * P16, P11: whether a stored copy of robots.txt may be gone by at `now`, for a request of
 * `night` (none: outside a night). No copy is gone by once ROBOTS_TTL_MS old, counted from when
 * it was read. A night reads each origin's file once, afresh: a copy an earlier night or another
 * command read is read again (with its validators) unless it was read within the hour
 * (ROBOTS_REREAD_AFTER_MS), or, outside any night, on the New York day the night is named for
 * (the site-owners page: "It reads your robots.txt once a day": `nor discover` in the morning and
 * that day's night at 22:00 ask once; an earlier night's copy is always read again, however the
 * nights' hours fall across midnight) or, still that day, for any night run on it (a past night
 * caught up the day discover read it, as an unreachable holds),
 * and then serves the rest of that night. Outside a night any copy under a day old serves. A
 * copy dated ahead of the clock has no age to trust: only the night that read it goes by it. An
 * unreachable answer: `unreachableHolds`.
 */
export function robotsCopyServes(a: StoredRobotsAnswer, now: number, night?: string): boolean {
  if (a.state === "unreachable") return unreachableHolds(a, now, night);
  const age = now - a.fetchedAt;
  if (!(age < ROBOTS_TTL_MS)) return false;
  if (age < 0) return night !== undefined && a.night === night;
  if (night === undefined || a.night === night || age < ROBOTS_REREAD_AFTER_MS) return true;
  // P16, at most once a day, as an unreachable holds (unreachableHolds): one read outside any
  // night serves the night named for the day it was read, and any night run that day.
  const read = nightOf(a.fetchedAt);
  return a.night === undefined && (read === night || read === nightOf(now));
}

/**
 * P16, P11, P9 (read at the moment of sending): until when a copy that serves at some moment
 * (robotsCopyServes) goes on serving, for a request of `night` (none: outside a night): from
 * then on robotsCopyServes says no, so a request admitted on it is not sent at or after it
 * (net/steps/site-gate.ts) but goes back through the robots gate. ROBOTS_TTL_MS from when it
 * was read; a copy another night or command read, serving tonight only as read within the hour
 * (ROBOTS_REREAD_AFTER_MS), until that hour ends. An unreachable answer lets nothing be sent:
 * -Infinity (politeness never fails open).
 */
export function robotsCopyServesUntil(a: StoredRobotsAnswer, night?: string): number {
  if (a.state === "unreachable") return Number.NEGATIVE_INFINITY;
  const until = a.fetchedAt + ROBOTS_TTL_MS;
  if (
    night === undefined ||
    a.night === night ||
    (a.night === undefined && nightOf(a.fetchedAt) === night)
  )
    return until;
  const hour = a.fetchedAt + ROBOTS_REREAD_AFTER_MS;
  // Read outside a night on another day than the night's name: it serves that night until the
  // day it was read ends (midnight in New York), or the hour after the read, whichever is later.
  if (a.night === undefined && Number.isFinite(a.fetchedAt))
    return Math.min(until, Math.max(hour, endOfDay(a.fetchedAt)));
  return Math.min(until, hour);
}

/** The instant the New York day of `t` ends (the next day's first midnight; a day may be 23–25 h). */
function endOfDay(t: number): number {
  const [y, m, d] = addDays(nightOf(t), 1).split("-").map(Number);
  return dayStart(y ?? 0, m ?? 0, d ?? 0, SITE_OWNER_ZONE);
}
