import type { Kysely } from "kysely";

/**
 * The store's own name (P8): one row, a random id given when the archive is first opened
 * (store/archive/store-identity.ts), written into the warcinfo record of every archive file this
 * store starts, so a file says whose archive it is part of (a data directory's archive may hold
 * another store's files: its SQLite store's, while PostgreSQL's is in use).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("store_identity")
    .ifNotExists()
    // One row: its key is always 1, so two openers at once cannot give it two ids.
    .addColumn("one", "integer", (c) => c.primaryKey())
    .addColumn("id", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("store_identity").ifExists().execute();
}
