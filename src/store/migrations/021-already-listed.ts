import type { Kysely } from "kysely";
import { sql } from "../kysely.js";
import { columnsOf } from "./columns.js";

/**
 * "New on record" is what appeared since yesterday. A source read for the first time lists what
 * it has listed for months, and a backfill (P7) reads older pages still: those records are the
 * source's, shown on its page, but none of them appeared since yesterday. `already_listed` is 1
 * for them (store/night-records.ts): "New on record", its feeds and its counts leave them out.
 *
 * A store made before this column kept no such mark. What it can still tell is put right here:
 * the records a source listed on the night it was first read (the first night any of its records
 * was seen, when no earlier night had read records on it) were already listed, and that night's
 * count of new records for it was none. A backfill's records
 * of later nights cannot be told from new ones any more, and stay as they were.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // Run again over a store that has it (a test puts back a store from before 015): only when
  // missing, and its marks only put right when it was added.
  const columns = await columnsOf(db, "records");
  if (!columns.includes("already_listed")) await addAndMark(db);
  // "New on record" reads only the records not already listed, by night (new-records.ts): a
  // window with nothing new looks back for the last night that had some (lastNightWithNew)
  // without walking the already listed.
  await sql`create index if not exists records_new_by_night on records (first_seen_night)
    where already_listed = 0`.execute(db);
}

async function addAndMark(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("records")
    .addColumn("already_listed", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  // One row per source (its first night with records), then only those sources' rows of that
  // night: no statement that looks at every record once per record.
  await sql`
    update records set already_listed = 1
    where (source_id, first_seen_night) in (
      select f.source_id, f.night from (
        select source_id, min(first_seen_night) as night from records group by source_id
      ) f
      where not exists (
        select 1 from night_sources ns
        where ns.source_id = f.source_id and ns.night < f.night
          and (ns.outcome in ('ok', 'unchanged') or ns.records_found > 0)
      )
    )`.execute(db);
  // Those nights' counts of new records said the same records were new: none of them was.
  await sql`
    update night_sources set new_records = 0
    where new_records <> 0 and (source_id, night) in (
      select source_id, first_seen_night from records where already_listed = 1
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists records_new_by_night`.execute(db);
  await db.schema.alterTable("records").dropColumn("already_listed").execute();
}
