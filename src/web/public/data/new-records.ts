/**
 * "New on record": the records first seen by the latest night, across Ohio, with the
 * government and source they belong to. The window is the latest night in `nights` (not a
 * rolling 24 hours), so a night that did not run shows the last one that did, said so on the
 * page, rather than an empty list that looks like "nothing happened".
 */
import type { Db } from "../../../store/db.js";
import type { Filter } from "../filters.js";
import { RECORD_COLUMNS, type RecordItem, toRecord } from "./directory.js";

/** More than this many new records in one night are cut, with a note (pages and feeds). */
export const NEW_CAP = 500;

export interface NewRecord extends RecordItem {
  sourceName: string | null;
  sourceRecords: string;
  governmentId: string;
  governmentName: string;
  governmentKind: string;
  county: string | null;
}

export interface NewOnRecord {
  /** The latest night, absent before the first night ran. */
  night?: { night: string; startedAt: string; finishedAt: string | null };
  items: NewRecord[];
  /** True when more than NEW_CAP matched and the list was cut. */
  capped: boolean;
}

export async function newOnRecord(db: Db, f: Filter, cap = NEW_CAP): Promise<NewOnRecord> {
  const latest = await db
    .selectFrom("nights")
    .select(["night", "started_at", "finished_at"])
    .orderBy("night", "desc")
    .limit(1)
    .executeTakeFirst();
  if (!latest) return { items: [], capped: false };
  let q = db
    .selectFrom("records as r")
    .innerJoin("sources as s", "s.id", "r.source_id")
    .innerJoin("governments as g", "g.id", "s.government_id")
    .select([
      ...RECORD_COLUMNS,
      "s.name as source_name",
      "s.records as source_records",
      "g.id as government_id",
      "g.name as government_name",
      "g.kind as government_kind",
      "g.county",
    ])
    .where("r.first_seen_night", "=", latest.night)
    .where("s.retired_at", "is", null)
    .where("g.retired_at", "is", null);
  if (f.county) q = q.where("g.county", "=", f.county);
  if (f.kind) q = q.where("g.kind", "=", f.kind);
  if (f.records) q = q.where("s.records", "=", f.records);
  const rows = await q
    .orderBy("r.first_seen_at", "desc")
    .orderBy("r.date", (ob) => ob.desc().nullsLast())
    .orderBy("r.source_id")
    .orderBy("r.record_id")
    .limit(cap + 1)
    .execute();
  const items = rows.slice(0, cap).map((r) => ({
    ...toRecord(r),
    sourceName: r.source_name,
    sourceRecords: r.source_records,
    governmentId: r.government_id,
    governmentName: r.government_name,
    governmentKind: r.government_kind,
    county: r.county,
  }));
  return {
    night: { night: latest.night, startedAt: latest.started_at, finishedAt: latest.finished_at },
    items,
    capped: rows.length > cap,
  };
}
