import type { Kysely } from "kysely";
import { columnsOf } from "./columns.js";

/**
 * P6: a source whose id the catalog renames (the one source retired and the one added by an
 * import, of one government, read the same way: src/sources/catalog-import.ts `renamesOf`) is
 * the source it was. The import copies the old id's records, page read, backfill and marks to
 * the new id (store/catalog-import.ts `carryOver`), and keeps here which ids the new one
 * continues (the old one, and every id that one continued), so its next read asks whether the
 * list was read before of those ids' nights too (store/night-records.ts `lastReadNight`): what
 * it shows then is new exactly as if the id had not changed. The old id's rows stay where they
 * are, its source retired. A record copied so keeps the source id it was first listed under
 * (`records.first_source_id`, null for a record never copied): its feed entry and calendar event
 * are named by it (web/public/feeds.ts itemId), as by `first_id` (migration 022), so a feed
 * reader does not show it again, as new, because its source's id changed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("renamed_sources")
    .ifNotExists()
    .addColumn("source_id", "text", (c) => c.notNull())
    .addColumn("from_id", "text", (c) => c.notNull())
    .addColumn("at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("renamed_sources_pk", ["source_id", "from_id"])
    .execute();
  const columns = await columnsOf(db, "records");
  if (!columns.includes("first_source_id"))
    await db.schema.alterTable("records").addColumn("first_source_id", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("renamed_sources").ifExists().execute();
  await db.schema.alterTable("records").dropColumn("first_source_id").execute();
}
