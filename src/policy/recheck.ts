/**
 * P25: after a person marks a source "not read", the checker looks again (robots.txt
 * permitting, taking no records and keeping no body) to see whether the no still stands.
 */
import {
  RECHECK_EVERY_NIGHTS,
  RECHECK_OWED_STANDS_NIGHTS,
  RECHECK_SOON_NIGHTS,
} from "./constants.js";
import { addDays, daysBetween } from "./night-date.js";

/**
 * Whether `night` is a recheck night for a source marked not read on `markedNight` (both
 * YYYY-MM-DD, see night-date.ts).
 *
 * With k = days from the marking night to `night`:
 * - k ≤ 0: false (the marking night itself, or a date before it);
 * - 1 ≤ k ≤ RECHECK_SOON_NIGHTS (3): true, the nights soon after;
 * - after that, true once every RECHECK_EVERY_NIGHTS (7) nights counted from the last soon
 *   night: k = 10, 17, 24, …; false on every other night.
 */
export function isRecheckNight(markedNight: string, night: string): boolean {
  const k = daysBetween(markedNight, night);
  if (k <= 0) return false;
  if (k <= RECHECK_SOON_NIGHTS) return true;
  return (k - RECHECK_SOON_NIGHTS) % RECHECK_EVERY_NIGHTS === 0;
}

/**
 * The latest recheck night strictly before `night` (and after the marking), or undefined when
 * there is none yet (`night` is the marking night, the night after it, or earlier).
 */
export function lastRecheckNightBefore(markedNight: string, night: string): string | undefined {
  const j = daysBetween(markedNight, night) - 1;
  if (j < 1) return undefined;
  if (j <= RECHECK_SOON_NIGHTS) return addDays(markedNight, j);
  const weeks = Math.floor((j - RECHECK_SOON_NIGHTS) / RECHECK_EVERY_NIGHTS);
  return addDays(markedNight, RECHECK_SOON_NIGHTS + weeks * RECHECK_EVERY_NIGHTS);
}

/**
 * Whether the recheck night `due` is answered by the source's latest night reached
 * (`lastReachedNight`, before tonight): reached on it or after it; for a weekly night, also an
 * owed recheck reached up to RECHECK_OWED_STANDS_NIGHTS nights before it.
 */
function answered(markedNight: string, due: string, lastReachedNight: string | undefined): boolean {
  if (lastReachedNight === undefined) return false;
  const soon = daysBetween(markedNight, due) <= RECHECK_SOON_NIGHTS;
  return daysBetween(lastReachedNight, due) <= (soon ? 0 : RECHECK_OWED_STANDS_NIGHTS);
}

/**
 * P25, P13: whether a recheck is owed tonight though the calendar does not name `night`: the
 * latest recheck night before it was not reached, nor any night since (its recheck not
 * asked: the deadline came first, its site was down, the checker offline, or the checker did not
 * run that night at all). `lastReachedNight`: the latest night before `night` on which the
 * source was reached (an outcome that is not one of NOT_ASKED_OUTCOMES: its page was asked,
 * a recheck cut short included), from the store.
 *
 * A recheck owed goes the next night the checker runs, once: several recheck nights missed in
 * a row (the three soon after the marking, say) owe one recheck, not one each, and a recheck
 * reached on or after the latest recheck night owes nothing more until the calendar's next.
 */
export function recheckOwed(
  markedNight: string,
  night: string,
  lastReachedNight: string | undefined,
): boolean {
  const due = lastRecheckNightBefore(markedNight, night);
  if (due === undefined) return false;
  return !answered(markedNight, due, lastReachedNight);
}

/**
 * P25: whether tonight rechecks a source marked not read on `markedNight`: a recheck night of
 * the calendar (`isRecheck`, isRecheckNight unless another is given) that an owed recheck reached
 * just before it does not stand for (a weekly night up to RECHECK_OWED_STANDS_NIGHTS nights after
 * it), or a recheck owed (recheckOwed). So the page is never asked two nights running once the
 * weekly nights begin.
 */
export function recheckTonight(
  markedNight: string,
  night: string,
  lastReachedNight: string | undefined,
  isRecheck: (markedNight: string, night: string) => boolean = isRecheckNight,
): boolean {
  if (isRecheck(markedNight, night)) return !answered(markedNight, night, lastReachedNight);
  return recheckOwed(markedNight, night, lastReachedNight);
}
