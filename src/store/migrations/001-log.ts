import type { Kysely } from "kysely";
import { dialectOf } from "../dialect-of.js";
import { sql } from "../kysely.js";

/**
 * The log module's tables: request_log (P27), site_state (P10), robots_cache (P16).
 * Portable types only (text, integer); times are ISO 8601 UTC text, JSON is text.
 * `ifNotExists` everywhere so a half-applied run can be re-run safely.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const pg = dialectOf(db) === "postgres";
  await db.schema
    .createTable("request_log")
    .ifNotExists()
    // SQLite: `integer primary key autoincrement` never reuses an id; PostgreSQL: `serial`.
    .addColumn("id", pg ? "serial" : "integer", (c) =>
      pg ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn("started_at", "text", (c) => c.notNull())
    .addColumn("ended_at", "text", (c) => c.notNull())
    .addColumn("method", "text", (c) => c.notNull())
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("status", "integer")
    .addColumn("outcome", "text", (c) => c.notNull())
    .addColumn("failure", "text")
    .addColumn("bytes", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("site", "text", (c) => c.notNull())
    .addColumn("origin", "text", (c) => c.notNull())
    .addColumn("source", "text")
    .addColumn("purpose", "text", (c) => c.notNull())
    .addColumn("attempt", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("night", "text")
    .addColumn("validators_sent", "text")
    .addColumn("validators_received", "text")
    .addColumn("evidence", "text")
    .execute();
  // P27: "given a time and an address, the operator finds it in seconds".
  await db.schema
    .createIndex("request_log_started_at")
    .ifNotExists()
    .on("request_log")
    .column("started_at")
    .execute();
  await db.schema
    .createIndex("request_log_site_started_at")
    .ifNotExists()
    .on("request_log")
    .columns(["site", "started_at"])
    .execute();
  await db.schema
    .createIndex("request_log_url")
    .ifNotExists()
    .on("request_log")
    .column("url")
    .execute();

  await db.schema
    .createTable("site_state")
    .ifNotExists()
    .addColumn("site", "text", (c) => c.primaryKey())
    .addColumn("last_end_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("robots_cache")
    .ifNotExists()
    .addColumn("origin", "text", (c) => c.primaryKey())
    .addColumn("fetched_at", "text", (c) => c.notNull())
    .addColumn("state", "text", (c) =>
      c.notNull().check(sql`state in ('rules', 'allow-all', 'unreachable')`),
    )
    .addColumn("status", "integer")
    .addColumn("body", "text")
    .addColumn("etag", "text")
    .addColumn("last_modified", "text")
    .addColumn("reason", "text")
    .addColumn("night", "text")
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("robots_cache").ifExists().execute();
  await db.schema.dropTable("site_state").ifExists().execute();
  await db.schema.dropTable("request_log").ifExists().execute();
}
