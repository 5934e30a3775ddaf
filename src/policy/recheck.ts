/**
 * P25: after a person marks a source "not read", the checker looks again (robots.txt
 * permitting, taking no records and keeping no body) to see whether the no still stands.
 */
import { RECHECK_EVERY_NIGHTS, RECHECK_SOON_NIGHTS } from "./constants.js";
import { daysBetween } from "./night-date.js";

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
