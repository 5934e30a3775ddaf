import type { Kysely } from "kysely";

/**
 * Why a night ran the sources the store last imported rather than the catalog files it was
 * given (`nor night --or-stored-catalog`, which `nor start` passes): the files could not be read,
 * were not a valid catalog, or their import was refused. `nor status` and the console say it
 * beside the night, so a typo made while `nor start` runs is seen where the nights are, not
 * only in `nor start`'s output. Null for a night that ran its files (and every older night).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // Run again over a store that has it (a test puts back an older store): added only if missing.
  const nights = (await db.introspection.getTables()).find((t) => t.name === "nights");
  if (nights?.columns.some((c) => c.name === "catalog_note")) return;
  await db.schema.alterTable("nights").addColumn("catalog_note", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("nights").dropColumn("catalog_note").execute();
}
