/**
 * Date windows for APIs that list meetings between two dates (eScribe, Diligent/CivicWeb).
 * The first window reaches a year back and a year ahead (agendas are posted before the
 * meeting); each backfill step (P7) asks for the year before the last window, so a source is
 * read back a year a night-step at a time until a window comes back empty.
 */

const DAY = 86_400_000;
const YEAR = 365 * DAY;

export interface DateWindow {
  from: string;
  to: string;
}

export function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function firstWindow(now: number): DateWindow {
  return { from: isoDay(now - YEAR), to: isoDay(now + YEAR) };
}

/** The year before `w` (ending the day before it starts), or undefined for a bad window. */
export function olderWindow(w: DateWindow): DateWindow | undefined {
  const start = Date.parse(`${w.from}T00:00:00Z`);
  if (!Number.isFinite(start)) return undefined;
  return { from: isoDay(start - YEAR), to: isoDay(start - DAY) };
}
