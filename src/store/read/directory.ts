/**
 * The catalog as the public sees it: governments by county and kind, their sources, and the
 * records we noted (P6: links only, never fetched). Read-only SQL over the catalog tables
 * (src/store/schema/sources.ts) and `records`, the same on SQLite and PostgreSQL. Retired rows
 * appear only on their own page (and a retired government's lists the record pages it had).
 */

import { shownText } from "../../policy/shown-text.js";
import type { RecordKind } from "../../sources/record.js";
import type { Db } from "../db.js";
import { dialectOf } from "../dialect-of.js";
import { sql } from "../kysely.js";
import type { RecordsTable } from "../schema/night.js";
import { inByteOrder, recordInstant } from "./record-instant.js";

/** Narrows lists and feeds; every field is an exact, already-validated value. */
export interface DirectoryFilter {
  county?: string;
  /** Kind of government. */
  kind?: string;
  /**
   * Kind of records: a record's as it is shown (`shownKind`), a record page's own where the
   * query is about pages (`applyFilter`'s `on`).
   */
  records?: string;
  government?: string;
  source?: string;
}

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
  /** P6: the id this retired source was renamed to, its records with it; null otherwise. */
  renamedTo: string | null;
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
  /**
   * Already listed when first seen (its page's first read, or an older page a backfill read):
   * the page's record, never new on record (migration 021).
   */
  alreadyListed: boolean;
  /**
   * The id it was first listed under, when its link, and so its id, changed since (P6; migration
   * 022): its feed entries and calendar events keep that name.
   */
  firstId?: string;
  /**
   * The source id it was first listed under, when the catalog renamed its source since (P6;
   * migration 026): its feed entries and calendar events keep that name.
   */
  firstSourceId?: string;
  /**
   * When it was last brought up to date (retitled, redated, another kind: P6; migration 028),
   * when it was since first seen: its feed entries and calendar events say it changed.
   */
  changedAt?: string;
}

export interface CountySummary {
  county: string;
  governments: number;
}

export async function counties(db: Db): Promise<string[]> {
  return (await countySummaries(db)).map((c) => c.county);
}

/** Counties with how many current governments each has, by name. */
export async function countySummaries(db: Db): Promise<CountySummary[]> {
  const rows = await db
    .selectFrom("governments")
    .select(["county", (eb) => eb.fn.countAll<number | string>().as("n")])
    .where("retired_at", "is", null)
    .where("county", "is not", null)
    .groupBy("county")
    .execute();
  return rows
    .map((r) => ({ county: r.county ?? "", governments: Number(r.n) }))
    .sort((a, b) => a.county.localeCompare(b.county));
}

export async function listGovernments(db: Db, f: DirectoryFilter): Promise<GovernmentSummary[]> {
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
  if (f.government) q = q.where("g.id", "=", f.government);
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
  "renamed_to",
] as const;

export type SourceCols = {
  id: string;
  government_id: string;
  name: string | null;
  records: string;
  url: string;
  access: string;
  platform: string | null;
  retired_at: string | null;
  renamed_to: string | null;
};

export function toSource(r: SourceCols): SourceSummary {
  return {
    id: r.id,
    governmentId: r.government_id,
    name: r.name,
    records: r.records,
    url: r.url,
    access: r.access,
    platform: r.platform,
    retiredAt: r.retired_at,
    renamedTo: r.renamed_to,
  };
}

/**
 * A record page the catalog lists as seen but not confirmed (a lead): never fetched, shown so
 * nothing seen is lost.
 */
export interface LeadSummary {
  records: string;
  /** As seen: it may lack a scheme or be a template. */
  url: string;
  platform: string | null;
  why: string;
  evidence: string | null;
  firstSeenAt: string;
}

/** A government's leads, in catalog order. */
export async function leadsOf(db: Db, governmentId: string): Promise<LeadSummary[]> {
  const rows = await db
    .selectFrom("leads")
    .select(["records", "url", "platform", "why", "evidence", "first_seen_at"])
    .where("government_id", "=", governmentId)
    .orderBy("position")
    .execute();
  return rows.map((r) => ({
    records: r.records,
    url: r.url,
    platform: r.platform,
    why: r.why,
    evidence: r.evidence,
    firstSeenAt: r.first_seen_at,
  }));
}

/**
 * A government's current sources (P26: listed whether read or not). `retired`: its retired ones
 * too, for the page of a government that itself left the catalog: its record pages stay
 * reachable from it, with the records kept on each.
 */
export async function sourcesOf(
  db: Db,
  governmentId: string,
  opts: { retired?: boolean } = {},
): Promise<SourceSummary[]> {
  return (await sourcesOfGovernments(db, [governmentId], opts)).get(governmentId) ?? [];
}

/** The current sources of many governments at once (a county page), by records kind then id. */
export async function sourcesOfGovernments(
  db: Db,
  governmentIds: readonly string[],
  opts: { retired?: boolean } = {},
): Promise<Map<string, SourceSummary[]>> {
  const out = new Map<string, SourceSummary[]>();
  if (governmentIds.length === 0) return out;
  let q = db
    .selectFrom("sources")
    .select([...SOURCE_COLUMNS])
    .where("government_id", "in", [...governmentIds]);
  if (!opts.retired) q = q.where("retired_at", "is", null);
  const rows = await q.orderBy("records").orderBy("id").execute();
  for (const r of rows) {
    const list = out.get(r.government_id) ?? [];
    list.push(toSource(r));
    out.set(r.government_id, list);
  }
  return out;
}

/** Every current source (bulk downloads, the sitemap), by id. */
export async function allSources(db: Db): Promise<SourceSummary[]> {
  const rows = await db
    .selectFrom("sources")
    .select([...SOURCE_COLUMNS])
    .where("retired_at", "is", null)
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
  "r.already_listed",
  "r.first_id",
  "r.first_source_id",
  "r.changed_at",
] as const;

export function toRecord(
  r: Omit<
    RecordsTable,
    "instant" | "already_listed" | "first_id" | "first_source_id" | "changed_at"
  > & {
    already_listed: number;
    first_id: string | null;
    first_source_id: string | null;
    changed_at: string | null;
  },
): RecordItem {
  return {
    sourceId: r.source_id,
    recordId: r.record_id,
    ...(r.first_id !== null ? { firstId: r.first_id } : {}),
    ...(r.first_source_id !== null ? { firstSourceId: r.first_source_id } : {}),
    ...(r.changed_at !== null ? { changedAt: r.changed_at } : {}),
    title: shownText(r.title),
    date: r.date,
    url: r.url,
    kind: r.kind,
    firstSeenNight: r.first_seen_night,
    firstSeenAt: r.first_seen_at,
    alreadyListed: Number(r.already_listed) === 1,
  };
}

/**
 * Newest by the record's own date (backfilled old records do not crowd out new ones), as the
 * instant it names (record-instant.ts: the text of a date is no time order), undated last; then
 * the latest first seen, then by id.
 */
export async function newestRecords(
  db: Db,
  sourceId: string,
  limit: number,
): Promise<RecordItem[]> {
  const rows = await newestRecordsQuery(db, sourceId, limit).execute();
  return rows.map(toRecord);
}

/** The query of `newestRecords`: read in order from records_source_instant, no sort. */
export function newestRecordsQuery(db: Db, sourceId: string, limit: number) {
  return db
    .selectFrom("records as r")
    .select([...RECORD_COLUMNS])
    .where("r.source_id", "=", sourceId)
    .orderBy(recordInstant(), (ob) => ob.desc().nullsLast())
    .orderBy("r.first_seen_at", "desc")
    .orderBy(inByteOrder(dialectOf(db) === "postgres", "r.record_id"))
    .limit(limit);
}

/**
 * One page of records for the bulk download, in key order after `after` (keyset paging, so a
 * download of 100,000 records never holds them all in memory or re-reads skipped rows).
 */
export async function recordsAfter(
  db: Db,
  after: { sourceId: string; recordId: string } | undefined,
  f: DirectoryFilter,
  limit: number,
): Promise<(RecordItem & { governmentId: string; county: string | null; records: string })[]> {
  const rows = await recordsAfterQuery(db, after, f, limit).execute();
  return rows.map((r) => ({
    ...toRecord(r),
    governmentId: r.government_id,
    county: r.county,
    records: r.records,
  }));
}

/** The query of `recordsAfter`: a page in key order, sought in the records' key index. */
export function recordsAfterQuery(
  db: Db,
  after: { sourceId: string; recordId: string } | undefined,
  f: DirectoryFilter,
  limit: number,
) {
  let q = db
    .selectFrom("records as r")
    .innerJoin("sources as s", "s.id", "r.source_id")
    .innerJoin("governments as g", "g.id", "s.government_id")
    .select([...RECORD_COLUMNS, "g.id as government_id", "g.county", "s.records"])
    .where("s.retired_at", "is", null)
    .where("g.retired_at", "is", null);
  if (after) {
    const a = after;
    // A row comparison: both stores seek to it in the records' key index (an OR of the two
    // columns was a filter over the index from its start on PostgreSQL, each page).
    q = q.where((eb) =>
      eb(eb.refTuple("r.source_id", "r.record_id"), ">", eb.tuple(a.sourceId, a.recordId)),
    );
  }
  q = applyFilter(q, f, "records");
  return q.orderBy("r.source_id").orderBy("r.record_id").limit(limit);
}

/** Every kind of records but `other`: the kinds a record's own kind is read as. */
const OWN: Record<Exclude<RecordKind, "other">, true> = {
  bids: true,
  agendas: true,
  minutes: true,
  permits: true,
  notices: true,
  meetings: true,
};
/**
 * The kinds of records a record's own `kind` (compared without case) is shown as, in place of
 * its page's: an Agenda Center's page of agendas lists the minutes of the same meetings, shown
 * as minutes (web/public/format.ts `ownKind`, the feeds' category).
 */
export const OWN_KINDS: readonly RecordKind[] = Object.keys(OWN) as RecordKind[];

/**
 * A record's kind of records as the directory shows it, over records `r` and sources `s`: its
 * own kind where that is one of OWN_KINDS, else its page's. What the `records` filter and the
 * counts by kind of records read, so "Minutes" lists every record shown as minutes.
 */
export function shownKind() {
  return sql<string>`(case when lower(r.kind) in (${sql.join(OWN_KINDS.map((k) => sql.lit(k)))}) then lower(r.kind) else s.records end)`;
}

/**
 * Whether a record's kind as shown (`shownKind`) is `kind`, written so a planner can still read
 * its page's part from the pages' own column: `s.records = kind` for the records whose own kind
 * is none of OWN_KINDS, or `lower(r.kind) = kind` where `kind` is one of them. The same rows as
 * `shownKind() = kind`; but that one expression over both tables gave PostgreSQL no estimate
 * (half a percent, whatever the kind), so a page of the records download (keyset order, LIMIT)
 * sorted every record after its key instead of walking the key index: each page of
 * `records.csv?records=minutes` read the whole table again.
 */
export function shownKindIs(kind: string) {
  const own = sql.join(OWN_KINDS.map((k) => sql.lit(k)));
  const fromPage = sql<boolean>`(s.records = ${kind} and (r.kind is null or lower(r.kind) not in (${own})))`;
  return OWN_KINDS.some((k) => k === kind)
    ? sql<boolean>`(${fromPage} or lower(r.kind) = ${kind})`
    : fromPage;
}

/**
 * The filter on a query that joins records `r` (when `on` is "records"), sources `s` and
 * governments `g`: `records` is each record's kind as shown (`shownKind`) in a list of records,
 * the page's own kind where pages are chosen (`on: "pages"`: the calendar's meetings, by the
 * pages that list them; when a selection's first page was listed). Typed loosely on purpose:
 * kysely's builder types differ per select list, the columns do not.
 */
// biome-ignore lint/suspicious/noExplicitAny: see above
export function applyFilter<Q extends { where: (...a: any[]) => any }>(
  q: Q,
  f: DirectoryFilter,
  on: "records" | "pages",
): Q {
  let out = q;
  if (f.county) out = out.where("g.county", "=", f.county);
  if (f.kind) out = out.where("g.kind", "=", f.kind);
  if (f.records)
    out =
      on === "records" ? out.where(shownKindIs(f.records)) : out.where("s.records", "=", f.records);
  if (f.government) out = out.where("g.id", "=", f.government);
  if (f.source) out = out.where("s.id", "=", f.source);
  return out;
}

export interface DirectoryCounts {
  governments: number;
  sources: number;
  records: number;
}

/**
 * The current catalog's counts, as every list and download counts (docs/api.md): current
 * governments, their current record pages, and those pages' records (a retired page's records
 * are kept on its own page, in no count).
 */
export async function directoryCounts(db: Db): Promise<DirectoryCounts> {
  const governments = await db
    .selectFrom("governments")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .where("retired_at", "is", null)
    .executeTakeFirst();
  // The record pages, each with its government: current when neither has left the catalog.
  const pages = () =>
    db
      .selectFrom("sources as s")
      .innerJoin("governments as g", "g.id", "s.government_id")
      .select("s.id");
  const sources = await db
    .selectFrom(pages().where("s.retired_at", "is", null).where("g.retired_at", "is", null).as("c"))
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .executeTakeFirst();
  // All records less those of the pages not current (few): one count of the table (SQLite
  // counts it from its smallest index) and one along the records' key of those pages, where a
  // count page by page of the current ones would walk every record's key.
  const all = await db
    .selectFrom("records")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .executeTakeFirst();
  const gone = await db
    .selectFrom("records")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .where(
      "source_id",
      "in",
      pages().where((eb) =>
        eb.or([eb("s.retired_at", "is not", null), eb("g.retired_at", "is not", null)]),
      ),
    )
    .executeTakeFirst();
  return {
    governments: Number(governments?.n ?? 0),
    sources: Number(sources?.n ?? 0),
    records: Number(all?.n ?? 0) - Number(gone?.n ?? 0),
  };
}

/** Which ids exist (and are current): checks `?government=` and `?source=` before use. */
export async function governmentExists(db: Db, id: string): Promise<boolean> {
  return (
    (await db.selectFrom("governments").select("id").where("id", "=", id).executeTakeFirst()) !==
    undefined
  );
}

export async function sourceExists(db: Db, id: string): Promise<boolean> {
  return (
    (await db.selectFrom("sources").select("id").where("id", "=", id).executeTakeFirst()) !==
    undefined
  );
}
