import type { Kysely } from "kysely";
import { columnsOf } from "./columns.js";

/**
 * The project's stricter rule beside P15: the night a site was down (a request to it ended in a
 * 5xx after its retries, or with a Retry-After over 60 s) and why, read at every admission like
 * a no (`closed_night`), so a second worker or a restarted night sends nothing more there that
 * night. Kept apart from `closed_night`: a site down is not a site that said no (P21). Existing
 * rows: never down (nulls).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const has = await columnsOf(db, "site_state");
  if (!has.includes("down_night"))
    await db.schema.alterTable("site_state").addColumn("down_night", "text").execute();
  if (!has.includes("down_reason"))
    await db.schema.alterTable("site_state").addColumn("down_reason", "text").execute();
  // The source whose request found it down: its own next way in is still tried (P4).
  if (!has.includes("down_source"))
    await db.schema.alterTable("site_state").addColumn("down_source", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const c of ["down_source", "down_reason", "down_night"])
    await db.schema.alterTable("site_state").dropColumn(c).execute();
}
