import type { Kysely } from "kysely";
import { columnsOf } from "./columns.js";

/**
 * P6: the source id a record was first listed under, when the catalog renamed its source since
 * (the import moves a renamed source's history to its new id: store/catalog-import.ts
 * `moveHistory`). A feed's entry and a calendar's event are named by it (web/public/feeds.ts
 * itemId), as by `first_id` (migration 022), so a feed reader does not show a record again, as
 * new, because its source's id changed. Null: the record's source id is the one it was first
 * listed under (every record never renamed: their names are as they were).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const columns = await columnsOf(db, "records");
  if (!columns.includes("first_source_id"))
    await db.schema.alterTable("records").addColumn("first_source_id", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("records").dropColumn("first_source_id").execute();
}
