import type { Kysely } from "kysely";
import { columnsOf } from "./columns.js";

/**
 * P7: a source's overflow reading left unfinished (its list's next pages, read because the first
 * page showed no record the source held, stopped at `pagesPerNight` pages or at a page that
 * failed), kept with its backfill (the reading is done only once that has ended): the night it
 * began (`overflow_since`, the earliest when several stack) and the page it goes on from
 * (`overflow_cursor`, a request as JSON; a form's postback is never kept). Null: nothing
 * pending. Existing rows: nothing pending.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const has = await columnsOf(db, "backfill");
  if (!has.includes("overflow_since"))
    await db.schema.alterTable("backfill").addColumn("overflow_since", "text").execute();
  if (!has.includes("overflow_cursor"))
    await db.schema.alterTable("backfill").addColumn("overflow_cursor", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const c of ["overflow_cursor", "overflow_since"])
    await db.schema.alterTable("backfill").dropColumn(c).execute();
}
