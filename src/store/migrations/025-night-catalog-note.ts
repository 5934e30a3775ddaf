import type { Kysely } from "kysely";

/**
 * How a night ran without the catalog files it was given, and why (`nor night
 * --or-stored-catalog`, which `nor start` passes): the files could not be read or were not a
 * valid catalog (it ran the sources the store last imported), or their import was refused (it
 * ran those in use they list unchanged). `nor status` and the console say it beside the night,
 * so a typo made while `nor start` runs is seen where the nights are, not only in `nor start`'s
 * output. Null for a night that ran its files (and every older night).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // Run again over a store that has them (a test puts back an older store): added if missing.
  const tables = await db.introspection.getTables();
  const has = (table: string, column: string) =>
    tables.find((t) => t.name === table)?.columns.some((c) => c.name === column) === true;
  if (!has("nights", "catalog_note"))
    await db.schema.alterTable("nights").addColumn("catalog_note", "text").execute();
  // Which importer validated the sources in use (stamp.ts importerVersion): the sources are run
  // in place of unusable files only when this build's own importer took them (an older build
  // may have let through what this one refuses). Null for an import before this migration.
  if (!has("catalog_stamp", "importer"))
    await db.schema.alterTable("catalog_stamp").addColumn("importer", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("catalog_stamp").dropColumn("importer").execute();
  await db.schema.alterTable("nights").dropColumn("catalog_note").execute();
}
