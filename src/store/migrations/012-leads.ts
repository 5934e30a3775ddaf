import type { Kysely } from "kysely";
import { dialectOf } from "../dialect-of.js";

/**
 * The catalog's leads (docs/catalog.md): record pages seen in public material that the
 * checker cannot read yet, shown on their government's page as not yet confirmed. Never
 * fetched. They carry no id and no history of nights, so each import replaces them whole;
 * `first_seen_at` is carried over for a lead that was already there (same government, kind
 * of records and address).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const pg = dialectOf(db) === "postgres";
  await db.schema
    .createTable("leads")
    .ifNotExists()
    .addColumn("id", pg ? "serial" : "integer", (c) =>
      pg ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn("government_id", "text", (c) => c.notNull())
    .addColumn("records", "text", (c) => c.notNull())
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("platform", "text")
    .addColumn("why", "text", (c) => c.notNull())
    .addColumn("evidence", "text")
    .addColumn("notes", "text")
    /** The lead's place in the catalog, so a government's leads keep the catalog's order. */
    .addColumn("position", "integer", (c) => c.notNull())
    .addColumn("first_seen_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("leads_by_government")
    .ifNotExists()
    .on("leads")
    .columns(["government_id", "position"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("leads").ifExists().execute();
}
