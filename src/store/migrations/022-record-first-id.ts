import type { Kysely } from "kysely";
import { sql } from "../kysely.js";
import { columnsOf } from "./columns.js";

/**
 * The id a record was first listed under, kept when its link changes and with it its id (P6: a
 * site moved to https, or moved its files: store/night-records.ts `relink`). A feed's entry and a
 * calendar's event are named by it (web/public/feeds.ts itemId), so a feed reader does not show
 * a record again, as new, because its site wrote its link anew. Null: the record's id is the
 * one it was first listed under.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const columns = await columnsOf(db, "records");
  if (!columns.includes("first_id"))
    await db.schema.alterTable("records").addColumn("first_id", "text").execute();
  // A commit that finds new records asks whether one takes a moved record's first id
  // (night-records.ts `relink`): among the few records that have one.
  await sql`create index if not exists records_first_id on records (source_id, first_id)
    where first_id is not null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists records_first_id`.execute(db);
  await db.schema.alterTable("records").dropColumn("first_id").execute();
}
