/**
 * When `nor start` runs the night: every day at a wall-clock time in a zone (01:00
 * America/New_York by default), as the cron pattern `M H * * *` in that zone, computed by
 * croner (no date arithmetic here). Time is an argument: the caller's Clock says what "now"
 * is, so the schedule is tested with a ManualClock. Daylight saving, as croner does it for a
 * job at a fixed time: a time the autumn change repeats (01:30 on that Sunday) runs once, the
 * first time (EDT); a time the spring change skips (02:30 on that Sunday) runs when the clock
 * has jumped, at 03:00 EDT, and the next day at 02:30 again. The default, 01:00 in New York,
 * is neither.
 */
import { Cron } from "croner";
import { ConfigError, NorError } from "../errors.js";
import { IANA_ZONE_RULE, isIanaZone } from "./zone.js";

export interface DailyAt {
  hour: number;
  minute: number;
  zone: string;
}

export const DEFAULT_NIGHT_AT = "01:00";
export const DEFAULT_NIGHT_ZONE = "America/New_York";

/** `HH:MM` (24-hour) in `zone`; the zone is checked by turning a time into it. */
export function parseDailyAt(text: string, zone: string): DailyAt {
  const m = /^(\d{1,2}):(\d{2})$/.exec(text.trim());
  const hour = Number(m?.[1]);
  const minute = Number(m?.[2]);
  if (!m || hour > 23 || minute > 59)
    throw new ConfigError(`--at: the night's time must be HH:MM on a 24-hour clock, not "${text}"`);
  if (!isIanaZone(zone)) throw new ConfigError(`unknown time zone "${zone}": ${IANA_ZONE_RULE}`);
  return { hour, minute, zone };
}

/** The daily time as a croner job that only answers questions (no function: nothing runs). */
function cronOf(at: DailyAt): Cron {
  return new Cron(`${at.minute} ${at.hour} * * *`, { timezone: at.zone, mode: "5-part" });
}

/** The first instant strictly after `now` at which the daily time comes round. */
export function nextRunAfter(now: number, at: DailyAt): number {
  const next = cronOf(at).nextRun(new Date(now));
  // A daily pattern always has a next run: a null would be a bug, never a guess.
  if (next === null)
    throw new NorError(
      "E_INTERNAL",
      `no next run found for ${formatDailyAt(at)} after ${new Date(now).toISOString()}`,
    );
  return next.getTime();
}

/**
 * The latest instant at or before `now` at which the daily time came round: the time `nor start`
 * would have begun the night of that date had it been running then. Found by nextRunAfter (the
 * same croner rule, the changes of the clocks included), from a moment 26 hours before: two
 * daily times are 23 to 25 hours apart, so the one after it is at or before `now`.
 */
export function lastRunAtOrBefore(now: number, at: DailyAt): number {
  let run = nextRunAfter(now - LOOK_BACK_MS, at);
  for (let i = 0; i < 3 && run <= now; i++) {
    const next = nextRunAfter(run, at);
    if (next > now) return run;
    run = next;
  }
  // Two daily times more than 26 hours apart, or none in 26 hours: a bug, never a guess.
  throw new NorError(
    "E_INTERNAL",
    `no run of ${formatDailyAt(at)} found in the 26 hours before ${new Date(now).toISOString()}`,
  );
}

const LOOK_BACK_MS = 26 * 60 * 60_000;

export function formatDailyAt(at: DailyAt): string {
  return `${String(at.hour).padStart(2, "0")}:${String(at.minute).padStart(2, "0")} ${at.zone}`;
}
