/**
 * When `nor start` runs the night: every day at a wall-clock time in a zone (01:00
 * America/New_York by default). No cron library is installed, so the next run is computed
 * here from the project's own zone code (zone.ts): the calendar date in the zone, that
 * date's wall time turned into an instant. Daylight saving: a time the autumn change repeats
 * runs once, the first time; a time the spring change skips (02:30 on that Sunday) runs an
 * hour later by the clock (03:30). The default, 01:00 in New York, is never either.
 */
import { ConfigError } from "../errors.js";
import { instantOf, wallTimeAt } from "./zone.js";

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
    throw new ConfigError(`the night's time must be HH:MM on a 24-hour clock, not "${text}"`);
  wallTimeAt(0, zone); // throws ConfigError naming an unknown zone
  return { hour, minute, zone };
}

const DAY_MS = 86_400_000;

/** The first instant strictly after `now` at which the daily time comes round. */
export function nextRunAfter(now: number, at: DailyAt): number {
  const today = wallTimeAt(now, at.zone);
  // Calendar arithmetic on the zone's date (UTC days), never "now + 24 h" across a DST change.
  const dayZero = Date.UTC(today.year, today.month - 1, today.day);
  for (let d = 0; d < 3; d++) {
    const date = new Date(dayZero + d * DAY_MS);
    const t = instantOf(
      {
        year: date.getUTCFullYear(),
        month: date.getUTCMonth() + 1,
        day: date.getUTCDate(),
        hour: at.hour,
        minute: at.minute,
        second: 0,
        ms: 0,
      },
      at.zone,
      "earlier",
    );
    if (t > now) return t;
  }
  // Unreachable for real zones (offsets stay within a day); never loop or guess.
  throw new ConfigError(
    `no next run found for ${formatDailyAt(at)} after ${new Date(now).toISOString()}`,
  );
}

export function formatDailyAt(at: DailyAt): string {
  return `${String(at.hour).padStart(2, "0")}:${String(at.minute).padStart(2, "0")} ${at.zone}`;
}
