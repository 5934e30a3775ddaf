import type { Kysely } from "kysely";

/**
 * What a source's first page showed when it was last read in full (P8, P12): the key of that
 * read (the way in, the URL, the Content-Type and the body, hashed: src/night/page-key.ts) and
 * how many records it listed, all of them stored with it. A 304 whose stored copy has the
 * same key shows the same records, so they are counted, not extracted again.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("page_reads")
    .ifNotExists()
    .addColumn("source_id", "text", (c) => c.notNull())
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("key", "text", (c) => c.notNull())
    .addColumn("records", "integer", (c) => c.notNull())
    .addColumn("night", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("page_reads_pk", ["source_id", "url"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("page_reads").ifExists().execute();
}
