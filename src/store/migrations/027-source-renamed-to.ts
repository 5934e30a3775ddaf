import type { Kysely } from "kysely";
import { sql } from "../kysely.js";
import { columnsOf } from "./columns.js";

/**
 * P6, after a rename (store/catalog-import.ts `moveHistory`):
 * - `sources.renamed_to`: the id a retired source was renamed to, so the old id's page, feeds
 *   and notices send a reader to where its records went (web/public/retired.tsx). Null for
 *   every source never renamed, and again for one put back in the catalog.
 * - an index on `records.first_source_id` (the rows that have one only): an import that adds or
 *   puts back a source renamed away lets go of that id on the records that still carry it, so no
 *   two records share a feed entry's name (catalog-import.ts `letFirstSourceIdsGo`).
 * A store renamed under 026 alone has `renamed_to` set from its records, and its records let go
 * of an id first listed under that is back in use.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(await columnsOf(db, "sources")).includes("renamed_to"))
    await db.schema.alterTable("sources").addColumn("renamed_to", "text").execute();
  await db.schema
    .createIndex("sources_renamed_to")
    .ifNotExists()
    .on("sources")
    .column("renamed_to")
    .where(sql.ref("renamed_to"), "is not", null)
    .execute();
  await db.schema
    .createIndex("records_first_source")
    .ifNotExists()
    .on("records")
    .column("first_source_id")
    .where(sql.ref("first_source_id"), "is not", null)
    .execute();
  // A store renamed under 026 alone: a retired id some records were first listed under was
  // renamed to the source they are under now.
  await sql`update sources set renamed_to = (select r.source_id from records r
      where r.first_source_id = sources.id limit 1)
    where renamed_to is null and retired_at is not null
      and exists (select 1 from records r where r.first_source_id = sources.id)`.execute(db);
  // A store where, under 026 alone, an id renamed away was put back in use: the records still
  // first listed under it let that id go, as an import now does (no two records share a feed
  // entry's name). Only rows that have one are read (records_first_source, just made).
  await sql`update records set first_source_id = null
    where first_source_id is not null
      and first_source_id in (select id from sources where retired_at is null)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("records_first_source").ifExists().execute();
  await db.schema.dropIndex("sources_renamed_to").ifExists().execute();
  await db.schema.alterTable("sources").dropColumn("renamed_to").execute();
}
