/**
 * A record's own date as the readers write it (src/sources/dates.ts): a bare day
 * (`2026-11-04`), a local time with its offset (`2026-11-04T19:00:00-05:00`), or an instant in
 * UTC (`2026-11-05T00:00:00Z`). Its text is not its day in Ohio (`…-12-05T01:00:00Z` is 8 pm of
 * Dec 4 there), so what is shown or compared by day goes through this (the store orders by the
 * instant a date names in SQL: store/read/record-instant.ts). Pure: no clock.
 */
import { SITE_OWNER_ZONE, wallTimeAt } from "./zone.js";

/** A day as written, or a local time with its offset: the day its government wrote. */
const WRITTEN_DAY = /^(\d{4}-\d{2}-\d{2})(?:$|T[\d:.]+[+-]\d{2}:?\d{2}$)/;

/**
 * The day (YYYY-MM-DD) a record's date falls on where its government is: the day written, for a
 * bare day or a local time with its offset; for an instant in UTC, its day in Ohio (the
 * directory's zone). Undefined for no date or one that does not read as a time.
 */
export function recordDay(date: string | null | undefined): string | undefined {
  if (!date) return undefined;
  // An offset of nothing (`-00:00`, RFC 3339's "local offset unknown") is a time in UTC.
  const written = /[+-]00:?00$/.test(date) ? null : WRITTEN_DAY.exec(date);
  if (written) return written[1];
  const t = Date.parse(date);
  if (Number.isNaN(t)) return undefined;
  const w = wallTimeAt(t, SITE_OWNER_ZONE);
  return `${String(w.year).padStart(4, "0")}-${String(w.month).padStart(2, "0")}-${String(w.day).padStart(2, "0")}`;
}
