import type { Kysely } from "kysely";
import { columnsOf } from "./columns.js";

/**
 * P7: why a backfill that is done ended, and on which night (JSON of night/types.ts
 * BackfillEnd: the list's oldest page read, past its end, its cut-off date, given up on a page
 * that failed night after night, or no backfill at all), for `nor site`, `nor status --json` and
 * the console. Null while it goes on, and for one that ended before this migration (its why
 * was not kept: said so where it is shown).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(await columnsOf(db, "backfill")).includes("ended"))
    await db.schema.alterTable("backfill").addColumn("ended", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("backfill").dropColumn("ended").execute();
}
