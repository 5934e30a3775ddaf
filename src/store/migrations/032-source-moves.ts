import type { Kysely } from "kysely";

/**
 * P11: where a source's catalog URL moved permanently (a 301 or 308 followed to a page that was
 * read), so later nights ask the page there, not the old URL and its redirect every night.
 * Keyed by the source and the catalog URL (a catalog that changes the URL leaves it behind).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("source_moves")
    .ifNotExists()
    .addColumn("source_id", "text", (c) => c.notNull())
    .addColumn("from_url", "text", (c) => c.notNull())
    .addColumn("to_url", "text", (c) => c.notNull())
    .addColumn("night", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("source_moves_pk", ["source_id", "from_url"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("source_moves").ifExists().execute();
}
