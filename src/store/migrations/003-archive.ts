import type { Kysely } from "kysely";

// The archive's index (P8, P12). Portable types only, so SQLite and PostgreSQL share it;
// offsets are bigint because a file may grow past 2 GiB when the rotation size is raised.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("captures")
    .addColumn("record_id", "text", (c) => c.primaryKey())
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("fetched_at", "text", (c) => c.notNull())
    .addColumn("file", "text", (c) => c.notNull())
    .addColumn("offset", "bigint", (c) => c.notNull())
    .addColumn("length", "bigint", (c) => c.notNull())
    .addColumn("request_offset", "bigint")
    .addColumn("request_length", "bigint")
    .addColumn("record_type", "text", (c) => c.notNull())
    .addColumn("method", "text", (c) => c.notNull())
    .addColumn("status", "integer", (c) => c.notNull())
    .addColumn("mime", "text")
    .addColumn("payload_digest", "text", (c) => c.notNull())
    .addColumn("payload_length", "bigint", (c) => c.notNull())
    .addColumn("etag", "text")
    .addColumn("last_modified", "text")
    .addColumn("source", "text")
    .addColumn("purpose", "text", (c) => c.notNull())
    .addColumn("refers_to", "text")
    .addColumn("refers_file", "text")
    .addColumn("refers_offset", "bigint")
    .addColumn("refers_length", "bigint")
    .execute();
  // The latest capture of a URL (P12 validators, `nor archive show`) is an index seek.
  await db.schema
    .createIndex("captures_url_time")
    .on("captures")
    .columns(["url", "fetched_at"])
    .execute();
  await db.schema
    .createIndex("captures_source_time")
    .on("captures")
    .columns(["source", "fetched_at"])
    .execute();
  await db.schema.createIndex("captures_file").on("captures").columns(["file", "offset"]).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("captures").ifExists().execute();
}
