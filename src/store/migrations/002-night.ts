import type { Kysely } from "kysely";

// The night's tables (src/store/schema/night.ts). Portable types only, so the same migration
// runs on SQLite and PostgreSQL.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("night_catalog")
    .addColumn("source_id", "text", (c) => c.primaryKey())
    .addColumn("government", "text", (c) => c.notNull())
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("site", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("nights")
    .addColumn("night", "text", (c) => c.primaryKey())
    .addColumn("started_at", "text", (c) => c.notNull())
    .addColumn("deadline_at", "text", (c) => c.notNull())
    .addColumn("finished_at", "text")
    .addColumn("runs", "integer", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("night_sources")
    .addColumn("night", "text", (c) => c.notNull())
    .addColumn("source_id", "text", (c) => c.notNull())
    .addColumn("outcome", "text", (c) => c.notNull())
    .addColumn("reason", "text")
    .addColumn("evidence", "text")
    .addColumn("status", "integer")
    .addColumn("url", "text")
    .addColumn("way", "text")
    .addColumn("records_found", "integer", (c) => c.notNull())
    .addColumn("new_records", "integer", (c) => c.notNull())
    .addColumn("started_at", "text", (c) => c.notNull())
    .addColumn("ended_at", "text", (c) => c.notNull())
    .addColumn("duration_ms", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("night_sources_pk", ["night", "source_id"])
    .execute();
  await db.schema
    .createIndex("night_sources_by_source")
    .on("night_sources")
    .columns(["source_id", "night"])
    .execute();
  await db.schema
    .createTable("records")
    .addColumn("source_id", "text", (c) => c.notNull())
    .addColumn("record_id", "text", (c) => c.notNull())
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("date", "text")
    .addColumn("url", "text")
    .addColumn("kind", "text")
    .addColumn("first_seen_night", "text", (c) => c.notNull())
    .addColumn("first_seen_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("records_pk", ["source_id", "record_id"])
    .execute();
  await db.schema
    .createIndex("records_by_night")
    .on("records")
    .columns(["first_seen_night"])
    .execute();
  await db.schema
    .createTable("marks")
    .addColumn("source_id", "text", (c) => c.notNull())
    .addColumn("at", "text", (c) => c.notNull())
    .addColumn("reading", "integer", (c) => c.notNull())
    .addColumn("reason", "text")
    .addColumn("by", "text", (c) => c.notNull())
    .addColumn("night", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("marks_pk", ["source_id", "at"])
    .execute();
  await db.schema
    .createTable("flags")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("source_id", "text", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("night", "text", (c) => c.notNull())
    .addColumn("detail", "text", (c) => c.notNull())
    .addColumn("raised_at", "text", (c) => c.notNull())
    .addColumn("cleared_at", "text")
    .addColumn("cleared_by", "text")
    .execute();
  await db.schema.createIndex("flags_by_source").on("flags").columns(["source_id"]).execute();
  await db.schema
    .createTable("validators")
    .addColumn("url", "text", (c) => c.primaryKey())
    .addColumn("etag", "text")
    .addColumn("last_modified", "text")
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("backfill")
    .addColumn("source_id", "text", (c) => c.primaryKey())
    .addColumn("done", "integer", (c) => c.notNull())
    .addColumn("cursor", "text")
    .addColumn("pages_read", "integer", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of [
    "backfill",
    "validators",
    "flags",
    "marks",
    "records",
    "night_sources",
    "nights",
    "night_catalog",
  ]) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
