/**
 * A record's own date as the instant it names, for ordering: the column `records.instant` the
 * store works out from the date as the record is written (migration 018-record-instant.ts, where
 * its rules are), of the records table aliased `r`. Null for no date or one in none of the
 * readers' forms; a query puts those last.
 */
import type { RawBuilder } from "kysely";
import { sql } from "../kysely.js";

/** The instant `r.date` names (of the records table aliased `r`), on either dialect. */
export function recordInstant(): RawBuilder<unknown> {
  return sql`r.instant`;
}

/**
 * A text column in byte order (UTF-8), as SQLite orders text: on PostgreSQL whatever collation
 * the database was made with (an en-US one puts `a_b` before `ZED`), so ties broken by a
 * record's key come out the same on both stores.
 */
export function inByteOrder(pg: boolean, column: string): RawBuilder<unknown> {
  return pg ? sql`${sql.ref(column)} collate "C"` : sql`${sql.ref(column)}`;
}
