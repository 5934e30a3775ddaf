import type { Kysely } from "kysely";
import { dialectOf } from "../dialect-of.js";
import { sql } from "../kysely.js";

/**
 * The request journal and durable site state (P9, P10, P15, P21, P27):
 * - request_log rows are written before a request is sent (ended_at empty until it ends; a
 *   crash leaves them `interrupted`), with the request's key tonight, whether its answer is
 *   final (replayed, never asked again), when a retry may start, and the answer to replay;
 * - site_state gains the lease of the request in flight, the night the site said no, and a
 *   Retry-After hold; its last end may be empty for a site never asked;
 * - site_rules keeps the owners' requests (a longer gap, paths left alone, not read);
 * - night_lanes leases each site's lane of a night to one worker.
 * SQLite cannot drop NOT NULL in place, so its two tables are rebuilt and copied.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const pg = dialectOf(db) === "postgres";
  if (pg) {
    await sql`alter table request_log alter column ended_at drop not null`.execute(db);
    await sql`alter table site_state alter column last_end_at drop not null`.execute(db);
    for (const c of [
      "holder text",
      "request_key text",
      "final integer not null default 0",
      "closed_early integer not null default 0",
      "retry_at text",
      "answer text",
    ])
      await sql.raw(`alter table request_log add column if not exists ${c}`).execute(db);
    for (const c of [
      "lease_holder text",
      "lease_until text",
      "closed_night text",
      "closed_reason text",
      "not_before text",
    ])
      await sql.raw(`alter table site_state add column if not exists ${c}`).execute(db);
  } else {
    await sql`alter table request_log rename to request_log_old`.execute(db);
    await sql`drop index if exists request_log_started_at`.execute(db);
    await sql`drop index if exists request_log_site_started_at`.execute(db);
    await sql`drop index if exists request_log_url`.execute(db);
    await db.schema
      .createTable("request_log")
      .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
      .addColumn("started_at", "text", (c) => c.notNull())
      .addColumn("ended_at", "text")
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
      .addColumn("holder", "text")
      .addColumn("request_key", "text")
      .addColumn("final", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("closed_early", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("retry_at", "text")
      .addColumn("answer", "text")
      .execute();
    await sql`insert into request_log (id, started_at, ended_at, method, url, status, outcome,
      failure, bytes, site, origin, source, purpose, attempt, night, validators_sent,
      validators_received, evidence)
      select id, started_at, ended_at, method, url, status, outcome, failure, bytes, site,
      origin, source, purpose, attempt, night, validators_sent, validators_received, evidence
      from request_log_old`.execute(db);
    await sql`drop table request_log_old`.execute(db);

    await sql`alter table site_state rename to site_state_old`.execute(db);
    await db.schema
      .createTable("site_state")
      .addColumn("site", "text", (c) => c.primaryKey())
      .addColumn("last_end_at", "text")
      .addColumn("updated_at", "text", (c) => c.notNull())
      .addColumn("lease_holder", "text")
      .addColumn("lease_until", "text")
      .addColumn("closed_night", "text")
      .addColumn("closed_reason", "text")
      .addColumn("not_before", "text")
      .execute();
    await sql`insert into site_state (site, last_end_at, updated_at)
      select site, last_end_at, updated_at from site_state_old`.execute(db);
    await sql`drop table site_state_old`.execute(db);
  }
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
    .createIndex("request_log_night_key")
    .ifNotExists()
    .on("request_log")
    .columns(["night", "request_key"])
    .execute();

  await db.schema
    .createTable("site_rules")
    .ifNotExists()
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("site", "text", (c) => c.notNull())
    .addColumn("kind", "text", (c) =>
      c.notNull().check(sql`kind in ('gap', 'leave-alone', 'not-read')`),
    )
    .addColumn("value", "text")
    .addColumn("reason", "text", (c) => c.notNull())
    .addColumn("at", "text", (c) => c.notNull())
    .addColumn("by", "text", (c) => c.notNull())
    .addColumn("cleared_at", "text")
    .addColumn("cleared_by", "text")
    .execute();
  await db.schema
    .createIndex("site_rules_site")
    .ifNotExists()
    .on("site_rules")
    .columns(["site", "cleared_at"])
    .execute();

  await db.schema
    .createTable("night_lanes")
    .ifNotExists()
    .addColumn("night", "text", (c) => c.notNull())
    .addColumn("site", "text", (c) => c.notNull())
    .addColumn("holder", "text")
    .addColumn("lease_until", "text")
    .addColumn("done_at", "text")
    .addPrimaryKeyConstraint("night_lanes_pk", ["night", "site"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("night_lanes").ifExists().execute();
  await db.schema.dropTable("site_rules").ifExists().execute();
}
