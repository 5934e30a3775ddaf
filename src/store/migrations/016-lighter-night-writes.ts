import type { Kysely } from "kysely";
import { sql } from "../kysely.js";

/**
 * Fewer indexes written by every request of a night (issue 13: with this migration a night of
 * 304s took 5–7% less CPU; docs/benchmarks.md, "Fewer indexes written a request"):
 * - request_log_url: no statement reads it. The log's URL search is a substring (`like
 *   '%…%'`), which no index serves; it runs within a time window (request_log_started_at);
 * - request_log_night_site (night, site, bytes): a night's requests per site (the console's
 *   night report) and its count of requests now read request_log_night_key (night,
 *   request_key), which every admission already keeps, and the rows themselves; the
 *   completion, which writes `bytes`, no longer moves an index entry;
 * - night_sources_by_outcome (outcome, night) served one count, the nights the checker itself
 *   was offline (P20, P23). It becomes night_sources_offline: the night of those rows only, a
 *   partial index, so a source's result written in any other outcome touches no index of it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists request_log_url`.execute(db);
  await sql`drop index if exists request_log_night_site`.execute(db);
  await sql`create index if not exists night_sources_offline on night_sources (night)
    where outcome = 'checker-offline'`.execute(db);
  await sql`drop index if exists night_sources_by_outcome`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex("night_sources_by_outcome")
    .ifNotExists()
    .on("night_sources")
    .columns(["outcome", "night"])
    .execute();
  await sql`drop index if exists night_sources_offline`.execute(db);
  await db.schema
    .createIndex("request_log_night_site")
    .ifNotExists()
    .on("request_log")
    .columns(["night", "site", "bytes"])
    .execute();
  await db.schema
    .createIndex("request_log_url")
    .ifNotExists()
    .on("request_log")
    .column("url")
    .execute();
}
