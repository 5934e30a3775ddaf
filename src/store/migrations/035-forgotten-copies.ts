import type { Kysely } from "kysely";

/**
 * P8: the stored copies `nor archive forget` took out of the index (their WARC file truly lost),
 * one row each: the page, the source and purpose it was read for, its answer's status and when
 * it was read, and the lost file. `nor reparse` reads no older copy of such a page as the list
 * as it stands (the records the lost copy brought would be called removed, its titles changed
 * back) until a newer copy is stored. Existing stores: none forgotten.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("forgotten_copies")
    .ifNotExists()
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("source", "text")
    .addColumn("method", "text", (c) => c.notNull())
    .addColumn("purpose", "text", (c) => c.notNull())
    .addColumn("status", "integer", (c) => c.notNull())
    .addColumn("fetched_at", "text", (c) => c.notNull())
    .addColumn("file", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("forgotten_copies_source")
    .ifNotExists()
    .on("forgotten_copies")
    .columns(["source", "url"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("forgotten_copies").ifExists().execute();
}
