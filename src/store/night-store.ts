/**
 * The NightStore and ValidatorStore over kysely (SQLite or PostgreSQL, same code). `commit`
 * is one transaction per source: outcome, records, validators, backfill cursor and flags
 * land together or not at all, which is what makes `kill -9` then `nor night` safe.
 */

import type { ExpressionBuilder } from "kysely";
import type {
  CatalogRow,
  Committed,
  LaneState,
  LastAttempt,
  NightState,
  NightStore,
  SourceNow,
  SourceTurn,
  TonightHistory,
  TonightOutcome,
} from "../night/ports.js";
import type { KnownPageRead, ValidatorStore } from "../night/reader.js";
import {
  closedUnasked,
  FLAGS_TOLD_BY_DETAIL,
  type NightOutcomeKind,
  NOT_ASKED_OUTCOMES,
  NOT_CHECKED_OUTCOMES,
  NOT_JUDGED_OUTCOMES,
  SITE_CLOSED_REASON,
  type SourceResult,
} from "../night/types.js";
import { SITE_DOWN, SITE_WAIT } from "../policy/admission.js";
import { HISTORY_NIGHTS, LANE_LEASE_MS } from "../policy/constants.js";
import { addDays } from "../policy/night-date.js";
import { lookOf, shownAsHeld, showsAnyOf } from "../policy/way-identity.js";
import { backfillOfRow, cursorJson, overflowColumns, overflowOfRow } from "./backfill.js";
import { relabelCheckerOffline } from "./checker-offline.js";
import type { Db } from "./db.js";
import { dialectOf } from "./dialect-of.js";
import { GroupCommit } from "./group-commit.js";
import { holderDead } from "./holder.js";
import { fromIso, toIso } from "./iso-time.js";
import { sql } from "./kysely.js";
import { marksInForce } from "./marks.js";
import {
  chunks,
  insertRecords,
  type ReadsBeforeArgs,
  type ReadsBeforeRow,
  readsBeforeArgs,
  readsBeforeColumns,
} from "./night-records.js";
import { asStored } from "./no-nul.js";
import { type Placeholder, prepared } from "./prepared.js";
import type { Database } from "./schema/index.js";
import { type Tx, writeTxn, writeTxnRetried } from "./write-txn.js";

/**
 * P13, P21: 1 for a source not asked because its site had said no earlier that night (its own
 * page sent nothing, night/outcome.ts closedUnasked): not reached, for the next night's order.
 */
const closedCond = sql`outcome = 'refused' and (reason = ${SITE_CLOSED_REASON} or substr(reason, 1, ${sql.lit(SITE_CLOSED_REASON.length + 2)}) = ${`${SITE_CLOSED_REASON}: `})`;
const closedUnaskedCase = sql<number>`case when ${closedCond} then 1 else 0 end`;
/**
 * Where such a source's check ended and the way it asked, on those rows alone (null on the rest):
 * one whose own page was asked and whose redirect hop met another site's no is not unasked.
 */
const closedUrlCase = sql<string | null>`case when ${closedCond} then url end`;
const closedWayCase = sql<string | null>`case when ${closedCond} then way end`;

/**
 * 1 for a night's source not reached as its site was down (a 5xx after a request's retries) or
 * asked to wait past the night: its site's pages read were kept from that night too (P25, P13:
 * not a recheck kept from its turn by its site's pages read filling the night).
 */
const siteHeldCase = sql<number>`case when substr(reason, 1, ${sql.lit(SITE_DOWN.length)}) = ${SITE_DOWN} or substr(reason, 1, ${sql.lit(SITE_WAIT.length)}) = ${SITE_WAIT} then 1 else 0 end`;

export class SqlNightStore implements NightStore, ValidatorStore {
  readonly #db: Db;
  /**
   * Sources' results that finish together share one transaction and so one fsync (P8: each
   * result is still durable before `commit` resolves). Pass the journal's, so a result and
   * the request rows finishing beside it share one commit too.
   */
  readonly #group: GroupCommit;
  constructor(db: Db, group?: GroupCommit) {
    this.#db = db;
    this.#group = group ?? new GroupCommit(db);
  }

  async openNight(night: string, now: number, deadlineAt: number): Promise<NightState> {
    // Reads, then writes: the write lock first (BEGIN IMMEDIATE), so a second process opening
    // the same night waits its turn instead of failing with SQLITE_BUSY_SNAPSHOT.
    return writeTxn(this.#db, async (trx) => {
      const row = await trx
        .selectFrom("nights")
        .selectAll()
        .where("night", "=", night)
        .executeTakeFirst();
      if (row) {
        await trx
          .updateTable("nights")
          .set({ runs: row.runs + 1, finished_at: null })
          .where("night", "=", night)
          .execute();
        const state: NightState = {
          night,
          startedAt: fromIso(row.started_at, `nights ${night}`),
          deadlineAt: fromIso(row.deadline_at, `nights ${night}`),
          resumed: true,
        };
        if (row.finished_at !== null)
          state.finishedAt = fromIso(row.finished_at, `nights ${night}`);
        return state;
      }
      // Two machines opening the same night at once (PostgreSQL): the second one in joins.
      const inserted = await trx
        .insertInto("nights")
        .values({
          night,
          started_at: toIso(now),
          deadline_at: toIso(deadlineAt),
          finished_at: null,
          runs: 1,
        })
        .onConflict((oc) => oc.column("night").doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 1n) === 0) {
        const other = await trx
          .selectFrom("nights")
          .selectAll()
          .where("night", "=", night)
          .executeTakeFirstOrThrow();
        return {
          night,
          startedAt: fromIso(other.started_at, `nights ${night}`),
          deadlineAt: fromIso(other.deadline_at, `nights ${night}`),
          resumed: true,
        };
      }
      return { night, startedAt: now, deadlineAt, resumed: false };
    });
  }

  async syncSources(rows: readonly CatalogRow[], now: number): Promise<void> {
    const at = toIso(now);
    await this.#db.transaction().execute(async (trx) => {
      for (const part of chunks(rows)) {
        await trx
          .insertInto("night_catalog")
          .values(
            part.map((r) => ({
              source_id: r.id,
              government: r.government,
              url: r.url,
              site: r.site,
              updated_at: at,
            })),
          )
          .onConflict((oc) =>
            oc.column("source_id").doUpdateSet({
              government: (eb) => eb.ref("excluded.government"),
              url: (eb) => eb.ref("excluded.url"),
              site: (eb) => eb.ref("excluded.site"),
              updated_at: (eb) => eb.ref("excluded.updated_at"),
            }),
          )
          .execute();
      }
    });
  }

  async histories(night: string, ids: readonly string[]): Promise<Map<string, TonightHistory>> {
    const out = new Map<string, TonightHistory>();
    for (const id of ids)
      out.set(id, {
        reading: true,
        doneTonight: false,
        unreachedLast: false,
        recentOutcomes: [],
        recordsKnown: 0,
      });
    const since = addDays(night, -HISTORY_NIGHTS);
    const rows = await this.#db
      .selectFrom("night_sources")
      .select([
        "source_id",
        "night",
        "outcome",
        "ended_at",
        "duration_ms",
        siteHeldCase.as("site_held"),
        closedUnaskedCase.as("closed_unasked"),
        closedUrlCase.as("closed_url"),
        closedWayCase.as("closed_way"),
      ])
      .where("night", ">=", since)
      .where("night", "<=", night)
      .orderBy("night", "desc")
      .execute();
    for (const r of rows) {
      const h = out.get(r.source_id);
      if (!h) continue;
      if (r.night === night) {
        // P20, P23: a source the checker could not judge (offline) is checked again on resume.
        if (r.outcome !== "checker-offline") h.doneTonight = true;
        continue;
      }
      const kind = r.outcome as NightOutcomeKind;
      // P13, P21: not reached, or not asked as its site's no earlier that night closed it.
      const unasked =
        Number(r.closed_unasked) === 1 &&
        closedUnasked(kind, SITE_CLOSED_REASON, r.closed_url, usedUrlOf(r.closed_way));
      if (h.recentOutcomes.length === 0) {
        h.unreachedLast = NOT_CHECKED_OUTCOMES.has(kind) || unasked;
        if (unasked) h.closedLast = true;
      }
      // P25, P13: the latest night it was reached (a recheck owed since is asked tonight).
      if (h.lastReachedNight === undefined && !NOT_ASKED_OUTCOMES.has(kind))
        h.lastReachedNight = r.night;
      // P25, P13: the latest nights running not reached for want of time (lanes.ts waitedTwice).
      if (h.recentOutcomes.length === (h.unreachedRun ?? 0) && kind === "unreached")
        if (Number(r.site_held) !== 1) h.unreachedRun = (h.unreachedRun ?? 0) + 1;
      h.recentOutcomes.push(kind);
      // A night it was not checked (not reached, the checker offline, left alone at its site
      // owner's request) says nothing of when it last was, nor of how long a check takes.
      // Nor a night its site's no kept it from being asked.
      if (!NOT_JUDGED_OUTCOMES.has(kind) && !unasked && h.lastCheckedAt === undefined) {
        h.lastCheckedAt = fromIso(r.ended_at, "night_sources.ended_at");
        h.lastDurationMs = r.duration_ms;
      }
    }
    // Each list at its length: an array pushed to keeps room for 16 and more, 20,000 of them
    // held by the night's plan (docs/benchmarks.md "A night's memory").
    for (const h of out.values())
      if (h.recentOutcomes.length > 0) h.recentOutcomes = h.recentOutcomes.slice();
    const counts = await this.#db
      .selectFrom("records")
      .select(["source_id", (eb) => eb.fn.countAll<number | string>().as("n")])
      .groupBy("source_id")
      .execute();
    for (const c of counts) {
      const h = out.get(c.source_id);
      if (h) h.recordsKnown = Number(c.n);
    }
    // Every mark, not `ids` (a night may hold more sources than one SQL statement takes).
    for (const [id, m] of await marksInForce(this.#db)) {
      const h = out.get(id);
      if (!h) continue;
      h.reading = Number(m.mark.reading) === 1;
      if (!h.reading && m.notReadSince !== undefined) h.markedNight = m.notReadSince;
    }
    // P25, P9: where a source marked not read last ended a judged check, and the catalog URL it
    // asked (its recheck's lane, run-night.ts). Only those few sources' rows are read.
    const notRead = [...out].filter(([, h]) => !h.reading).map(([id]) => id);
    const judged = new Set<string>();
    for (const part of chunks(notRead)) {
      const ends = await this.#db
        .selectFrom("night_sources")
        .select(["source_id", "outcome", "url", "way"])
        .where("source_id", "in", part)
        .where("night", ">=", since)
        .where("night", "<", night)
        .orderBy("night", "desc")
        .execute();
      for (const e of ends) {
        const h = out.get(e.source_id);
        if (!h || judged.has(e.source_id)) continue;
        if (NOT_JUDGED_OUTCOMES.has(e.outcome as NightOutcomeKind)) continue;
        judged.add(e.source_id);
        const asked = usedUrlOf(e.way);
        if (e.url !== null && asked !== undefined) h.lastEnd = { url: e.url, asked };
      }
    }
    const bfs = await this.#db.selectFrom("backfill").selectAll().execute();
    for (const b of bfs) {
      const h = out.get(b.source_id);
      if (!h) continue;
      h.backfill = backfillOfRow(b);
      const pending = overflowOfRow(b);
      if (pending) h.overflow = pending;
    }
    // P11: the catalog URLs that moved permanently, asked where they moved.
    const moves = await this.#db
      .selectFrom("source_moves")
      .select(["source_id", "from_url", "to_url", "night"])
      .orderBy("source_id")
      .orderBy("from_url")
      .execute();
    for (const m of moves) {
      const h = out.get(m.source_id);
      if (!h) continue;
      const moved = h.moved ?? [];
      moved.push({ from: m.from_url, to: m.to_url, night: m.night });
      h.moved = moved;
    }
    return out;
  }

  /**
   * Several sources' results in one transaction, each written as `commit` writes it: all land
   * or none. For loading a store in bulk (the benchmarks); a night commits one source at a time.
   */
  async commitMany(night: string, results: readonly SourceResult[]): Promise<number> {
    return this.#db.transaction().execute(async (trx) => {
      let newRecords = 0;
      for (const r of results) newRecords += (await this.commit(night, r, trx)).newRecords;
      return newRecords;
    });
  }

  /**
   * One source's result, all of it or none: in a group commit (a part of a transaction
   * shared with the results and request rows that finish beside it), or `within` a
   * transaction already open.
   */
  async commit(night: string, r: SourceResult, within?: Tx): Promise<Committed> {
    const inTxn = <T>(fn: (trx: Tx) => Promise<T>): Promise<T> =>
      within ? fn(within) : this.#group.run(fn);
    return inTxn(async (trx) => {
      // The outcome row first, as the claim: a worker whose lane lease ran out while it was
      // paused may finish a source another worker has committed since. The second commit
      // writes nothing (PostgreSQL makes it wait for the first, then skip; on SQLite the
      // write lock does the same) and says so; the night goes on.
      // P20, P23: an earlier run's checker-offline said nothing about the source; a real
      // outcome takes its place (the claim's upsert overwrites that row, and only that one).
      const claim = {
        night,
        sourceId: r.sourceId,
        outcome: r.outcome.kind,
        reason: r.outcome.reason ?? null,
        evidence: r.outcome.evidence ? JSON.stringify(r.outcome.evidence) : null,
        status: r.outcome.status ?? null,
        url: r.outcome.url ?? null,
        // The reader that read the list, beside the way (night-records.ts readsBefore).
        way: r.way ? JSON.stringify(r.reader ? { ...r.way, reader: r.reader } : r.way) : null,
        recordsFound: r.records.length + (r.knownRecords ?? 0),
        startedAt: toIso(r.startedAt),
        endedAt: toIso(r.endedAt),
        durationMs: r.endedAt - r.startedAt,
      };
      // A result with records: what insertRecords reads first (the list's last read) asked in
      // the claim's own statement (its RETURNING), not a statement of its own.
      const reads = readsBeforeArgs(night, r);
      let asked: ReadsBeforeRow | undefined;
      if (reads !== undefined) {
        asked = await CLAIM_READING.first(trx, { ...claim, ...reads });
        if (!asked) return { newRecords: 0, already: true as const };
      } else if (!(await CLAIM.first(trx, claim))) return { newRecords: 0, already: true as const };
      const { fresh: newRecords, listed: alreadyListed } = await insertRecords(
        trx,
        night,
        r,
        asked,
      );
      if (newRecords > 0) await NEW_RECORDS.run(trx, { newRecords, night, sourceId: r.sourceId });
      for (const v of r.validators) {
        await KEEP_VALIDATORS.run(trx, {
          url: v.url,
          etag: v.etag ?? null,
          lastModified: v.lastModified ?? null,
          at: toIso(r.endedAt),
        });
      }
      if (r.pageRead) {
        // The page's records were inserted above, in this transaction: tomorrow's 304 of the
        // same copy counts them (P8, P12), while every one of these ids is still stored.
        await KEEP_PAGE_READ.run(trx, {
          sourceId: r.sourceId,
          url: r.pageRead.url,
          key: r.pageRead.key,
          records: r.pageRead.records,
          night,
          ids: idsJson(r.pageRead.ids, dialectOf(trx) === "postgres"),
        });
      }
      // P7, P24: the restarts the night read; a person's restart since is kept (below).
      const restartsRead = r.restartsRead ?? r.backfill?.restarted?.count ?? 0;
      if (r.backfill) {
        await KEEP_BACKFILL.run(trx, {
          sourceId: r.sourceId,
          done: r.backfill.done ? 1 : 0,
          cursor: cursorJson(r.backfill),
          pagesRead: r.backfill.pagesRead,
          // The night it ended is tonight, unless an earlier night's end is kept as it was.
          ended: r.backfill.ended
            ? JSON.stringify({ ...r.backfill.ended, night: r.backfill.ended.night ?? night })
            : null,
          restartsRead,
        });
      }
      // P7: an overflow left unfinished, kept with the backfill (which has ended: its row is
      // there), in place of the one before; or done. Written only when it changed. P7, P24: and
      // only while no person restarted the backfill since the night read it (compare-and-set
      // on the restarts counted, as KEEP_BACKFILL): a restart from page 1 cleared the overflow,
      // and the night's overflow, read before it, is not written back over that decision. A
      // restart from the page the backfill gave up on (its cursor kept) leaves the overflow as
      // it was (restartBackfill), so what the night read of it stands: the pages it read are
      // not asked again, an overflow begun tonight is not lost. Between the night's read and
      // this save only a restart writes the row's cursor (the night's own save above is dropped
      // when one came), so a cursor there after a restart is one that kept the overflow.
      if (r.overflow)
        await trx
          .updateTable("backfill")
          .set(overflowColumns(r.overflow))
          .where("source_id", "=", r.sourceId)
          .where((eb) => eb.or([eb("restarts", "=", restartsRead), eb("cursor", "is not", null)]))
          .execute();
      // P11: a move remembered or forgotten with the night it was seen, never before it.
      for (const m of r.moves ?? []) {
        if (m.kind === "forget") {
          await trx
            .deleteFrom("source_moves")
            .where("source_id", "=", r.sourceId)
            .where("from_url", "=", m.from)
            .execute();
          continue;
        }
        await trx
          .insertInto("source_moves")
          .values({ source_id: r.sourceId, from_url: m.from, to_url: m.to, night })
          .onConflict((oc) =>
            oc.columns(["source_id", "from_url"]).doUpdateSet({ to_url: m.to, night }),
          )
          .execute();
      }
      for (const f of r.flags) {
        const open = await trx
          .selectFrom("flags")
          .select("id")
          .where("source_id", "=", r.sourceId)
          .where("kind", "=", f.kind)
          .where("cleared_at", "is", null)
          .$if(FLAGS_TOLD_BY_DETAIL.has(f.kind), (q) => q.where("detail", "=", f.detail))
          .executeTakeFirst();
        if (open) continue;
        await trx
          .insertInto("flags")
          .values({
            id: `${night}:${f.kind}:${r.sourceId}`,
            source_id: r.sourceId,
            kind: f.kind,
            night,
            detail: f.detail,
            raised_at: toIso(r.endedAt),
            cleared_at: null,
            cleared_by: null,
          })
          .onConflict((oc) => oc.column("id").doNothing())
          .execute();
      }
      return alreadyListed > 0 ? { newRecords, alreadyListed } : { newRecords };
    });
  }

  /** Keyed by the site that said no (a redirect target, an alternate's site), as the journal keeps it. */
  async closedSites(night: string): Promise<Map<string, string>> {
    const rows = await this.#db
      .selectFrom("site_state")
      .select(["site", "closed_reason"])
      .where("closed_night", "=", night)
      .execute();
    return new Map(rows.map((r) => [r.site, r.closed_reason ?? ""]));
  }

  async claimLane(night: string, site: string, holder: string, now: number): Promise<boolean> {
    return (await this.claimLanes(night, [site], holder, now)).has(site);
  }

  claimLanes(
    night: string,
    sites: readonly string[],
    holder: string,
    now: number,
  ): Promise<Set<string>> {
    // One order for every worker, UTF-8 byte order (PostgreSQL's "C" collation, below): two
    // workers claiming overlapping sets wait for each other instead of deadlocking.
    const ordered = [...new Set(sites)].sort((a, b) =>
      Buffer.compare(Buffer.from(a), Buffer.from(b)),
    );
    const parts = chunks(ordered);
    // A renewal of another worker's leases may still lock them in another order: a lost
    // deadlock gave nothing back, so the claim runs again. On SQLite (one writer at a time, no
    // deadlock) a lane's claim shares the journal's group commit: its own transaction was a lone
    // fsync per lane, about half of a night's commits over sites of few sources.
    const txn =
      dialectOf(this.#db) === "sqlite"
        ? <T>(fn: (tx: Tx) => Promise<T>) => this.#group.run(fn)
        : <T>(fn: (tx: Tx) => Promise<T>) => writeTxnRetried(this.#db, fn);
    return txn(async (tx) => {
      const claimed = new Set<string>();
      // One site (a lane's own claim, most of a night's): three statements built once.
      if (ordered.length === 1) {
        const site = ordered[0] as string;
        await LANE_ROW.run(tx, { night, site });
        const row = await LANE_OF.first(tx, { night, site });
        if (row !== undefined && !this.#laneFree(row, holder, now)) return claimed;
        await LANE_CLAIM.run(tx, {
          holder,
          leaseUntil: toIso(now + LANE_LEASE_MS),
          night,
          site,
        });
        claimed.add(site);
        return claimed;
      }
      // Every row inserted first, then every row locked: a worker never waits on another's new
      // row while it holds row locks of its own (which, chunk by chunk, made a cycle).
      for (const part of parts) {
        await tx
          .insertInto("night_lanes")
          .values(
            part.map((site) => ({ night, site, holder: null, lease_until: null, done_at: null })),
          )
          .onConflict((oc) => oc.columns(["night", "site"]).doNothing())
          .execute();
      }
      for (const part of parts) {
        let q = tx
          .selectFrom("night_lanes")
          .select(["site", "holder", "lease_until"])
          .where("night", "=", night)
          .where("site", "in", part);
        if (dialectOf(this.#db) === "postgres") q = q.orderBy(sql`site collate "C"`).forUpdate();
        const free: string[] = [];
        for (const row of await q.execute()) {
          if (this.#laneFree(row, holder, now)) free.push(row.site);
        }
        if (free.length === 0) continue;
        await tx
          .updateTable("night_lanes")
          .set({ holder, lease_until: toIso(now + LANE_LEASE_MS), done_at: null })
          .where("night", "=", night)
          .where("site", "in", free)
          .execute();
        for (const site of free) claimed.add(site);
      }
      return claimed;
    });
  }

  /**
   * Whether a lane's row may be claimed by `holder`: a finished lane is free again (a source
   * added since is checked, the others skipped), as is one whose holder is dead.
   */
  #laneFree(
    row: { holder: string | null; lease_until: string | null },
    holder: string,
    now: number,
  ): boolean {
    if (row.holder === null || row.holder === holder || row.lease_until === null) return true;
    const lease = { holder: row.holder, until: fromIso(row.lease_until, "night_lanes") };
    return holderDead(lease, now);
  }

  async laneStates(night: string, now: number): Promise<Map<string, LaneState>> {
    const rows = await this.#db
      .selectFrom("night_lanes")
      .select(["site", "holder", "lease_until", "done_at"])
      .where("night", "=", night)
      .execute();
    const out = new Map<string, LaneState>();
    for (const r of rows) {
      if (r.done_at !== null && r.holder === null) out.set(r.site, "done");
      else if (r.holder === null || r.lease_until === null) out.set(r.site, "free");
      else {
        const lease = { holder: r.holder, until: fromIso(r.lease_until, "night_lanes") };
        out.set(r.site, holderDead(lease, now) ? "free" : "held");
      }
    }
    return out;
  }

  async finishLane(night: string, site: string, holder: string, now: number): Promise<void> {
    // In the group commit: a lane's end shares its fsync with the writes beside it (alone, it
    // held the event loop for a commit of its own, 200 of them in a night of 200 sites).
    const doneAt = toIso(now);
    await this.#group.run((tx) => LANE_DONE.run(tx, { doneAt, night, site, holder }));
  }

  async renewLanes(night: string, holder: string, now: number): Promise<void> {
    await this.#db
      .updateTable("night_lanes")
      .set({ lease_until: toIso(now + LANE_LEASE_MS) })
      .where("night", "=", night)
      .where("holder", "=", holder)
      .where("done_at", "is", null)
      .execute();
  }

  async isDone(night: string, sourceId: string): Promise<boolean> {
    return (await IS_DONE.first(this.#db, { night, sourceId })) !== undefined;
  }

  async sourceNow(night: string, sourceId: string): Promise<SourceNow> {
    return sourceNowOf(await SOURCE_NOW.first(this.#db, { night, sourceId }));
  }

  async sourceTurn(night: string, sourceId: string): Promise<SourceTurn> {
    // One row a page read of the source (most have one), or one with none (a left join).
    const rows = await SOURCE_TURN.rows(this.#db, { night, sourceId });
    const out: SourceTurn = sourceNowOf(rows[0]);
    if (out.done) return out;
    const reads = new Map<string, KnownPageRead>();
    for (const r of rows)
      if (r.url !== null && r.key !== null && r.records !== null)
        reads.set(r.url, knownPageRead({ ...r, url: r.url, key: r.key, records: r.records }));
    out.pageReads = {
      pageRead: (id, url) =>
        id === sourceId ? Promise.resolve(reads.get(url)) : this.pageRead(id, url),
    };
    return out;
  }

  async finishNight(night: string, now: number): Promise<void> {
    await this.#db
      .updateTable("nights")
      .set({ finished_at: toIso(now) })
      .where("night", "=", night)
      .execute();
  }

  async relabelCheckerOffline(night: string, ids: readonly string[], note: string): Promise<void> {
    await relabelCheckerOffline(this.#db, night, ids, note);
  }

  async tonightsOutcomes(night: string): Promise<TonightOutcome[]> {
    const rows = await this.#db
      .selectFrom("night_sources")
      .select(["source_id", "outcome", "reason", "status"])
      .where("night", "=", night)
      .orderBy("ended_at")
      .orderBy("source_id")
      .execute();
    return rows.map((r) => ({
      sourceId: r.source_id,
      kind: r.outcome,
      reason: r.reason,
      status: r.status,
    }));
  }

  async pageRead(sourceId: string, url: string): Promise<KnownPageRead | undefined> {
    const row = await PAGE_READ.first(this.#db, { sourceId, url });
    return row ? knownPageRead(row) : undefined;
  }

  async holdsAny(sourceId: string, ids: readonly string[], before?: string): Promise<boolean> {
    const postgres = dialectOf(this.#db) === "postgres";
    // Each looked up by the records primary key (source_id, record_id), a page's worth at most.
    for (const part of chunks([...new Set(ids.map((id) => asStored(id, postgres)))])) {
      const row = await this.#db
        .selectFrom("records")
        .select("record_id")
        .where("source_id", "=", sourceId)
        .where("record_id", "in", part)
        // First seen on a night before `before` (an overflow carried over ends at one).
        .$if(before !== undefined, (q) => q.where("first_seen_night", "<", before as string))
        .limit(1)
        .executeTakeFirst();
      if (row) return true;
    }
    return false;
  }

  async holdsLike(
    sourceId: string,
    records: readonly { title: string; date?: string; url?: string }[],
    before?: string,
  ): Promise<boolean> {
    if (records.length === 0) return false;
    return showsAnyOf(records.map(lookOf), await this.#heldRows(sourceId, before));
  }

  async heldLike(
    sourceId: string,
    records: readonly { title: string; date?: string; url?: string }[],
    before?: string,
  ): Promise<boolean[]> {
    if (records.length === 0) return [];
    return shownAsHeld(records.map(lookOf), await this.#heldRows(sourceId, before), true);
  }

  /**
   * Every record the source holds (first seen before `before`), read only on a night whose
   * first page shows none of its ids (a list changed: overflowed, moved or read another way).
   */
  async #heldRows(sourceId: string, before?: string) {
    return (
      this.#db
        .selectFrom("records")
        .select(["title", "date", "url"])
        .where("source_id", "=", sourceId)
        // First seen on a night before `before` (an overflow carried over: docs/catalog.md).
        .$if(before !== undefined, (q) => q.where("first_seen_night", "<", before as string))
        .execute()
    );
  }

  async lastAttempt(
    night: string,
    sourceId: string,
    since: number,
  ): Promise<LastAttempt | undefined> {
    // Newest first along the log's (source, started_at) index: tonight's rows are its newest.
    // A row never sent (its deadline or a stop came first, P13) or cut by a crash says nothing
    // of what the site answered.
    const row = await this.#db
      .selectFrom("request_log")
      .select(["url", "status", "outcome", "failure", "ended_at", "retry_at", "final"])
      .where("source", "=", sourceId)
      // Along the (source, started_at) index from the night's start: tonight's rows only.
      .where("started_at", ">=", toIso(since))
      .where("night", "=", night)
      .where("purpose", "!=", "robots")
      .where("ended_at", "is not", null)
      .where("outcome", "not in", ["interrupted", "deadline"])
      .orderBy("started_at", "desc")
      .orderBy("id", "desc")
      .limit(1)
      .executeTakeFirst();
    if (!row || row.ended_at === null) return undefined;
    const out: LastAttempt = {
      url: row.url,
      status: row.status === null ? null : Number(row.status),
      outcome: row.outcome,
      endedAt: fromIso(row.ended_at, "request_log.ended_at"),
    };
    if (row.failure !== null) out.failure = row.failure;
    if (row.retry_at !== null) out.retryAt = fromIso(row.retry_at, "request_log.retry_at");
    if (Number(row.final) === 1) out.final = true;
    return out;
  }

  async get(url: string): Promise<{ etag?: string; lastModified?: string } | undefined> {
    const row = await this.#db
      .selectFrom("validators")
      .selectAll()
      .where("url", "=", url)
      .executeTakeFirst();
    if (!row) return undefined;
    const out: { etag?: string; lastModified?: string } = {};
    if (row.etag) out.etag = row.etag;
    if (row.last_modified) out.lastModified = row.last_modified;
    return out;
  }
}

/** What SOURCE_NOW (or SOURCE_TURN's first row) says of the source. */
function sourceNowOf(
  row: { done: unknown; reading: number | null; marked_night: string | null } | undefined,
): SourceNow {
  const reading = row?.reading === null || row?.reading === undefined || Number(row.reading) === 1;
  const out: SourceNow = { done: Boolean(Number(row?.done ?? 0)), reading };
  if (!reading && row?.marked_night != null) out.markedNight = row.marked_night;
  return out;
}

/** A row of PAGE_READ's columns (or SOURCE_TURN's) as the reader knows it. */
function knownPageRead(row: {
  url: string;
  key: string;
  records: number | string;
  listed: number | null;
  stored: number | string;
}): KnownPageRead {
  // A row from before its ids were kept (migration 014) proves nothing: read in full once.
  const allStored = row.listed !== null && Number(row.stored) === Number(row.listed);
  return { url: row.url, key: row.key, records: Number(row.records), allStored };
}

/*
 * A source's commit, statement by statement, built once (prepared.ts): the same SQL as the
 * builder calls they replace, run for every source of every night.
 */
type Key = { night: string; sourceId: string };

type ClaimArgs = Key & {
  outcome: string;
  reason: string | null;
  evidence: string | null;
  status: number | null;
  url: string | null;
  way: string | null;
  recordsFound: number;
  startedAt: string;
  endedAt: string;
  durationMs: number;
};

/** A source's outcome row, its claim: inserted, or written over a checker-offline row. */
function claimOf(db: Db, $: Placeholder<ClaimArgs>) {
  // Every column but the key: inserted, or written over a checker-offline row.
  const row = {
    outcome: $("outcome"),
    reason: $("reason"),
    evidence: $("evidence"),
    status: $("status"),
    url: $("url"),
    way: $("way"),
    records_found: $("recordsFound"),
    new_records: 0,
    started_at: $("startedAt"),
    ended_at: $("endedAt"),
    duration_ms: $("durationMs"),
  } as const;
  return (
    db
      .insertInto("night_sources")
      .values({ night: $("night"), source_id: $("sourceId"), ...row })
      // A row already there is a claim by someone else, kept as it is (nothing returned),
      // but a checker-offline one, which said nothing about the source: it is written over
      // with every column, as the row deleted and inserted anew (one statement, not two).
      .onConflict((oc) =>
        oc
          .columns(["night", "source_id"])
          .doUpdateSet(row)
          .where("night_sources.outcome", "=", "checker-offline"),
      )
  );
}

const CLAIM = prepared((db, $: Placeholder<ClaimArgs>) => claimOf(db, $).returning("source_id"));

/**
 * CLAIM, and READS_BEFORE's columns in its RETURNING (night-records.ts): the claim a commit with
 * records runs first anyway. Its subqueries read the nights before tonight's, never the row
 * the claim writes, and nothing the records' insert writes after it. Exported for the test.
 */
export const CLAIM_READING = prepared((db, $: Placeholder<ClaimArgs & ReadsBeforeArgs>) =>
  claimOf(db, $).returning((eb) => [
    "source_id",
    // Every name they read is qualified by its own subquery's table (the claim's adds none).
    ...readsBeforeColumns(db, eb as unknown as ExpressionBuilder<Database, never>, $),
  ]),
);

/** A lane's row made, if it is not there yet (claimLanes, one site). */
const LANE_ROW = prepared((db, $: Placeholder<{ night: string; site: string }>) =>
  db
    .insertInto("night_lanes")
    .values({ night: $("night"), site: $("site"), holder: null, lease_until: null, done_at: null })
    .onConflict((oc) => oc.columns(["night", "site"]).doNothing()),
);

/** A lane's holder and lease, its row locked on PostgreSQL until the claim commits. */
const LANE_OF = prepared((db, $: Placeholder<{ night: string; site: string }>) => {
  const q = db
    .selectFrom("night_lanes")
    .select(["site", "holder", "lease_until"])
    .where("night", "=", $("night"))
    .where("site", "=", $("site"));
  return dialectOf(db) === "postgres" ? q.forUpdate() : q;
});

const LANE_CLAIM = prepared(
  (db, $: Placeholder<{ holder: string; leaseUntil: string; night: string; site: string }>) =>
    db
      .updateTable("night_lanes")
      .set({ holder: $("holder"), lease_until: $("leaseUntil"), done_at: null })
      .where("night", "=", $("night"))
      .where("site", "=", $("site")),
);

const LANE_DONE = prepared(
  (db, $: Placeholder<{ doneAt: string; night: string; site: string; holder: string }>) =>
    db
      .updateTable("night_lanes")
      .set({ done_at: $("doneAt"), holder: null, lease_until: null })
      .where("night", "=", $("night"))
      .where("site", "=", $("site"))
      .where("holder", "=", $("holder")),
);

const NEW_RECORDS = prepared((db, $: Placeholder<Key & { newRecords: number }>) =>
  db
    .updateTable("night_sources")
    .set({ new_records: $("newRecords") })
    .where("night", "=", $("night"))
    .where("source_id", "=", $("sourceId")),
);

const KEEP_VALIDATORS = prepared(
  (
    db,
    $: Placeholder<{ url: string; etag: string | null; lastModified: string | null; at: string }>,
  ) =>
    db
      .insertInto("validators")
      .values({
        url: $("url"),
        etag: $("etag"),
        last_modified: $("lastModified"),
        updated_at: $("at"),
      })
      .onConflict((oc) =>
        oc.column("url").doUpdateSet({
          etag: $("etag"),
          last_modified: $("lastModified"),
          updated_at: $("at"),
        }),
      ),
);

/**
 * A read's distinct record ids as the JSON `page_reads.ids` keeps, each as `records.record_id`
 * holds it: a NUL as U+FFFD (no-nul.ts maps every parameter so). A lone surrogate is kept as
 * each driver keeps it: PostgreSQL's as U+FFFD (its json also refuses the escape), SQLite's as
 * its own bytes, which json_each reads back from JSON.stringify's `\udXXX` the same way.
 */
function idsJson(ids: readonly string[], postgres: boolean): string {
  const kept = ids.map((id) => asStored(id, postgres));
  return JSON.stringify([...new Set(kept)]);
}

const KEEP_PAGE_READ = prepared(
  (db, $: Placeholder<Key & { url: string; key: string; records: number; ids: string }>) =>
    db
      .insertInto("page_reads")
      .values({
        source_id: $("sourceId"),
        url: $("url"),
        key: $("key"),
        records: $("records"),
        night: $("night"),
        ids: $("ids"),
      })
      .onConflict((oc) =>
        oc.columns(["source_id", "url"]).doUpdateSet({
          key: $("key"),
          records: $("records"),
          night: $("night"),
          ids: $("ids"),
        }),
      ),
);

const KEEP_BACKFILL = prepared(
  (
    db,
    $: Placeholder<{
      sourceId: string;
      done: number;
      cursor: string | null;
      pagesRead: number;
      ended: string | null;
      restartsRead: number;
    }>,
  ) =>
    db
      .insertInto("backfill")
      .values({
        source_id: $("sourceId"),
        done: $("done"),
        cursor: $("cursor"),
        pages_read: $("pagesRead"),
        ended: $("ended"),
      })
      .onConflict((oc) =>
        oc
          .column("source_id")
          .doUpdateSet({
            done: $("done"),
            cursor: $("cursor"),
            pages_read: $("pagesRead"),
            ended: $("ended"),
          })
          // Only a change is written: a finished backfill's row, the same every night, is
          // left as it is (its page not rewritten, in the commit's WAL frames). P7: and only
          // while no person restarted it since the night read it (compare-and-set on the
          // restarts counted: the person's later decision stands, the night's state is dropped).
          .where((eb) =>
            eb.and([
              eb("backfill.restarts", "=", $("restartsRead")),
              eb.or([
                eb("backfill.done", "<>", eb.ref("excluded.done")),
                eb("backfill.pages_read", "<>", eb.ref("excluded.pages_read")),
                eb("backfill.cursor", "<>", eb.ref("excluded.cursor")),
                eb.and([eb("backfill.cursor", "is", null), eb("excluded.cursor", "is not", null)]),
                eb.and([eb("backfill.cursor", "is not", null), eb("excluded.cursor", "is", null)]),
                eb.and([eb("backfill.ended", "is", null), eb("excluded.ended", "is not", null)]),
                eb.and([eb("backfill.ended", "is not", null), eb("excluded.ended", "is", null)]),
                // P7: why it ended too (a pause "off" a night ends at its last page, say, with
                // the same pages read and no cursor).
                eb("backfill.ended", "<>", eb.ref("excluded.ended")),
              ]),
            ]),
          ),
      ),
);

const IS_DONE = prepared((db, $: Placeholder<Key>) =>
  db
    .selectFrom("night_sources")
    .select("source_id")
    .where("night", "=", $("night"))
    .where("source_id", "=", $("sourceId"))
    .where("outcome", "!=", "checker-offline"),
);

/**
 * sourceNow in one statement: IS_DONE, and the source's latest mark (marks_pk is source_id, at:
 * one index seek each), so a `nor mark` written since the night planned is obeyed at the
 * source's turn at no statement's cost.
 */
const SOURCE_NOW = prepared((db, $: Placeholder<Key>) =>
  db.selectNoFrom((eb) => sourceNowColumns(eb, $("night"), $("sourceId"))),
);

function sourceNowColumns(eb: ExpressionBuilder<Database, never>, night: string, sourceId: string) {
  return [
    eb
      .exists(
        eb
          .selectFrom("night_sources")
          .select("source_id")
          .where("night", "=", night)
          .where("source_id", "=", sourceId)
          .where("outcome", "!=", "checker-offline"),
      )
      .as("done"),
    eb
      .selectFrom("marks")
      .select("reading")
      .where("source_id", "=", sourceId)
      .orderBy("at", "desc")
      .limit(1)
      .as("reading"),
    // P25: since when it is not read: the night of the first mark of its run of "not read"
    // marks (the least `at`: the decisions' order, not the least night, which a later mark from
    // a host behind or given --night may carry), so a mark made again (another reason) does not
    // start the rechecks over; as marks.ts marksInForce, which the night plans from.
    sql<
      string | null
    >`(select m.night from marks m where m.source_id = ${sourceId} and m.reading = 0 and m.at > coalesce((select max(r.at) from marks r where r.source_id = ${sourceId} and r.reading = 1), '') order by m.at limit 1)`.as(
      "marked_night",
    ),
  ] as const;
}

/**
 * sourceTurn: SOURCE_NOW's columns, and PAGE_READ's for each page read of the source (its
 * primary key's first column: one index seek), one row each, or one row with none. Exported for
 * the test that reads its query plan.
 */
export const SOURCE_TURN = prepared((db, $: Placeholder<Key>) => {
  const { listed, stored } = pageReadCounts(db);
  return db
    .selectFrom(db.selectNoFrom(sql.lit(1).as("one")).as("one"))
    .leftJoin("page_reads as pr", (j) => j.on("pr.source_id", "=", $("sourceId")))
    .select((eb) => [
      // The same columns: every name they read is the store's own (the derived table adds one).
      ...sourceNowColumns(
        eb as unknown as ExpressionBuilder<Database, never>,
        $("night"),
        $("sourceId"),
      ),
      "pr.url",
      "pr.key",
      "pr.records",
      listed.as("listed"),
      stored.as("stored"),
    ]);
});

/**
 * The page's last full read and, in the same statement, how many of its ids `records` still
 * holds: one primary-key lookup per id (records_pk is source_id, record_id), so the check costs
 * no statement of its own on the 304's path. `listed` is null for a row without ids. Exported
 * for the test that reads its query plan.
 */
export const PAGE_READ = prepared((db, $: Placeholder<{ sourceId: string; url: string }>) => {
  const { listed, stored } = pageReadCounts(db);
  return db
    .selectFrom("page_reads as pr")
    .select(["pr.url", "pr.key", "pr.records", listed.as("listed"), stored.as("stored")])
    .where("pr.source_id", "=", $("sourceId"))
    .where("pr.url", "=", $("url"));
});

/**
 * A page read's (`pr`) ids counted, and how many of them `records` still holds: one primary-key
 * lookup per id (records_pk is source_id, record_id), however many records the source holds.
 * `listed` is null for a row without ids.
 */
function pageReadCounts(db: Db) {
  const pg = dialectOf(db) === "postgres";
  const listed = pg
    ? sql<number | null>`json_array_length(pr.ids::json)`
    : sql<number | null>`json_array_length(pr.ids)`;
  // PostgreSQL takes `= any(array)` into the index condition (a join would hash all of the
  // source's records); SQLite's CROSS JOIN keeps json_each the outer loop (left alone, its
  // planner walks every record of the source, and the ids for each).
  const stored = pg
    ? sql<number | string>`(select count(*) from records as r where r.source_id = pr.source_id
        and r.record_id = any(array(select json_array_elements_text(pr.ids::json))))`
    : sql<number | string>`(select count(*) from json_each(pr.ids) as j cross join records as r
        where r.source_id = pr.source_id and r.record_id = j.value)`;
  return { listed, stored };
}

/** The catalog URL of the way a night's outcome row says it used (its `way` JSON), if any. */
function usedUrlOf(way: string | null): string | undefined {
  if (way === null) return undefined;
  try {
    const url = (JSON.parse(way) as { used?: { url?: unknown } }).used?.url;
    return typeof url === "string" ? url : undefined;
  } catch {
    return undefined;
  }
}
