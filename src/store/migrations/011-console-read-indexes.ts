import type { Kysely } from "kysely";

/**
 * The console's overview counts the open flags (P24) on every visit; flags are kept when
 * cleared, so without an index that count reads every flag ever raised. Covering: the count
 * and the sources' open flags (src/store/admin.ts) read the index alone.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex("flags_open")
    .ifNotExists()
    .on("flags")
    .columns(["cleared_at", "source_id", "kind"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("flags_open").ifExists().execute();
}
