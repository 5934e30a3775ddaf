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
