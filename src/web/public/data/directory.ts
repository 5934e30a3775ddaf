/**
 * The catalog as the public sees it: governments by county and kind, their sources, and the
 * records we noted (P6: links only, never fetched). Read-only SQL over the catalog tables
 * (src/store/schema/sources.ts) and `records`. Retired rows appear only on their own page.
 */
import type { Db } from "../../../store/db.js";
import type { RecordsTable } from "../../../store/schema/night.js";
import type { Filter } from "../filters.js";

export interface GovernmentSummary {
  id: string;
  name: string;
  kind: string;
  county: string | null;
  website: string | null;
  sources: number;
  retiredAt: string | null;
}

export interface SourceSummary {
  id: string;
  governmentId: string;
  name: string | null;
  records: string;
  url: string;
  access: string;
  platform: string | null;
  retiredAt: string | null;
}

export interface RecordItem {
  sourceId: string;
  recordId: string;
  title: string;
  date: string | null;
  /** The record's own URL: shown as a link, never opened by us (P6). */
  url: string | null;
  kind: string | null;
  firstSeenNight: string;
  firstSeenAt: string;
}

export async function counties(db: Db): Promise<string[]> {
  const rows = await db
    .selectFrom("governments")
    .select("county")
    .distinct()
    .where("retired_at", "is", null)
    .where("county", "is not", null)
    .execute();
  return rows.map((r) => r.county ?? "").sort((a, b) => a.localeCompare(b));
}

export async function listGovernments(db: Db, f: Filter): Promise<GovernmentSummary[]> {
  let q = db
    .selectFrom("governments as g")
    .leftJoin("sources as s", (j) =>
      j.onRef("s.government_id", "=", "g.id").on("s.retired_at", "is", null),
    )
    .select(["g.id", "g.name", "g.kind", "g.county", "g.website", "g.retired_at"])
    .select((eb) => eb.fn.count<number | string>("s.id").as("n"))
    .where("g.retired_at", "is", null)
    .groupBy(["g.id", "g.name", "g.kind", "g.county", "g.website", "g.retired_at"]);
  if (f.county) q = q.where("g.county", "=", f.county);
  if (f.kind) q = q.where("g.kind", "=", f.kind);
  const rows = await q.execute();
  return rows
    .map((r) => ({
      id: r.id,
      name: r.name,
      kind: r.kind,
      county: r.county,
      website: r.website,
      sources: Number(r.n),
      retiredAt: r.retired_at,
    }))
    .sort((a, b) => byCounty(a.county, b.county) || a.name.localeCompare(b.name));
}

/** County names in order; governments without a county (state agencies) last. */
function byCounty(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a.localeCompare(b);
}

export async function getGovernment(db: Db, id: string): Promise<GovernmentSummary | undefined> {
  const g = await db.selectFrom("governments").selectAll().where("id", "=", id).executeTakeFirst();
  if (!g) return undefined;
  const n = await db
    .selectFrom("sources")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .where("government_id", "=", id)
    .where("retired_at", "is", null)
    .executeTakeFirst();
  return {
    id: g.id,
    name: g.name,
    kind: g.kind,
    county: g.county,
    website: g.website,
    sources: Number(n?.n ?? 0),
    retiredAt: g.retired_at,
  };
}

const SOURCE_COLUMNS = [
  "id",
  "government_id",
  "name",
  "records",
  "url",
  "access",
  "platform",
  "retired_at",
] as const;

type SourceCols = {
  id: string;
  government_id: string;
  name: string | null;
  records: string;
  url: string;
  access: string;
  platform: string | null;
  retired_at: string | null;
};

function toSource(r: SourceCols): SourceSummary {
  return {
    id: r.id,
    governmentId: r.government_id,
    name: r.name,
    records: r.records,
    url: r.url,
    access: r.access,
    platform: r.platform,
    retiredAt: r.retired_at,
  };
}

/** A government's current sources (P26: listed whether read or not). */
export async function sourcesOf(db: Db, governmentId: string): Promise<SourceSummary[]> {
  const rows = await db
    .selectFrom("sources")
    .select([...SOURCE_COLUMNS])
    .where("government_id", "=", governmentId)
    .where("retired_at", "is", null)
    .orderBy("records")
    .orderBy("id")
    .execute();
  return rows.map(toSource);
}

export async function getSource(db: Db, id: string): Promise<SourceSummary | undefined> {
  const r = await db
    .selectFrom("sources")
    .select([...SOURCE_COLUMNS])
    .where("id", "=", id)
    .executeTakeFirst();
  return r ? toSource(r) : undefined;
}

export const RECORD_COLUMNS = [
  "r.source_id",
  "r.record_id",
  "r.title",
  "r.date",
  "r.url",
  "r.kind",
  "r.first_seen_night",
  "r.first_seen_at",
] as const;

export function toRecord(r: RecordsTable): RecordItem {
  return {
    sourceId: r.source_id,
    recordId: r.record_id,
    title: r.title,
    date: r.date,
    url: r.url,
    kind: r.kind,
    firstSeenNight: r.first_seen_night,
    firstSeenAt: r.first_seen_at,
  };
}

/** Newest by the record's own date (backfilled old records do not crowd out new ones). */
export async function newestRecords(
  db: Db,
  sourceId: string,
  limit: number,
): Promise<RecordItem[]> {
  const rows = await db
    .selectFrom("records as r")
    .select([...RECORD_COLUMNS])
    .where("r.source_id", "=", sourceId)
    .orderBy("r.date", (ob) => ob.desc().nullsLast())
    .orderBy("r.first_seen_at", "desc")
    .orderBy("r.record_id")
    .limit(limit)
    .execute();
  return rows.map(toRecord);
}

export interface DirectoryCounts {
  governments: number;
  sources: number;
  records: number;
}

export async function directoryCounts(db: Db): Promise<DirectoryCounts> {
  const count = async (table: "governments" | "sources") =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number | string>().as("n"))
          .where("retired_at", "is", null)
          .executeTakeFirst()
      )?.n ?? 0,
    );
  const records = await db
    .selectFrom("records")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .executeTakeFirst();
  return {
    governments: await count("governments"),
    sources: await count("sources"),
    records: Number(records?.n ?? 0),
  };
}
