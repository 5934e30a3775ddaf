import type { Kysely } from "kysely";
import { dialectOf } from "../dialect-of.js";

/**
 * The catalog as imported: governments, sources (retired, never deleted) and the diff of
 * every import. Portable types only; times are ISO 8601 UTC text, JSON is text.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const pg = dialectOf(db) === "postgres";
  await db.schema
    .createTable("governments")
    .ifNotExists()
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("county", "text")
    .addColumn("website", "text")
    .addColumn("entry", "text", (c) => c.notNull())
    .addColumn("catalog_file", "text", (c) => c.notNull())
    .addColumn("first_seen_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addColumn("retired_at", "text")
    .execute();
  await db.schema
    .createTable("sources")
    .ifNotExists()
    .addColumn("id", "text", (c) => c.primaryKey())
    // No foreign key: a retired government keeps its retired sources, and import order
    // within one transaction must not matter.
    .addColumn("government_id", "text", (c) => c.notNull())
    .addColumn("records", "text", (c) => c.notNull())
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("access", "text", (c) => c.notNull())
    .addColumn("platform", "text")
    .addColumn("name", "text")
    .addColumn("confirmed", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("entry", "text", (c) => c.notNull())
    .addColumn("catalog_file", "text", (c) => c.notNull())
    .addColumn("first_seen_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addColumn("retired_at", "text")
    .execute();
  await db.schema
    .createIndex("sources_by_government")
    .ifNotExists()
    .on("sources")
    .column("government_id")
    .execute();
  await db.schema
    .createTable("catalog_changes")
    .ifNotExists()
    .addColumn("id", pg ? "serial" : "integer", (c) =>
      pg ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn("at", "text", (c) => c.notNull())
    .addColumn("entity", "text", (c) => c.notNull())
    .addColumn("entity_id", "text", (c) => c.notNull())
    .addColumn("change", "text", (c) => c.notNull())
    .addColumn("fields", "text")
    .execute();
  await db.schema
    .createIndex("catalog_changes_by_entity")
    .ifNotExists()
    .on("catalog_changes")
    .columns(["entity_id", "at"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("catalog_changes").ifExists().execute();
  await db.schema.dropTable("sources").ifExists().execute();
  await db.schema.dropTable("governments").ifExists().execute();
}
