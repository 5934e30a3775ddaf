/**
 * A record's own date as the instant it names, in SQL, for ordering: its text is no time order
 * (a day is `2026-11-04`, a time `2026-11-04T19:00:00-05:00` or `2026-11-05T00:30:00Z`, and
 * `…T19:00:00-05:00` is later than `…T00:30:00Z` of the next day's text). A bare day is the start
 * of that day in Ohio, taken as 05:00 UTC (Eastern standard time; within the hour in summer), so
 * the evening before, written with its offset or in UTC, orders before it. Null for no date, or
 * one in none of those forms, which then orders with the undated. SQLite: julianday, which reads
 * the three forms and gives null for what it cannot read. PostgreSQL: the parts added up (a cast
 * of the text would stop the whole query at one date it refuses, such as a 30 February), only for
 * text in one of the forms, each part in the range julianday reads (a month 01–12, a day 01–31,
 * 00:00:00–23:59:59, an offset under 24 hours), so what SQLite cannot read (a leap second's :60,
 * a 25th hour) orders with the undated on both.
 */
import type { RawBuilder } from "kysely";
import { sql } from "../kysely.js";

const DAY = "[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])";
const DAY_TEXT = sql.lit(`^${DAY}$`);
const TIME_TEXT = sql.lit(
  `^${DAY}T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]([.][0-9]+)?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$`,
);

/** The instant `r.date` names (of the records table aliased `r`), on either dialect. */
export function recordInstant(pg: boolean): RawBuilder<unknown> {
  if (!pg)
    return sql`(case when r.date glob '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'
      then julianday(r.date) + 5.0 / 24 else julianday(r.date) end)`;
  // A timestamp without a zone: months and days are added to it as they are, where added to a
  // timestamptz they would be added in the connection's zone (an hour off across summer time).
  const day = sql`(timestamp '2000-01-01 00:00:00' + make_interval(
    years => substr(r.date, 1, 4)::int - 2000,
    months => substr(r.date, 6, 2)::int - 1,
    days => substr(r.date, 9, 2)::int - 1))`;
  const clock = sql`make_interval(
    hours => substr(r.date, 12, 2)::int,
    mins => substr(r.date, 15, 2)::int,
    secs => substring(r.date from '^.{17}([0-9]{2}([.][0-9]+)?)')::double precision)`;
  const offset = sql`(case when right(r.date, 1) = 'Z' then interval '0 minutes'
    else make_interval(mins => (case when substr(r.date, length(r.date) - 5, 1) = '-' then -1 else 1 end)
      * (substr(r.date, length(r.date) - 4, 2)::int * 60 + right(r.date, 2)::int)) end)`;
  return sql`(case
    when r.date ~ ${DAY_TEXT} then ${day} + interval '5 hours'
    when r.date ~ ${TIME_TEXT} then ${day} + ${clock} - ${offset}
    end)`;
}
