import type { Kysely } from "kysely";

/**
 * Indexes for reads the web makes on every visit, so they never read a table whole:
 * - the console's overview counts the open flags (P24); flags are kept when cleared, so
 *   without an index that count reads every flag ever raised. Covering: the count and the
 *   sources' open flags (src/store/admin.ts) read the index alone;
 * - every source page and /new ask which nights the checker itself was offline (P20, P23):
 *   a count of one outcome over 30 nights, which otherwise reads every source's row of each.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex("flags_open")
    .ifNotExists()
    .on("flags")
    .columns(["cleared_at", "source_id", "kind"])
    .execute();
  await db.schema
    .createIndex("night_sources_by_outcome")
    .ifNotExists()
    .on("night_sources")
    .columns(["outcome", "night"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("night_sources_by_outcome").ifExists().execute();
  await db.schema.dropIndex("flags_open").ifExists().execute();
}
