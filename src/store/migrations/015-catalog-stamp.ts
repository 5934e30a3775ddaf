import type { Kysely } from "kysely";

/**
 * The stamp of the catalog files last imported into this store (src/sources/catalog/stamp.ts):
 * one row, written by every import in the same transaction as its rows (`nor catalog import`,
 * `nor night`, `nor start`), its digest absent when the import cannot vouch for the files it
 * read (a catalog held in memory, a file written while it was read). A night whose files have
 * the stamp held here runs the sources the store holds without reading them again. A store
 * from before this migration has no row: its next import reads the files, as before.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("catalog_stamp")
    .ifNotExists()
    /** Always 1: the one row. */
    .addColumn("id", "integer", (c) => c.primaryKey())
    .addColumn("digest", "text")
    .addColumn("stamped_at", "text", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("catalog_stamp").ifExists().execute();
}
