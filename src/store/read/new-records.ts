/**
 * "What is new": the records first seen in a window of nights (one night, since yesterday,
 * the last 7 or 30 days), with the government and source they belong to, counts per county
 * and per kind of records, and the nights of the window as they ran (or did not).
 */
import { addDays } from "../../policy/night-date.js";
import { recordDay } from "../../policy/record-date.js";
import { dayStart, SITE_OWNER_ZONE } from "../../policy/zone.js";
import type { RecordKind } from "../../sources/record.js";
import { closedIncompleteNights } from "../admin.js";
import type { Db } from "../db.js";
import { dialectOf } from "../dialect-of.js";
import { sql } from "../kysely.js";
import {
  applyFilter,
  type DirectoryFilter,
  OWN_KINDS,
  RECORD_COLUMNS,
  type RecordItem,
  shownKind,
  toRecord,
} from "./directory.js";
import { inByteOrder, recordInstant } from "./record-instant.js";

/** More than this many new records in one window are cut, with a note (pages and feeds). */
export const NEW_CAP = 500;

/** Nights `from` through `to` (YYYY-MM-DD, inclusive): the night keys records carry. */
export interface NightRange {
  from: string;
  to: string;
}

export interface NewRecord extends RecordItem {
  sourceName: string | null;
  sourceRecords: string;
  governmentId: string;
  governmentName: string;
  governmentKind: string;
  county: string | null;
}

export interface NightRow {
  night: string;
  startedAt: string;
  deadlineAt: string;
  finishedAt: string | null;
  /** P20, P23: sources recorded `checker-offline` that night (the checker's own outage). */
  checkerOffline?: number;
  /**
   * P13: finished by being closed incomplete (interrupted and not resumed in time: admin.ts
   * wasClosedIncomplete), not run to its end: some of its pages were never reached.
   */
  closedIncomplete?: true;
  /**
   * Unfinished only: when the checker's latest request started (any night's, any process's),
   * so a night whose process stopped is not said to be running (web/public/windows.ts).
   */
  lastRequestAt?: string;
}

export interface NewItems {
  items: NewRecord[];
  /** True when more than the cap matched and the list was cut. */
  capped: boolean;
}

function baseQuery(db: Db) {
  return db
    .selectFrom("records as r")
    .innerJoin("sources as s", "s.id", "r.source_id")
    .innerJoin("governments as g", "g.id", "s.government_id")
    .where("s.retired_at", "is", null)
    .where("g.retired_at", "is", null);
}

/**
 * The records new on record: first seen since yesterday and not already listed (migration 021:
 * what a source listed when it was first read, or on an older page a backfill read, is the
 * source's, never new).
 */
function newQuery(db: Db) {
  // A literal: records_new_by_night is a partial index on `already_listed = 0`, and SQLite
  // prepares a statement comparing it to a bound value again at every run.
  return baseQuery(db).where("r.already_listed", "=", sql.lit(0));
}

/** A new (or brought up to date) record's columns: the record's, its source's and government's. */
const ITEM_COLUMNS = [
  ...RECORD_COLUMNS,
  "s.name as source_name",
  "s.records as source_records",
  "g.id as government_id",
  "g.name as government_name",
  "g.kind as government_kind",
  "g.county",
] as const;

/**
 * A row read with ITEM_COLUMNS (or search.ts's RECORD_SELECT), as the pages, feeds and API give
 * it.
 */
export type NewRecordRow = Parameters<typeof toRecord>[0] & {
  source_name: string | null;
  source_records: string;
  government_id: string;
  government_name: string;
  government_kind: string;
  county: string | null;
};

export function toNewRecord(r: NewRecordRow): NewRecord {
  return {
    ...toRecord(r),
    sourceName: r.source_name,
    sourceRecords: r.source_records,
    governmentId: r.government_id,
    governmentName: r.government_name,
    governmentKind: r.government_kind,
    county: r.county,
  };
}

export async function newRecords(
  db: Db,
  range: NightRange,
  f: DirectoryFilter,
  cap = NEW_CAP,
): Promise<NewItems> {
  let q = newQuery(db)
    .select(ITEM_COLUMNS)
    .where("r.first_seen_night", ">=", range.from)
    .where("r.first_seen_night", "<=", range.to);
  q = applyFilter(q, f, "records");
  const pg = dialectOf(db) === "postgres";
  const rows = await q
    .orderBy("r.first_seen_at", "desc")
    // Records first seen together: the newest by the instant their date names, not its text.
    .orderBy(recordInstant(), (ob) => ob.desc().nullsLast())
    .orderBy(inByteOrder(pg, "r.source_id"))
    .orderBy(inByteOrder(pg, "r.record_id"))
    .limit(cap + 1)
    .execute();
  return {
    items: rows.slice(0, cap).map(toNewRecord),
    capped: rows.length > cap,
  };
}

/** At most this many records brought up to date are carried beside the new ones (feeds). */
export const CHANGED_CAP = 100;

/**
 * How far back, in nights before a window, a record first seen new on record is still said
 * brought up to date when its list shows it retitled, redated or of another kind in the window.
 */
export const CHANGED_LOOK_BACK = 30;

/**
 * P6: records new on record in the `CHANGED_LOOK_BACK` nights before the window (so not in its
 * list of new records, never counted as new), brought up to date by a night of the window
 * (`changed_at`: retitled, redated, of another kind; migration 028), the latest change first,
 * then in the list's own order, at most `cap`. A feed carries them as updated entries (their
 * item id the same, Atom `updated` when they changed), so a reader that took a bid when it was
 * new learns it was retitled CANCELLED three nights later. A night's changes fall between its
 * start and the start of the next night of a later date begun after it (nights.started_at), so
 * `night=` holds that night's (one column: a record changed again later is the later night's).
 * Read by `records_changed` (migration 033), a partial index of the records ever changed.
 */
export async function changedRecords(
  db: Db,
  range: NightRange,
  f: DirectoryFilter,
  cap = CHANGED_CAP,
): Promise<NewItems> {
  const first = await db
    .selectFrom("nights")
    .select((eb) => eb.fn.min("started_at").as("start"))
    .where("night", ">=", range.from)
    .where("night", "<=", range.to)
    .executeTakeFirst();
  // No night of the window has begun: nothing was brought up to date in it.
  if (!first?.start) return { items: [], capped: false };
  // The first night of a later date begun after it: a night asked for by its past date
  // (`nor night --night`, docs/operations.md) begins after nights of later dates, and its span
  // ends with the next one begun, not with one begun before it (an empty span).
  const next = await db
    .selectFrom("nights")
    .select((eb) => eb.fn.min("started_at").as("end"))
    .where("night", ">", range.to)
    .where("started_at", ">", first.start)
    .executeTakeFirst();
  const rows = await changedQuery(
    db,
    range,
    { start: first.start, end: next?.end ?? undefined },
    f,
    cap,
  ).execute();
  return {
    items: rows.slice(0, cap).map(toNewRecord),
    capped: rows.length > cap,
  };
}

/**
 * changedRecords' statement: the records changed from `at.start` (before `at.end`), first seen
 * new on record in the look-back before the window; one more than `cap`, to tell it was cut.
 */
export function changedQuery(
  db: Db,
  range: NightRange,
  at: { start: string; end?: string | undefined },
  f: DirectoryFilter,
  cap: number,
) {
  const pg = dialectOf(db) === "postgres";
  // Read by when each changed (records_changed), never by night: the records new in the
  // look-back are many, the changed few. SQLite, without statistics, would as soon take
  // records_new_by_night for the nights' range; unary `+` leaves that column's index out.
  const firstNight = pg ? sql<string>`r.first_seen_night` : sql<string>`+r.first_seen_night`;
  let q = baseQuery(db)
    .select(ITEM_COLUMNS)
    // Literals, as the partial index's own predicate (a generic plan on PostgreSQL: nightsIn).
    .where("r.already_listed", "=", sql.lit(0))
    .where("r.changed_at", ">=", at.start)
    .where(firstNight, ">=", addDays(range.from, -CHANGED_LOOK_BACK))
    .where(firstNight, "<", range.from);
  if (at.end !== undefined) q = q.where("r.changed_at", "<", at.end);
  q = applyFilter(q, f, "records");
  return q
    .orderBy("r.changed_at", "desc")
    .orderBy("r.first_seen_at", "desc")
    .orderBy(recordInstant(), (ob) => ob.desc().nullsLast())
    .orderBy(inByteOrder(pg, "r.source_id"))
    .orderBy(inByteOrder(pg, "r.record_id"))
    .limit(cap + 1);
}

export interface NewCounts {
  total: number;
  /**
   * First seen in the window too, but already listed (a page's first read, or its list's older
   * pages, P7): not new, not in `total` nor the counts by county and kind; on their pages.
   */
  alreadyListed: number;
  /** County (null: statewide) → count, most first. */
  byCounty: { county: string | null; count: number }[];
  /** Kind of records → count, most first. */
  byRecords: { records: string; count: number }[];
}

/**
 * How many records are new in the window, per county and per kind of records (no cap), and how
 * many first seen in it were already listed (counted apart, in the same statement).
 */
export async function newCounts(db: Db, range: NightRange, f: DirectoryFilter): Promise<NewCounts> {
  // By the kind each record is shown as (shownKind), as the records filter reads it.
  let q = baseQuery(db)
    .select([
      "g.county",
      shownKind().as("records"),
      "r.already_listed",
      (eb) => eb.fn.countAll<number | string>().as("n"),
    ])
    .where("r.first_seen_night", ">=", range.from)
    .where("r.first_seen_night", "<=", range.to)
    .groupBy(["g.county", shownKind(), "r.already_listed"]);
  q = applyFilter(q, f, "records");
  const rows = await q.execute();
  const byCounty = new Map<string | null, number>();
  const byRecords = new Map<string, number>();
  let total = 0;
  let alreadyListed = 0;
  for (const r of rows) {
    const n = Number(r.n);
    if (Number(r.already_listed) !== 0) {
      alreadyListed += n;
      continue;
    }
    total += n;
    byCounty.set(r.county, (byCounty.get(r.county) ?? 0) + n);
    byRecords.set(r.records, (byRecords.get(r.records) ?? 0) + n);
  }
  const most = <K>(m: Map<K, number>) =>
    [...m].sort((a, b) => b[1] - a[1] || String(a[0] ?? "~").localeCompare(String(b[0] ?? "~")));
  return {
    total,
    alreadyListed,
    byCounty: most(byCounty).map(([county, count]) => ({ county, count })),
    byRecords: most(byRecords).map(([records, count]) => ({ records, count })),
  };
}

/** The nights that have a row in `nights` within the range, newest first. */
export async function nightsIn(db: Db, range: NightRange): Promise<NightRow[]> {
  const rows = await db
    .selectFrom("nights")
    .select(["night", "started_at", "deadline_at", "finished_at"])
    .where("night", ">=", range.from)
    .where("night", "<=", range.to)
    .orderBy("night", "desc")
    .execute();
  const offline = await db
    .selectFrom("night_sources")
    .select(["night", (eb) => eb.fn.countAll<number | string>().as("n")])
    .where("night", ">=", range.from)
    .where("night", "<=", range.to)
    // A literal, not a parameter: the partial index night_sources_offline (migration 016)
    // holds exactly these rows. SQLite and PostgreSQL's custom plans also see that from a bound
    // value, but a generic plan (a statement PostgreSQL plans once for any value) would not.
    .where("outcome", "=", sql.lit("checker-offline"))
    .groupBy("night")
    .execute();
  const offlineBy = new Map(offline.map((o) => [o.night, Number(o.n)]));
  const incomplete = await closedIncompleteNights(db, rows);
  // The latest request of all, on request_log_started_at's end: read only when a night of the
  // range is unfinished.
  const lastRequestAt = rows.some((r) => r.finished_at === null)
    ? ((
        await db
          .selectFrom("request_log")
          .select("started_at")
          .orderBy("started_at", "desc")
          .limit(1)
          .executeTakeFirst()
      )?.started_at ?? undefined)
    : undefined;
  return rows.map((r) => {
    const n = offlineBy.get(r.night);
    return {
      night: r.night,
      startedAt: r.started_at,
      deadlineAt: r.deadline_at,
      finishedAt: r.finished_at,
      ...(n !== undefined ? { checkerOffline: n } : {}),
      ...(incomplete.has(r.night) ? { closedIncomplete: true as const } : {}),
      ...(r.finished_at === null && lastRequestAt !== undefined ? { lastRequestAt } : {}),
    };
  });
}

/**
 * The record pages a filter's records can come from. A record shown as one of OWN_KINDS may be
 * on a page of any kind (the minutes an Agenda Center's page of agendas lists: shownKind), so
 * `records` narrows the pages only when it is `other`; else a night would say that no page of the
 * selection was listed yet beside the records it found.
 */
function pagesOf(f: DirectoryFilter): DirectoryFilter {
  if (f.records === undefined || !OWN_KINDS.some((k) => k === f.records)) return f;
  const { records: _, ...rest } = f;
  return rest;
}

/**
 * When the first record page in the filter's scope was added to the catalog (retired pages
 * included: they were listed once), if any was: nights before it are "not yet listed" for that
 * scope, never the checker's outage.
 */
export async function firstListed(db: Db, f: DirectoryFilter): Promise<string | undefined> {
  let q = db
    .selectFrom("sources as s")
    .innerJoin("governments as g", "g.id", "s.government_id")
    .select((eb) => eb.fn.min("s.first_seen_at").as("at"));
  q = applyFilter(q, pagesOf(f), "pages");
  const r = await q.executeTakeFirst();
  return r?.at ?? undefined;
}

/**
 * Which of `nights` checked at least one source the filter selects (a row in night_sources),
 * for the few nights that began before the selection's pages were listed (windows.ts).
 */
export async function nightsCheckedIn(
  db: Db,
  nights: readonly string[],
  f: DirectoryFilter,
): Promise<Set<string>> {
  if (nights.length === 0) return new Set();
  // Each night asks whether one such row exists (stopping at the first), not for all of them:
  // a filter that matches thousands of sources reads one row a night, not thousands.
  const rows = await db
    .selectFrom("nights as n")
    .select("n.night")
    .where("n.night", "in", [...nights])
    .where((eb) =>
      eb.exists(
        applyFilter(
          eb
            .selectFrom("night_sources as ns")
            .innerJoin("sources as s", "s.id", "ns.source_id")
            .innerJoin("governments as g", "g.id", "s.government_id")
            .select("ns.source_id")
            .whereRef("ns.night", "=", "n.night"),
          pagesOf(f),
          "pages",
        ),
      ),
    )
    .execute();
  return new Set(rows.map((r) => r.night));
}

/** The directory's first night, if any ran: nights before it are "not yet", never an outage. */
export async function firstNight(db: Db): Promise<string | undefined> {
  const r = await db
    .selectFrom("nights")
    .select("night")
    .orderBy("night", "asc")
    .limit(1)
    .executeTakeFirst();
  return r?.night;
}

/** The latest night in the store, if any ran. */
export async function latestNight(db: Db): Promise<NightRow | undefined> {
  const r = await db
    .selectFrom("nights")
    .select(["night", "started_at", "deadline_at", "finished_at"])
    .orderBy("night", "desc")
    .limit(1)
    .executeTakeFirst();
  return r
    ? {
        night: r.night,
        startedAt: r.started_at,
        deadlineAt: r.deadline_at,
        finishedAt: r.finished_at,
      }
    : undefined;
}

/** The latest night before `before` on which any record was new on record (for "nothing new"). */
export async function lastNightWithNew(
  db: Db,
  before: string,
  f: DirectoryFilter,
): Promise<{ night: string; count: number } | undefined> {
  let q = newQuery(db)
    .select("r.first_seen_night as night")
    .where("r.first_seen_night", "<", before);
  q = applyFilter(q, f, "records");
  const latest = await q.orderBy("r.first_seen_night", "desc").limit(1).executeTakeFirst();
  if (!latest) return undefined;
  const c = await newCounts(db, { from: latest.night, to: latest.night }, f);
  return { night: latest.night, count: c.total };
}

/** The kinds of records that are meetings: a meeting itself, or the agenda of one. */
const MEETING_KINDS: readonly RecordKind[] = ["meetings", "agendas"];

/**
 * The kinds of records that are never a meeting, whatever page lists them: minutes dated ahead,
 * a bid's due date, a permit. A notice or another document of a meeting platform (a "Notice of
 * Meeting", a file of type Other, a video) may be the only one a meeting has posted yet.
 */
const NOT_MEETING_KINDS: readonly RecordKind[] = ["minutes", "bids", "permits"];

/**
 * Meetings dated on or after `fromDate` (YYYY-MM-DD), soonest first: the calendar of upcoming
 * meetings. A record is a meeting by its own kind when the list says it is one (`meetings`,
 * `agendas`, compared without case: a recipe's `Agendas` is agendas), is never one when the
 * list says it is minutes, a bid or a permit, and otherwise is one when its record page lists
 * meetings or agendas (catalog `records`): so a notice or another document of a meeting on a
 * page of agendas is listed (a meeting platform's documents each a record, one of them maybe
 * all the meeting has posted), as is a record whose list gave no kind or a word of its own (a
 * feed's category `Council`).
 */
export async function upcomingMeetings(
  db: Db,
  fromDate: string,
  f: DirectoryFilter,
  cap: number,
): Promise<NewRecord[]> {
  let q = baseQuery(db)
    .select(ITEM_COLUMNS)
    .where("r.date", ">=", fromDate)
    .where((eb) => {
      const own = eb.fn<string | null>("lower", [eb.ref("r.kind")]);
      return eb.or([
        eb(own, "in", [...MEETING_KINDS]),
        eb.and([
          eb.or([eb("r.kind", "is", null), eb(own, "not in", [...NOT_MEETING_KINDS])]),
          eb("s.records", "in", [...MEETING_KINDS]),
        ]),
      ]);
    });
  // The record page's kind of records: the calendar lists meetings, and `records=bids` is the
  // meetings bids pages list (a pre-bid meeting), which a record's kind as shown never is.
  q = applyFilter(q, f, "pages");
  // A day is the one a date falls on in Ohio: a time in UTC before Ohio's midnight of
  // `fromDate` (last evening there) is out, though its text reads `fromDate`; a day written, or
  // a time with its offset, is the day written. Then the soonest by the instant each names.
  // To the second (Ohio's midnight is a whole one): text that shares those 19 characters is not
  // before it, whatever follows (`Z`, `.000Z`, `+00:00`). Compared byte by byte on PostgreSQL
  // too, whatever the database's collation.
  const [y, m, d] = fromDate.split("-").map(Number) as [number, number, number];
  const midnight = new Date(dayStart(y, m, d, SITE_OWNER_ZONE)).toISOString().slice(0, 19);
  const pg = dialectOf(db) === "postgres";
  const date = inByteOrder(pg, "r.date");
  const rows = (
    await q
      .where((eb) =>
        eb.not(
          eb.and([
            eb(date, ">=", `${fromDate}T`),
            eb(date, "<", midnight),
            eb.or([
              eb("r.date", "like", "%Z"),
              eb("r.date", "like", "%+00:00"),
              eb("r.date", "like", "%-00:00"),
            ]),
          ]),
        ),
      )
      .orderBy(recordInstant(), (ob) => ob.asc().nullsLast())
      .orderBy(inByteOrder(pg, "r.source_id"))
      .orderBy(inByteOrder(pg, "r.record_id"))
      .limit(cap)
      .execute()
  ).filter((r) => (recordDay(r.date) ?? "") >= fromDate);
  return rows.map(toNewRecord);
}
