/**
 * What a person does and reads (P24, P25): marks (read / not read, with time and reason),
 * the flags queue, and the per-source status. SQL over the night's tables, same on SQLite
 * and PostgreSQL.
 */
import type { ExpressionBuilder } from "kysely";
import { NorError } from "../errors.js";
import type { WaySkipped, WayUsed } from "../night/types.js";
import { cutByTheDeadline } from "../night/types.js";
import {
  DISCOVER_SOURCE,
  NOT_SENT,
  OWNER_PACE,
  SITE_DOWN,
  SITE_WAIT,
} from "../policy/admission.js";
import {
  begunAfterItsDate,
  closingTime,
  isNightDate,
  legacyClosingTime,
  nightOf,
} from "../policy/night-date.js";
import type { Db } from "./db.js";
import { dialectOf } from "./dialect-of.js";
import { holderDead, STALE_MS } from "./holder.js";
import { fromIso, toIso } from "./iso-time.js";
import { sql } from "./kysely.js";
import { latestMarks, lockMarksOf, markAt, markShownAt } from "./marks.js";
import { nightsRunInStore } from "./night-runs.js";
import { prepared } from "./prepared.js";
import type { Database } from "./schema/index.js";
import { notReadSitesOf, siteNotReadReason } from "./site-rules.js";
import { type Retired, retiredOf } from "./source-known.js";
import { serverNow } from "./store-clock.js";
import { parseWayChoice } from "./way-choice.js";
import { writeTxn } from "./write-txn.js";

/**
 * 1 for an unreached source its site's own wait or its owner's slower pace held past the night
 * (policy/admission.ts: its reason says so), 0 for any other: summed, the night's held sources,
 * said apart from those the night's time ran out for. The reason's opening compared as it is
 * (as the pages' startsWith reads it), not by LIKE: SQLite's LIKE ignores ASCII case where
 * PostgreSQL's does not, so the two stores counted a reason alike only by chance.
 */
const opens = (words: string) => sql`substr(reason, 1, ${sql.lit(words.length)}) = ${words}`;
const heldCase = sql<number>`case when outcome = 'unreached' and (${opens(SITE_WAIT)} or ${opens(OWNER_PACE)}) then 1 else 0 end`;
/**
 * 1 for an unreached source whose site was down that night (a 5xx after a request's retries,
 * or a Retry-After over 60 s: policy/admission.ts siteDownReason), 0 for any other: summed, the
 * night's sources not asked because their site was down, said apart from the deadline's.
 */
const downCase = sql<number>`case when outcome = 'unreached' and ${opens(SITE_DOWN)} then 1 else 0 end`;

export interface MarkInput {
  source: string;
  reading: boolean;
  reason?: string;
  by: string;
  at: number;
  night: string;
}

/**
 * What a mark did, or why it did nothing. Each way a person's input can be wrong is a value
 * (the CLI and the console word it each their own way); only a failing store throws.
 */
export type MarkOutcome =
  | { kind: "marked"; source: string; reading: boolean; reason?: string }
  /** P24: "not read" needs a reason. */
  | { kind: "reason-missing"; source: string }
  /** Neither in a night's catalog nor imported and in use. */
  | { kind: "unknown-source"; source: string }
  /**
   * Retired by a catalog import (at `at`; renamed to `renamedTo`): no night reads it, so a mark
   * would hold nothing (P24, P26). Refused, as `nor backfill restart` of it is.
   */
  | Retired
  /**
   * Already so (read, or not read for this same reason): nothing is recorded, so a repeated
   * command does not restart the recheck calendar (P25). `since` is absent for a source
   * never marked, which is read.
   */
  | { kind: "already"; source: string; reading: boolean; since?: string; reason?: string };

/** P24: only a person changes whether a source is read; the change is kept, never overwritten. */
export async function markSource(db: Db, m: MarkInput): Promise<MarkOutcome> {
  const source = m.source;
  const reason = m.reason?.trim() || undefined;
  if (!m.reading && reason === undefined) return { kind: "reason-missing", source };
  // One an import retired is read by no night: refused, whatever nights read it before (their
  // copies of the catalog, night_catalog, still name it).
  const imported = await db
    .selectFrom("sources")
    .select(["retired_at", "renamed_to"])
    .where("id", "=", source)
    .executeTakeFirst();
  const retired = retiredOf(source, imported);
  if (retired) return retired;
  // One imported and in use, read by a night or not yet (`nor start` imports at once; the
  // first night may be hours away), or a source of a night's catalog.
  const known =
    imported ??
    (await db
      .selectFrom("night_catalog")
      .select("source_id")
      .where("source_id", "=", source)
      .executeTakeFirst());
  if (!known) return { kind: "unknown-source", source };
  // What is in force is read, and the mark and what it answers written, in one transaction
  // (serialised with every other writer): two marks sent at once (a form submitted twice) are
  // one mark and one "already".
  return writeTxn(db, async (tx): Promise<MarkOutcome> => {
    // PostgreSQL: two marks of this source (two hosts, the console and a shell) one after the
    // other, each reading the one before it.
    await lockMarksOf(tx, source);
    const latest = (await latestMarks(tx, [source])).get(source);
    const reading = latest === undefined || Number(latest.reading) === 1;
    if (reading === m.reading && (m.reading || (latest?.reason ?? undefined) === reason)) {
      return {
        kind: "already",
        source,
        reading,
        ...(latest ? { since: markShownAt(latest) } : {}),
        ...(latest?.reason ? { reason: latest.reason } : {}),
      };
    }
    // P24: the latest decision is the one in force: written after the latest mark, even from a
    // host whose clock is behind the one that wrote it (marks.ts markAt).
    const at = markAt(m.at, latest?.at);
    // Shown at its own host's time (marks.ts markShownAt), whatever its place in the order.
    const madeAt = toIso(m.at);
    // P25: the rechecks count from the marking night. On PostgreSQL the nights are the database
    // server's (store-clock.ts): a night named after the server's tonight came from a host whose
    // clock runs ahead (a year, say), and would hold the rechecks off until that date; it is
    // taken as the server's tonight.
    const tonight = dialectOf(tx) === "postgres" ? nightOf(await serverNow(tx)) : undefined;
    const night = tonight !== undefined && m.night > tonight ? tonight : m.night;
    await tx
      .insertInto("marks")
      .values({
        source_id: source,
        at,
        made_at: madeAt,
        reading: m.reading ? 1 : 0,
        reason: reason ?? null,
        by: m.by,
        night,
      })
      .execute();
    // P25: "it answers again" asked a person whether to read the source again; marking it read
    // is the answer, so that question is closed with the mark (by whom and when).
    if (m.reading) {
      await tx
        .updateTable("flags")
        .set({ cleared_at: madeAt, cleared_by: m.by })
        .where("source_id", "=", source)
        .where("kind", "=", "answers-again")
        .where("cleared_at", "is", null)
        .execute();
    }
    return { kind: "marked", source, reading: m.reading, ...(reason ? { reason } : {}) };
  });
}

/** The earliest night a store knows, and what says so (firstKnownNight). */
export type FirstNight = { night: string; from: "made" | "first-night" };

/**
 * The earliest night this store knows: the New York date it was made (the store keeps no date
 * of its own; the migrator's table, kysely_migration, keeps when each migration ran, the first
 * when the store was made) or its first night, whichever is earlier (`nor night --night` may
 * run a night dated before the store was made). No night before it can have been a night of
 * this store's: nothing was read, marked or flagged on it. Undefined only for a store that
 * records neither.
 */
export async function firstKnownNight(db: Db): Promise<FirstNight | undefined> {
  const [made, first] = await Promise.all([
    sql<{ at: string | null }>`select min("timestamp") as at from kysely_migration`.execute(db),
    db
      .selectFrom("nights")
      .select((eb) => eb.fn.min("night").as("night"))
      .executeTakeFirst(),
  ]);
  const at = Date.parse(made.rows[0]?.at ?? "");
  const madeNight = Number.isFinite(at) ? nightOf(at) : undefined;
  const firstNight = first?.night ?? undefined;
  if (firstNight !== undefined && (madeNight === undefined || firstNight <= madeNight))
    return { night: firstNight, from: "first-night" };
  return madeNight === undefined ? undefined : { night: madeNight, from: "made" };
}

export interface FlagRow {
  id: string;
  source: string;
  kind: string;
  night: string;
  detail: string;
  raisedAt: string;
  clearedAt: string | null;
  clearedBy: string | null;
}

export async function listFlags(db: Db, includeCleared: boolean): Promise<FlagRow[]> {
  let q = db.selectFrom("flags").selectAll().orderBy("raised_at", "asc").orderBy("id", "asc");
  if (!includeCleared) q = q.where("cleared_at", "is", null);
  const rows = await q.execute();
  return rows.map((r) => ({
    id: r.id,
    source: r.source_id,
    kind: r.kind,
    night: r.night,
    detail: r.detail,
    raisedAt: r.raised_at,
    clearedAt: r.cleared_at,
    clearedBy: r.cleared_by,
  }));
}

/** What clearing a flag did, or why it did nothing (a value, as for marks). */
export type ClearOutcome =
  | { kind: "cleared"; id: string; source: string; flag: string }
  | { kind: "unknown-flag"; id: string }
  | { kind: "already-cleared"; id: string; at: string; by: string | null };

/**
 * Clearing is recorded (who, when); the flag row stays. One conditional update, so of two
 * people clearing the same flag at once exactly one clears it and the other is told so.
 */
export async function clearFlag(db: Db, id: string, by: string, at: number): Promise<ClearOutcome> {
  const updated = await db
    .updateTable("flags")
    .set({ cleared_at: toIso(at), cleared_by: by })
    .where("id", "=", id)
    .where("cleared_at", "is", null)
    .executeTakeFirst();
  const row = await db
    .selectFrom("flags")
    .select(["id", "source_id", "kind", "cleared_at", "cleared_by"])
    .where("id", "=", id)
    .executeTakeFirst();
  if (!row) return { kind: "unknown-flag", id };
  if (Number(updated.numUpdatedRows) > 0)
    return { kind: "cleared", id, source: row.source_id, flag: row.kind };
  // Not updated, so cleared before (a flag is never un-cleared).
  if (row.cleared_at === null) throw new NorError("E_INTERNAL", `flag "${id}" was not cleared`);
  return { kind: "already-cleared", id, at: row.cleared_at, by: row.cleared_by };
}

export interface StatusRow {
  id: string;
  government: string;
  url: string;
  /** The source's own mark (P24): read unless a person marked it not read. */
  reading: boolean;
  /**
   * When a catalog import retired it (the catalog no longer lists it): no night reads it, its
   * records and outcomes kept. Absent for a source in use.
   */
  retiredAt?: string;
  notReadReason?: string;
  /**
   * P26: its site's owner asked the whole site not to be read (`nor site --not-read`), or asked
   * for paths to be left alone that cover every way the nights ask of it (set by the callers
   * through night/left-alone.ts sayLeftAlone: the night's decision, which this layer cannot
   * import), in these words: it is not read while that stands, whatever its own mark.
   */
  siteNotRead?: string;
  lastNight?: string;
  lastOutcome?: string;
  lastReason?: string;
  /** P4: the way in the last night used, absent when none worked (or none was tried). */
  way?: WayUsed;
  /** P4: the better ways the last night passed over, and why. */
  skipped: WaySkipped[];
  recordsKnown: number;
  newLastNight: number;
  flags: string[];
}

/** Whether a source is read, in a person's words: retired, its site's no, its own mark. */
export function readingText(r: StatusRow): string {
  if (r.retiredAt !== undefined) return `retired ${r.retiredAt}: no longer in the catalog`;
  if (r.siteNotRead !== undefined) return `not read: ${r.siteNotRead}`;
  return r.reading ? "read" : `not read: ${r.notReadReason ?? ""}`;
}

/**
 * Each source of the night's catalog, and each imported source in use that no night has read
 * yet (or those of `ids`), in id order, with its latest mark, its latest night's outcome, its
 * records and its open flags. The latest night is found per source through
 * night_sources_by_source, so the rows read grow with the sources, not with the nights kept.
 */
export async function statusRows(db: Db, ids?: readonly string[]): Promise<StatusRow[]> {
  if (ids?.length === 0) return [];
  const only = ids ? [...new Set(ids)] : undefined;
  // A night's catalog as the store's sources now stand: a source retired by an import since, or
  // whose government or address it changed, is said as imported (P26: not read once retired).
  let sq = db
    .selectFrom("night_catalog as nc")
    .leftJoin("sources as s", "s.id", "nc.source_id")
    .select([
      "nc.source_id as source_id",
      sql<string>`coalesce(${sql.ref("s.government_id")}, ${sql.ref("nc.government")})`.as(
        "government",
      ),
      sql<string>`coalesce(${sql.ref("s.url")}, ${sql.ref("nc.url")})`.as("url"),
      "s.retired_at as retired_at",
    ]);
  if (only) sq = sq.where("nc.source_id", "in", only);
  // Imported and not retired, not yet in a night's catalog: `nor start` before 01:00.
  let iq = db
    .selectFrom("sources")
    .select(["id as source_id", "government_id as government", "url", "retired_at"])
    .where("retired_at", "is", null)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom("night_catalog as nc")
            .select("nc.source_id")
            .whereRef("nc.source_id", "=", "sources.id"),
        ),
      ),
    );
  if (only) iq = iq.where("id", "in", only);
  const sources = [...(await sq.execute()), ...(await iq.execute())].sort((a, b) =>
    a.source_id < b.source_id ? -1 : a.source_id > b.source_id ? 1 : 0,
  );
  const rows = new Map<string, StatusRow>();
  for (const s of sources) {
    const row: StatusRow = {
      id: s.source_id,
      government: s.government,
      url: s.url,
      reading: true,
      skipped: [],
      recordsKnown: 0,
      newLastNight: 0,
      flags: [],
    };
    if (s.retired_at !== null) row.retiredAt = s.retired_at;
    rows.set(s.source_id, row);
  }
  for (const [id, m] of await latestMarks(db, only)) {
    const r = rows.get(id);
    if (!r) continue;
    r.reading = Number(m.reading) === 1;
    if (!r.reading && m.reason) r.notReadReason = m.reason;
  }
  // P24, P26: a site whose owner asked not to be read (`nor site --not-read`) reads none of its
  // sources, whatever their own marks say (which stay theirs: the console marks by them).
  for (const [id, { rule }] of await notReadSitesOf(db, rows.values())) {
    const r = rows.get(id);
    if (r) r.siteNotRead = siteNotReadReason(rule);
  }
  let oq = db
    .selectFrom("night_catalog as nc")
    .innerJoin("night_sources as ns", (join) =>
      join.onRef("ns.source_id", "=", "nc.source_id").on("ns.night", "=", (eb) =>
        eb
          .selectFrom("night_sources as x")
          .select((e) => e.fn.max("x.night").as("last"))
          .whereRef("x.source_id", "=", "nc.source_id"),
      ),
    )
    .select(["ns.source_id", "ns.night", "ns.outcome", "ns.reason", "ns.way", "ns.new_records"]);
  if (only) oq = oq.where("nc.source_id", "in", only);
  for (const o of await oq.execute()) {
    const r = rows.get(o.source_id);
    if (!r) continue;
    r.lastNight = o.night;
    r.lastOutcome = o.outcome;
    if (o.reason) r.lastReason = o.reason;
    const choice = parseWayChoice(o.way);
    if (choice?.used) r.way = choice.used;
    r.skipped = choice?.skipped ?? [];
    r.newLastNight = Number(o.new_records);
  }
  let cq = db
    .selectFrom("records")
    .select(["source_id", (eb) => eb.fn.countAll<number | string>().as("n")])
    .groupBy("source_id");
  if (only) cq = cq.where("source_id", "in", only);
  for (const c of await cq.execute()) {
    const r = rows.get(c.source_id);
    if (r) r.recordsKnown = Number(c.n);
  }
  let fq = db
    .selectFrom("flags")
    .select(["source_id", "kind"])
    .where("cleared_at", "is", null)
    .orderBy("raised_at")
    .orderBy("id");
  if (only) fq = fq.where("source_id", "in", only);
  for (const f of await fq.execute()) rows.get(f.source_id)?.flags.push(f.kind);
  return [...rows.values()];
}

export interface NightRow {
  night: string;
  startedAt: string;
  deadlineAt: string;
  finishedAt: string | null;
}

export interface SettledNights {
  /**
   * The night still under way at `now`, which `nor night` without --night resumes, with the
   * moment its time is over (closingTime).
   */
  resumable?: NightRow & { until: number };
  /** Nights found unfinished whose time was over: now closed, incomplete. */
  closed: NightRow[];
}

/**
 * The nights a process somewhere is running on this store, as the store says it: its process's
 * row in `night_runs` (night-runs.ts: written at its opening, renewed while it lives, deleted at
 * its end), or a lane of the night leased (not done) by a holder not dead (holder.ts holderDead: another host's lease
 * while it lasts, renewed by its working process; this host's while its process lives). What
 * a data directory's marks cannot say when machines share one PostgreSQL store, each with a
 * data directory of its own: a night run from another of them. On PostgreSQL judged by the
 * database server's time, as the leases are written (store-clock.ts), not by `hostNow`: a machine
 * whose clock runs behind would read a killed night as live for as long as it is behind, one
 * whose clock runs ahead a live one as long gone.
 */
export async function nightsLiveInStore(db: Db, hostNow: number): Promise<string[]> {
  const now = dialectOf(db) === "postgres" ? await serverNow(db) : hostNow;
  const rows = await db
    .selectFrom("night_lanes")
    .select(["night", "holder", "lease_until"])
    .where("done_at", "is", null)
    .where("holder", "is not", null)
    .where("lease_until", "is not", null)
    // Leases that ran out long ago are not read at all (holderDead judges the rest).
    .where("lease_until", ">", toIso(now - STALE_MS))
    .execute();
  const live = new Set<string>();
  for (const r of rows) {
    if (r.holder === null || r.lease_until === null) continue;
    // Another host's lease while it lasts; this host's while its process lives (holder.ts).
    if (!holderDead({ holder: r.holder, until: fromIso(r.lease_until, "night_lanes") }, now))
      live.add(r.night);
  }
  for (const n of await nightsRunInStore(db, now)) live.add(n);
  return [...live].sort();
}

/**
 * When an unfinished night's time ran out (`end`, its closing time), never before it began: a
 * night asked for by a past date begins after its time ran out, and is over from its start.
 */
function overAt(startedAt: string, end: number | undefined): number | undefined {
  if (end === undefined) return undefined;
  const began = Date.parse(startedAt);
  return Number.isNaN(began) ? end : Math.max(end, began);
}

/** A night's date and start, as closingTime's `nextStartedAt` is found among them. */
interface NightStart {
  night: string;
  start: number;
}

/** The nights begun at or after `from` (ISO), earliest first. */
async function nightStartsSince(db: Db, from: string): Promise<NightStart[]> {
  const rows = await db
    .selectFrom("nights")
    .select(["night", "started_at"])
    .where("started_at", ">=", from)
    .execute();
  return rows
    .map((r) => ({ night: r.night, start: Date.parse(r.started_at) }))
    .filter((r) => !Number.isNaN(r.start))
    .sort((a, b) => a.start - b.start);
}

/**
 * The start of the first night of a later date begun after `night` began, if one has: the next
 * night's start, known (closingTime's `nextStartedAt`).
 */
function nextStart(
  starts: readonly NightStart[],
  night: string,
  startedAt: string,
): number | undefined {
  const t = Date.parse(startedAt);
  if (Number.isNaN(t)) return undefined;
  return starts.find((s) => s.start > t && s.night > night)?.start;
}

/**
 * P13: an unfinished night (a process killed or stopped) may be resumed only while its time
 * lasts (closingTime: its own deadline, never more than 24 h after it began, whatever the
 * schedule; sooner once a night of a later date has begun; a night asked for by a past date only
 * by its name, `asked`, and otherwise over from its start). After that it is closed as
 * incomplete, its end set to that moment, so a plain `nor night` days later begins a new night
 * instead of resuming an old one. A night closed before its deadline has that moment as its
 * deadline from then on: nothing is asked in it after (a `nor night --night` of it records what
 * it never reached as unreached, and asks nothing). A night whose name is not a date (written by
 * an older version) is closed the same way instead of failing every run.
 */
export async function settleUnfinishedNights(
  db: Db,
  now: number,
  /**
   * Nights a live process is running (its mark, src/night/night-runners.ts): under way whatever
   * the calendar says (a past date asked for by name is over by it from its start), so never
   * closed under that process.
   */
  running: readonly string[] = [],
  /** The night asked for by its name (`nor night --night`), if one is. */
  asked?: string,
  /** The schedule begins tonight's night (`nor start`): see ScheduledStart. */
  scheduled?: ScheduledStart,
): Promise<SettledNights> {
  const judged = await judgeUnfinishedNights(db, now, asked, scheduled);
  const out: SettledNights = { closed: [] };
  if (judged.resumable !== undefined) out.resumable = judged.resumable;
  for (const { row, end } of judged.over) {
    if (running.includes(row.night)) continue;
    // Closed at the moment its time ran out (or now, when that cannot be read or a later
    // night is already under way).
    const over = overAt(row.startedAt, end);
    const at = toIso(over !== undefined && over < now ? over : now);
    // Its time ended before its deadline: so does its deadline, so that nothing is asked in it
    // from now on (the fetcher refuses a request after it; run-night.ts records the sources
    // left as unreached).
    const deadline = Date.parse(row.deadlineAt);
    const cut = Number.isNaN(deadline) || Date.parse(at) < deadline;
    await db
      .updateTable("nights")
      .set(cut ? { finished_at: at, deadline_at: at } : { finished_at: at })
      .where("night", "=", row.night)
      .where("finished_at", "is", null)
      .execute();
    out.closed.push({ ...row, deadlineAt: cut ? at : row.deadlineAt, finishedAt: at });
  }
  return out;
}

/**
 * `nor start` beginning tonight's night at its daily time (`nor night --scheduled`): the next
 * night's start is known, it is `at`, so a night of an earlier date is over then (closingTime's
 * nextStartedAt), whatever its deadline: with a deadline of 23 h or more (or across the spring
 * change of the clocks) an interrupted night of yesterday would otherwise be resumed in
 * tonight's place. A night of tonight's date (`night`) is resumed as ever.
 */
export interface ScheduledStart {
  /** Tonight's night (nightOf(at)). */
  night: string;
  /** The moment the schedule begins it. */
  at: number;
}

/**
 * The ScheduledStart of a night the schedule began at `began` (`nor night --scheduled`, and `nor
 * start` judging a restart of it): tonight's night is the date of that moment, whenever it is
 * read (a restart after midnight resumes it), and it began then, or `now` if that is sooner.
 */
export function scheduledStart(began: number, now = began): ScheduledStart {
  return { night: nightOf(began), at: Math.min(began, now) };
}

/**
 * The store's unfinished nights judged by closingTime at `now`, newest first, read only: the
 * one a `nor night` resumes (the newest whose time lasts), and the others, over, with the
 * moment their time ended. settleUnfinishedNights closes those; resumableNight reads the first.
 */
async function judgeUnfinishedNights(
  db: Db,
  now: number,
  asked: string | undefined,
  scheduled?: ScheduledStart,
): Promise<{
  resumable?: NightRow & { until: number };
  over: { row: NightRow; end: number | undefined }[];
}> {
  const rows = await db
    .selectFrom("nights")
    .select(["night", "started_at", "deadline_at"])
    .where("finished_at", "is", null)
    .orderBy("started_at", "desc")
    .execute();
  const oldest = rows.at(-1);
  if (oldest === undefined) return { over: [] };
  const starts = await nightStartsSince(db, oldest.started_at);
  let resumable: (NightRow & { until: number }) | undefined;
  const over: { row: NightRow; end: number | undefined }[] = [];
  for (const r of rows) {
    const next = nextStart(starts, r.night, r.started_at);
    const end = closingTime(r.started_at, r.deadline_at, r.night, {
      nextStartedAt:
        scheduled !== undefined && r.night < scheduled.night
          ? Math.min(next ?? Number.POSITIVE_INFINITY, scheduled.at)
          : next,
      byName: r.night === asked,
    });
    const row: NightRow = {
      night: r.night,
      startedAt: r.started_at,
      deadlineAt: r.deadline_at,
      finishedAt: null,
    };
    // A night dated after tonight was begun by a clock running ahead: never resumed under its
    // date (setAsideNightsAhead sets it aside), though its time by that clock is not over.
    if (
      end !== undefined &&
      now < end &&
      isNightDate(r.night) &&
      r.night <= nightOf(now) &&
      resumable === undefined
    )
      resumable = { ...row, until: end };
    else over.push({ row, end });
  }
  return resumable === undefined ? { over } : { resumable, over };
}

/**
 * A night closed incomplete (settleUnfinishedNights) that a `nor night --night` of it has just
 * run to record what it never reached (its deadline past: nothing asked): closed again at the
 * moment it was closed, its end as its time ran out rather than when those were recorded, so
 * `nor status` says it was closed incomplete, as that command said.
 */
export async function closeIncompleteAgain(db: Db, closed: NightRow): Promise<void> {
  if (closed.finishedAt === null) return;
  await db
    .updateTable("nights")
    .set({ finished_at: closed.finishedAt })
    .where("night", "=", closed.night)
    .where("finished_at", "is not", null)
    .execute();
}

/**
 * The night a plain `nor night` would resume at `now` (P13: unfinished and its time not over,
 * by the rule settleUnfinishedNights keeps: closingTime), with the moment its time is over; read only,
 * nothing is closed. `nor start` uses it to resume at once a night its own stop or a reboot
 * interrupted, and to start again one whose process a crash ended.
 */
export async function resumableNight(
  db: Db,
  now: number,
  /** The schedule begins tonight's night now (`nor night --scheduled`): see ScheduledStart. */
  scheduled?: ScheduledStart,
): Promise<(NightRow & { until: number }) | undefined> {
  return (await judgeUnfinishedNights(db, now, undefined, scheduled)).resumable;
}

export interface NightHistoryRow extends NightRow {
  runs: number;
  /** Sources with an outcome that night. */
  checked: number;
  /** Of them, not reached before the night's deadline (P13: they go first the next night). */
  unreached: number;
  /** Of them, asked and answered but cut short by the deadline (P13, P15: they go first too). */
  cutShort: number;
  /** Of the unreached, those their site's wait or its owner's pace held past the night (P13). */
  held: number;
  /** Of the unreached, those whose site was down that night (a 5xx after its retries). */
  down?: number;
  /**
   * Of the cut short, those the deadline did not cut (P25: a recheck whose redirect's next
   * request, or its own retry, was not sent as its site was down or asked to wait): reached,
   * owing nothing, not asked the next night. Absent: none.
   */
  cutNotByDeadline?: number;
  /** Closed by `settleUnfinishedNights`: interrupted and not resumed in time. */
  closedIncomplete: boolean;
  /**
   * Unfinished only: when its time is over (P13, closingTime, the rule `nor night` and `nor
   * start` keep): `nor night` resumes it until then, and closes it as incomplete after.
   */
  until?: string;
  /**
   * Unfinished only, and only when so: asked for by a past date (begun after its own date was
   * over), so resumed until `until` only by its name (`nor night --night`); a plain `nor night`
   * closes it as incomplete and begins tonight's night.
   */
  pastDate?: true;
  /**
   * How it ran without its catalog files, and why (migration 025, `nor night
   * --or-stored-catalog`); absent when it ran its files.
   */
  catalogNote?: string;
}

/**
 * Whether a finished night was closed incomplete (settleUnfinishedNights: interrupted, and not
 * resumed before its time was over) rather than run to its end: its end is exactly the moment
 * its time ran out by closingTime (its name resuming it; `next`, the first start of a night of a
 * later date), for a night asked for by a past date its start (a plain `nor night` closed it),
 * or, closed by versions before closingTime's rule, 01:00 New York the next date. A night that
 * ran to its end finishes when its last source is done.
 */
export function wasClosedIncomplete(
  n: { night: string; started_at: string; deadline_at: string; finished_at: string | null },
  next: number | undefined,
): boolean {
  if (n.finished_at === null) return false;
  const end = closingTime(n.started_at, n.deadline_at, n.night, {
    nextStartedAt: next,
    byName: true,
  });
  const pastDate = begunAfterItsDate(n.night, Date.parse(n.started_at));
  const closedAt = [
    end,
    pastDate ? Date.parse(n.started_at) : undefined,
    legacyClosingTime(n.started_at, n.deadline_at, n.night),
  ]
    .map((e) => overAt(n.started_at, e))
    .flatMap((e) => (e === undefined ? [] : [toIso(e)]));
  return closedAt.includes(n.finished_at);
}

/**
 * The nights of `rows` (finished or not) that were closed incomplete (wasClosedIncomplete), each
 * judged against the first start of a night of a later date in the store: for the public pages
 * and the console, which say it as `nor status` does.
 */
export async function closedIncompleteNights(
  db: Db,
  rows: readonly {
    night: string;
    started_at: string;
    deadline_at: string;
    finished_at: string | null;
  }[],
): Promise<Set<string>> {
  const done = rows.filter((r) => r.finished_at !== null);
  const out = new Set<string>();
  if (done.length === 0) return out;
  const oldest = done.map((r) => r.night).sort()[0] ?? "";
  const later = await db
    .selectFrom("nights")
    .select(["night", "started_at"])
    .where("night", ">", oldest)
    .execute();
  // Newest date first, the earliest start among the later dates carried along: one pass.
  const newestFirst = (x: { night: string }, y: { night: string }) =>
    x.night < y.night ? 1 : x.night > y.night ? -1 : 0;
  const starts = later
    .map((l) => ({ night: l.night, at: Date.parse(l.started_at) }))
    .filter((l) => !Number.isNaN(l.at))
    .sort(newestFirst);
  let j = 0;
  let next: number | undefined;
  for (const r of [...done].sort(newestFirst)) {
    for (let s = starts[j]; s !== undefined && s.night > r.night; s = starts[++j])
      next = next === undefined || s.at < next ? s.at : next;
    if (wasClosedIncomplete(r, next)) out.add(r.night);
  }
  return out;
}

/** The latest nights, newest first, for `nor status`: when each ran and whether it finished. */
export async function recentNights(db: Db, limit: number): Promise<NightHistoryRow[]> {
  const nights = await db
    .selectFrom("nights")
    .selectAll()
    .orderBy("started_at", "desc")
    .limit(limit)
    .execute();
  const out: NightHistoryRow[] = [];
  for (const [i, n] of nights.entries()) {
    // Newest first: the nights begun after this one are those before it in the list.
    const next = nights
      .slice(0, i)
      .filter((l) => l.night > n.night)
      .map((l) => Date.parse(l.started_at))
      .filter((t) => !Number.isNaN(t))
      .reduce<number | undefined>((a, t) => (a === undefined || t < a ? t : a), undefined);
    const c = await db
      .selectFrom("night_sources")
      .select((eb) => [
        eb.fn.countAll<number | string>().as("n"),
        eb.fn
          .sum<number | string | null>(
            eb.case().when("outcome", "=", "unreached").then(1).else(0).end(),
          )
          .as("unreached"),
        eb.fn
          .sum<number | string | null>(
            eb.case().when("outcome", "=", "cut-short").then(1).else(0).end(),
          )
          .as("cut_short"),
        eb.fn.sum<number | string | null>(heldCase).as("held"),
        eb.fn.sum<number | string | null>(downCase).as("down"),
      ])
      .where("night", "=", n.night)
      .executeTakeFirst();
    const checked = Number(c?.n ?? 0);
    const unreached = Number(c?.unreached ?? 0);
    const cutShort = Number(c?.cut_short ?? 0);
    const held = Number(c?.held ?? 0);
    const down = Number(c?.down ?? 0);
    const cutNotByDeadline = cutShort > 0 ? await cutNotByDeadlineOf(db, n.night) : 0;
    // Its time as its name resumes it (for most nights the same as for a plain `nor night`).
    const end = closingTime(n.started_at, n.deadline_at, n.night, {
      nextStartedAt: next,
      byName: true,
    });
    const pastDate = begunAfterItsDate(n.night, Date.parse(n.started_at));
    const closedIncomplete = wasClosedIncomplete(n, next);
    out.push({
      night: n.night,
      startedAt: n.started_at,
      deadlineAt: n.deadline_at,
      finishedAt: n.finished_at,
      runs: Number(n.runs),
      checked,
      unreached,
      cutShort,
      held,
      down,
      ...(cutNotByDeadline > 0 ? { cutNotByDeadline } : {}),
      closedIncomplete,
      ...(n.finished_at === null && end !== undefined
        ? { until: toIso(overAt(n.started_at, end) ?? end) }
        : {}),
      ...(n.finished_at === null && pastDate ? { pastDate: true as const } : {}),
      ...(n.catalog_note !== null && n.catalog_note !== undefined
        ? { catalogNote: n.catalog_note }
        : {}),
    });
  }
  return out;
}

/**
 * The night of this store begun last by the clock (its `started_at`), whatever its date: what a
 * past night asked for by date is held to (P11: a source is asked about once a day).
 */
export async function lastBegunNight(
  db: Db,
): Promise<{ night: string; startedAt: string } | undefined> {
  const r = await db
    .selectFrom("nights")
    .select(["night", "started_at"])
    .orderBy("started_at", "desc")
    .limit(1)
    .executeTakeFirst();
  return r ? { night: r.night, startedAt: r.started_at } : undefined;
}

/** A night recorded by a clock running ahead, set aside by setAsideNightsAhead. */
export interface NightSetAside {
  night: string;
  startedAt: string;
  finishedAt: string | null;
  /** Its sources' outcomes as recorded ahead (removed with it). */
  outcomes: number;
  /** Its requests, kept on the request log with their times as stamped (no night named now). */
  requests: number;
}

/**
 * P13, P11: the nights of this store dated after `tonight` (the date now, by the clock that
 * judges: this host's, or on PostgreSQL the database server's) were recorded while the clock ran
 * ahead (a VM restored with a wrong clock, an RTC set wrong, then NTP set it right): no night of a
 * date still to come has been run. Such a row must not stand for its date's night when that date
 * really comes (its sources were asked on an earlier date, whichever: it cannot be known), nor be
 * resumed under that date now (interrupted, its time by the clock ahead not over). Each one no
 * live process runs (`live`), finished or not, is set aside, in one
 * transaction: its row, its lanes and its sources' outcomes are removed, so its date's night,
 * when it comes, is run as any other night; its requests stay on the request log as stamped
 * (P27), their night no longer named (so nothing is replayed from them as a night's answer, P8,
 * nor counted as that night's attempts); its stored copies stay, saved by no night (none is that
 * date's answer, P8); the records it found stay found, first seen tonight (P26: new on record
 * now, not on a date still to come; first seen, or changed, now at the latest). A site it found
 * closed (a no, P21) or down is held so tonight instead of on that date, with its reason (the answer
 * may have come tonight by the real calendar: when in doubt, not sent), and so is an origin whose
 * robots.txt it found unreachable (P20); a robots.txt copy of rules it read is dropped from the
 * cache (P16, P18: of no age a clock can tell, never its date's read). Read and written under the
 * night's opening lock; returned, to be said.
 */
export async function setAsideNightsAhead(
  db: Db,
  tonight: string,
  live: readonly string[],
  now: number,
): Promise<NightSetAside[]> {
  return writeTxn(db, async (tx) => {
    const rows = await tx
      .selectFrom("nights")
      .select(["night", "started_at", "finished_at"])
      .where("night", ">", tonight)
      .orderBy("night", "asc")
      .execute();
    const out: NightSetAside[] = [];
    for (const r of rows) {
      if (live.includes(r.night)) continue;
      const outcomes = await tx
        .deleteFrom("night_sources")
        .where("night", "=", r.night)
        .executeTakeFirst();
      await tx.deleteFrom("night_lanes").where("night", "=", r.night).execute();
      const requests = await tx
        .updateTable("request_log")
        .set({ night: null })
        .where("night", "=", r.night)
        .executeTakeFirst();
      // Its stored copies stay (P8), no night's answer (migration 038: a copy is the answer of
      // the night that saved it only), though their time falls in that date's night.
      await tx.updateTable("captures").set({ night: null }).where("night", "=", r.night).execute();
      // P26: the records it found appeared by now: new on record tonight at the latest, never
      // first on a date still to come (when no night found them).
      await tx
        .updateTable("records")
        .set({ first_seen_night: tonight })
        .where("first_seen_night", "=", r.night)
        .execute();
      // P20: an origin whose robots.txt it found unreachable is held so tonight, as a site it
      // closed is. P16, P18: a copy of rules it read (its age by no clock to be told: days, by
      // the time its date comes) is no night's own read: gone from the cache, read afresh.
      await tx
        .updateTable("robots_cache")
        .set({ night: tonight })
        .where("night", "=", r.night)
        .where("state", "=", "unreachable")
        .execute();
      await tx.deleteFrom("robots_cache").where("night", "=", r.night).execute();
      for (const column of ["closed_night", "down_night"] as const)
        await tx
          .updateTable("site_state")
          .set({ [column]: tonight })
          .where(column, "=", r.night)
          .execute();
      await tx.deleteFrom("nights").where("night", "=", r.night).execute();
      out.push({
        night: r.night,
        startedAt: r.started_at,
        finishedAt: r.finished_at,
        outcomes: Number(outcomes.numDeletedRows),
        requests: Number(requests.numUpdatedRows),
      });
    }
    // P26: no record first seen, or brought up to date, at a time still to come (a feed's entry
    // dated days ahead, first in every newest list until then): such a time was stamped by a
    // clock running ahead (one set right stamps none after now), by a night set aside here or
    // before, or by one that ran ahead within its own date; it reads now at the latest. Every
    // record, whichever night found or changed it: one pass over the table a night.
    const at = new Date(now).toISOString();
    await tx
      .updateTable("records")
      .set({
        first_seen_at: sql<string>`case when first_seen_at > ${at} then ${at} else first_seen_at end`,
        changed_at: sql<string | null>`case when changed_at > ${at} then ${at} else changed_at end`,
      })
      .where((eb) => eb.or([eb("first_seen_at", ">", at), eb("changed_at", ">", at)]))
      .execute();
    return out;
  });
}

/**
 * The nights of this store dated after `night`, each with its `started_at`: what a night asked
 * for by date is held to by the order of dates (a past night is not begun after a later one),
 * unless every one of them began in the future of now (recorded under a clock running ahead).
 */
export async function nightsDatedAfter(
  db: Db,
  night: string,
): Promise<{ night: string; startedAt: string }[]> {
  const rows = await db
    .selectFrom("nights")
    .select(["night", "started_at"])
    .where("night", ">", night)
    .orderBy("night", "asc")
    .execute();
  return rows.map((r) => ({ night: r.night, startedAt: r.started_at }));
}

/** The latest night this store has opened, by date, if any. */
export async function latestNight(db: Db): Promise<string | undefined> {
  const r = await db
    .selectFrom("nights")
    .select((eb) => eb.fn.max("night").as("night"))
    .executeTakeFirst();
  return r?.night ?? undefined;
}

/**
 * P1, P2: the User-Agent this process's requests carry in `night`, written once the night is
 * open, in one statement that takes it only when the night has none yet or the same: a night
 * introduces itself one way (every process that runs or resumes it, on any machine), so the
 * site-owners page, which shows the last night's, names the contact every request of that night
 * carried. Returns the night's other User-Agent when it already has one (nothing is written).
 */
export async function recordNightUserAgent(
  db: Db,
  night: string,
  userAgent: string,
): Promise<string | undefined> {
  const done = await db
    .updateTable("nights")
    .set({ user_agent: userAgent })
    .where("night", "=", night)
    .where((eb) => eb.or([eb("user_agent", "is", null), eb("user_agent", "=", userAgent)]))
    .executeTakeFirst();
  if (Number(done.numUpdatedRows) > 0) return undefined;
  return nightUserAgent(db, night);
}

/**
 * How `night` runs without its catalog files, and why (the files unreadable or invalid: the
 * sources the store last imported; their import refused: those in use they list unchanged),
 * written once the night is open, by a run that starts or resumes work on it (a finished night
 * run again with nothing left to do writes nothing): the latest process's note stands (one that ran its files
 * writes nothing, so a night resumed with the files mended still says it ran, in part, without
 * them). At most CATALOG_NOTE_MAX characters.
 */
export async function recordNightCatalogNote(db: Db, night: string, note: string): Promise<void> {
  await db
    .updateTable("nights")
    .set({ catalog_note: note.slice(0, CATALOG_NOTE_MAX) })
    .where("night", "=", night)
    .execute();
}

/**
 * How the note of a night that runs only the sources in use its catalog files list unchanged
 * (their import refused) begins: such a night is joined by no other process (`nor night`).
 */
export const SUBSET_NOTE = "the import of its catalog files was refused, so it ran only the";

/** Whether `night` runs only some of the sources in use (SUBSET_NOTE). */
export async function nightRunsSubset(db: Db, night: string): Promise<boolean> {
  const r = await db
    .selectFrom("nights")
    .select("catalog_note")
    .where("night", "=", night)
    .executeTakeFirst();
  return r?.catalog_note?.startsWith(SUBSET_NOTE) === true;
}

/** The longest reason kept on a night (a catalog of many problems says its first ones). */
export const CATALOG_NOTE_MAX = 2000;

/** The User-Agent `night` recorded when it began, if it began and recorded one. */
export async function nightUserAgent(db: Db, night: string): Promise<string | undefined> {
  const r = await db
    .selectFrom("nights")
    .select("user_agent")
    .where("night", "=", night)
    .executeTakeFirst();
  return r?.user_agent ?? undefined;
}

/**
 * The latest night's User-Agent. Prepared (prepared.ts), so that on SQLite it is read at once,
 * on the store's read-only connection, while the store's own is taken (a write waiting for the
 * write lock another process holds, db.ts waitForLock): /site-owners never waits for it.
 */
const LAST_USER_AGENT = prepared((db) =>
  db
    .selectFrom("nights")
    .select("user_agent")
    .where("user_agent", "is not", null)
    .orderBy("night", "desc")
    .limit(1),
);

/**
 * The User-Agent the checker last sent: the latest night's that recorded one (a night from
 * before migration 017 has none). What the site-owners page shows (P2: it never drifts).
 */
export async function lastNightUserAgent(db: Db): Promise<string | undefined> {
  const r = await LAST_USER_AGENT.first(db, {});
  return r?.user_agent ?? undefined;
}

/** A night's row, if it was ever opened (to say "resuming" and its own deadline). */
export async function nightRow(db: Db, night: string): Promise<NightRow | undefined> {
  const r = await db.selectFrom("nights").selectAll().where("night", "=", night).executeTakeFirst();
  return r
    ? {
        night: r.night,
        startedAt: r.started_at,
        deadlineAt: r.deadline_at,
        finishedAt: r.finished_at,
      }
    : undefined;
}

/**
 * The request_log rows a night sent, as its summary and the console's night report count them
 * alike: not a row completed without being sent (NOT_SENT: the site saw nothing of it), nor one
 * the checker's own address check refused before anything left this machine (blocked-address,
 * P3), the rule policy/admission.ts leftThisMachine gives a night's progress; nor `nor
 * discover`'s, whose rows carry the night's date (P16, P20: its robots.txt answers hold for it)
 * but are not the night's work (its source: DISCOVER_SOURCE, which no catalog id can be).
 */
export const sentByTheNight = (eb: ExpressionBuilder<Database, "request_log">) =>
  eb.and([
    eb.or([eb("failure", "is", null), eb("failure", "not like", `${NOT_SENT}%`)]),
    // The outcome a request the address check refused is logged with (net/classify.ts).
    eb("outcome", "!=", "blocked-address"),
    eb.or([eb("source", "is", null), eb("source", "!=", DISCOVER_SOURCE)]),
  ]);

/** P27, P24: the requests made and the flags raised during a night, for its summary. */
export async function nightTotals(
  db: Db,
  night: string,
): Promise<{
  requests: number;
  flagsRaised: number;
  /** The sources with an outcome tonight, by its kind, whichever process checked each. */
  outcomes: Record<string, number>;
  /** How many sources have an outcome tonight. */
  checked: number;
  /** Records first seen tonight and new on record, as each source's commit counted them. */
  newRecords: number;
  /** Records first seen tonight but already listed (first reads, a backfill's older pages, P7). */
  alreadyListed: number;
  /** Of the unreached, those their site's wait or its owner's pace held past the night (P13). */
  held: number;
  /** Of the unreached, those whose site was down tonight (a 5xx after a request's retries). */
  down: number;
  /**
   * Of the cut short, those the night's time limit did not cut: a recheck whose redirect's next
   * request was not sent as its site was down tonight or asked to wait (P25, night/outcome.ts).
   */
  cutNotByDeadline: number;
}> {
  const byOutcome = await db
    .selectFrom("night_sources")
    .select((eb) => [
      "outcome",
      eb.fn.countAll<number | string>().as("n"),
      eb.fn.sum<number | string | null>("new_records").as("fresh"),
      eb.fn.sum<number | string | null>(heldCase).as("held"),
      eb.fn.sum<number | string | null>(downCase).as("down"),
    ])
    .where("night", "=", night)
    .groupBy("outcome")
    .execute();
  const outcomes: Record<string, number> = {};
  let checked = 0;
  let newRecords = 0;
  let held = 0;
  let down = 0;
  for (const r of byOutcome) {
    held += Number(r.held ?? 0);
    down += Number(r.down ?? 0);
    outcomes[r.outcome] = Number(r.n);
    checked += Number(r.n);
    newRecords += Number(r.fresh ?? 0);
  }
  const cutNotByDeadline = await cutNotByDeadlineOf(db, night);
  const requests = await db
    .selectFrom("request_log")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .where("night", "=", night)
    .where(sentByTheNight)
    .executeTakeFirst();
  const flags = await db
    .selectFrom("flags")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .where("night", "=", night)
    .executeTakeFirst();
  const listed = await db
    .selectFrom("records")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .where("first_seen_night", "=", night)
    .where("already_listed", "=", sql.lit(1))
    .executeTakeFirst();
  return {
    requests: Number(requests?.n ?? 0),
    flagsRaised: Number(flags?.n ?? 0),
    outcomes,
    checked,
    newRecords,
    alreadyListed: Number(listed?.n ?? 0),
    held,
    down,
    cutNotByDeadline,
  };
}

/**
 * P13, P25: of a night's sources cut short, those the deadline did not cut (a recheck whose
 * redirect's next request, or its own retry, was not sent as its site was down or asked to
 * wait): read by their words, the few cut short only.
 */
async function cutNotByDeadlineOf(db: Db, night: string): Promise<number> {
  const cut = await db
    .selectFrom("night_sources")
    .select("reason")
    .where("night", "=", night)
    // A literal: night_sources' outcome index is partial on it (a bound value would have SQLite
    // prepare the statement again at every run).
    .where("outcome", "=", sql.lit("cut-short"))
    .execute();
  return cut.filter((r) => !cutByTheDeadline(r.reason)).length;
}

/** The night still under way at `now` (started, not finished, its deadline not passed), if any. */
export async function nightUnderWay(db: Db, now: number): Promise<string | undefined> {
  const row = await db
    .selectFrom("nights")
    .select("night")
    .where("finished_at", "is", null)
    .where("deadline_at", ">", toIso(now))
    .orderBy("started_at", "desc")
    .executeTakeFirst();
  return row?.night;
}
