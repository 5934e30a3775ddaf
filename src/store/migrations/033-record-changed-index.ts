import type { Kysely } from "kysely";
import { sql } from "../kysely.js";

/**
 * P6: the records brought up to date (`changed_at`, migration 028), by when, for the feeds'
 * updated entries (store/read/new-records.ts changedRecords): a record new on record in the
 * nights before a window whose list shows it retitled, redated or of another kind in it. Partial:
 * only the records ever changed and new on record have an entry, so a night's writes of the
 * records never changed (nearly all) pay nothing for it but the predicate. One that changed has
 * its entry written when it changes; on SQLite also again each time its list is read (the
 * night's upsert names `changed_at`, keeping its value, and SQLite rewrites an index whose
 * column an update names), on PostgreSQL not (an unchanged value leaves the index alone).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index if not exists records_changed on records (changed_at)
    where already_listed = 0 and changed_at is not null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists records_changed`.execute(db);
}
