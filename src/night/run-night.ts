/**
 * One night (P9–P13, P20–P25): plan the lanes, run them on `concurrency` workers, one source
 * at a time per lane, and commit each source's result as it ends. Sources already done
 * tonight are skipped, so running the same night again resumes it.
 */

import { setMaxListeners } from "node:events";
import type { Clock } from "../clock.js";
import { NorError } from "../errors.js";
import { NotKept } from "../net/pipeline.js";
import type { Fetcher } from "../net/types.js";
import { isSiteDown } from "../policy/admission.js";
import { LANE_LEASE_MS } from "../policy/constants.js";
import { canaryFailed, judgeReach, OFFLINE_WINDOW, reachEvidence } from "../policy/offline.js";
import { recheckTonight } from "../policy/recheck.js";
import type { Catalog, Source } from "../sources/catalog/types.js";
import { diskFull, STORE_FULL } from "../store/disk-full.js";
import { type CheckContext, checkSource } from "./check-source.js";
import type { DurableSummary } from "./durable-window.js";
import { flagsFor } from "./flags.js";
import { type Lane, type PlannedSource, type PlanSource, planLanes } from "./lanes.js";
import { movedFrom } from "./moves.js";
import {
  cutShortOutcome,
  failureOutcome,
  recheckRetryOutcome,
  siteClosedReason,
  TIME_LIMIT_PASSED,
} from "./outcome.js";
import { checkConcurrency, runPool } from "./pool.js";
import type { NightState, NightStore, SourceNow, SourceTurn, TonightHistory } from "./ports.js";
import { keptAs, type ValidatorStore, type WayReader } from "./reader.js";
import { recheckSource } from "./recheck.js";
import type { NightOutcomeKind, SourceResult } from "./types.js";

export interface NightDeps {
  store: NightStore;
  clock: Clock;
  reader: WayReader;
  validators: ValidatorStore;
  /**
   * Built once the night's deadline is known (the fetcher refuses to start after it, P13).
   * `plan.works`: whether this run starts or resumes work on the night (it is not yet
   * finished, or has sources left to check); a finished night run again with nothing left to do
   * does not (its history stands as it ran).
   */
  makeFetcher(state: NightState, plan: { works: boolean }): Promise<Fetcher>;
  siteOf(url: string): string;
  isRecheckNight(markedNight: string, night: string): boolean;
  onSourceDone?(progress: NightProgress): void;
  /**
   * This worker's name in the lanes' leases (host:pid:random). Several workers (processes,
   * machines on one PostgreSQL) share a night: each lane is worked by one of them at a time.
   */
  holder?: string;
  /** Renews this worker's lane leases every `everyMs` while the night runs; returns a stop. */
  heartbeat?(everyMs: number, beat: () => Promise<void>): () => void;
  /**
   * A source's check threw (a bug, a store read that failed), or its result could not be
   * stored: the source is recorded as an `error` outcome naming it the checker's own, and the
   * night goes on; this hears the error itself (its stack), for the log.
   */
  onSourceError?(sourceId: string, err: unknown): void;
}

export interface NightOptions {
  night: string;
  deadlineMs: number;
  /**
   * P13: when a new night's time limit began, if before this call (the command's start, before
   * its catalog import): its deadline is `deadlineMs` after it, the one the command announced.
   * Else now. (The night itself starts now, after the import: the catalog it reads.)
   */
  deadlineFrom?: number;
  concurrency: number;
  /**
   * P20, P23: a page that always answers, asked once before the night (a request like any
   * other: robots.txt, the gap, the journal). When it gets no answer the checker is offline.
   */
  canary?: string;
  /**
   * A person's stop (the command's SIGTERM, SIGINT or SIGHUP). From then on no source is
   * started and none is recorded: a request admitted and waiting to leave is not sent and its
   * row says so (it is no send, P15), one on the wire is cut off, and the night is left as it
   * was, to be resumed (its answers stored tonight are not asked again, P8). The summary says
   * `stopped`; the night is not finished.
   */
  stop?: AbortSignal;
  /**
   * The night as the store opened it: a new one, or one under way that this call joins (another
   * process opened it first, a moment before perhaps), with the deadline the store keeps.
   */
  onOpened?(state: { resumed: boolean; deadlineAt: number }): void;
}

export interface NightProgress {
  done: number;
  total: number;
  deadlineAt: number;
  last: SourceResult;
}

export interface NightSummary {
  night: string;
  resumed: boolean;
  deadlineAt: number;
  /** Sources with work tonight (excluding those done before a restart and skipped not-read ones). */
  planned: number;
  alreadyDone: number;
  skippedNotRead: number;
  outcomes: Partial<Record<NightOutcomeKind, number>>;
  newRecords: number;
  /** Records first seen but already listed (first reads, a backfill's older pages, P7). */
  alreadyListed: number;
  lanes: number;
  /**
   * P20, P23: the checker could not reach the internet tonight (the canary failed, or most
   * sites failed to resolve or connect); the sources it affected are `checker-offline`.
   */
  checkerOffline: boolean;
  offline?: OfflineReport;
  /** Stopped by a person before its end (`NightOptions.stop`): the night is left open. */
  stopped?: true;
  /** P8, P27: how soon after their last byte this process's answers were durable (ms). */
  durableMs?: DurableSummary;
}

export interface OfflineReport {
  /** Sites heard from in this run whose latest outcome was a DNS or connect failure. */
  failedSites: number;
  /** Sites heard from in this run. */
  sites: number;
  /** Sources recorded as `checker-offline` in this run. */
  sources: number;
  /** The canary, when it was the one that failed. */
  canary?: { url: string; reason: string };
}

/**
 * The night's sources as the plan needs them (`list`: id, government, URL), and the whole
 * entries of a lane's sources, loaded when the lane starts (`load`): a night of 20,000 sources
 * holds the entries of the lanes under way only (docs/benchmarks.md "A night's memory"). A catalog held in memory is one.
 */
export interface NightSources {
  list: readonly PlanSource[];
  /** The entries of these sources (every id asked for that is known), in any order. */
  load(ids: readonly string[]): Promise<readonly Source[]>;
}

function inMemory(sources: readonly Source[]): NightSources {
  const byId = new Map(sources.map((s) => [s.id, s]));
  return {
    list: sources,
    load: async (ids) => ids.flatMap((id) => byId.get(id) ?? []),
  };
}

/**
 * P24: how long a source's mark, read before one of its check's further requests is admitted,
 * stands for that request: past the admission, to its sending just after (admitted ahead).
 */
const MARK_READ_STANDS_MS = 1_000;

export async function runNight(
  catalog: Pick<Catalog, "sources"> | NightSources,
  deps: NightDeps,
  opts: NightOptions,
): Promise<NightSummary> {
  const { store, clock } = deps;
  const sources = "list" in catalog ? catalog : inMemory(catalog.sources);
  const openedAt = clock.now();
  const from = Math.min(opts.deadlineFrom ?? openedAt, openedAt);
  const state = await store.openNight(opts.night, openedAt, from + opts.deadlineMs);
  opts.onOpened?.({ resumed: state.resumed, deadlineAt: state.deadlineAt });
  const siteOfSource = (s: PlanSource) => deps.siteOf(s.url);
  await store.syncSources(
    sources.list.map((s) => ({
      id: s.id,
      government: s.government,
      url: s.url,
      site: siteOfSource(s),
    })),
    clock.now(),
  );
  const histories = await store.histories(
    opts.night,
    sources.list.map((s) => s.id),
  );
  const planned: PlannedSource[] = [];
  let alreadyDone = 0;
  let skippedNotRead = 0;
  for (const source of sources.list) {
    const history = histories.get(source.id) as TonightHistory;
    if (history.doneTonight) alreadyDone++;
    else if (!asked(history, opts.night, deps)) {
      skippedNotRead++; // P25: not a recheck night, nor one owed, so no request at all
    } else planned.push({ source, history });
  }
  // P13: when tonight's estimated work does not fit before the deadline, the plan reaches
  // the most sources it can (cheapest lanes first, last night's unreached before all).
  // P25, P9: a source whose page moved permanently (P11) is asked where it moved, a night's read
  // and a recheck alike: it goes in the lane of the site it asks, so a recheck there comes after
  // that site's pages that are read (lanes.ts), those read where they moved too, and a no it
  // meets there (P21) closes that site only once they have been read; its site's no earlier
  // tonight is that site's, not the catalog URL's.
  // A recheck whose page redirected to another site when it was last judged (there refused, say,
  // so no move was remembered) goes in that site's lane likewise: its request goes on there.
  // Its catalog URL is asked all the same, so that site's no earlier tonight is not taken for
  // its own before it is asked (the page may not redirect there any more): the fetcher's.
  const askedSite = new Map<string, string>();
  const endedThere = new Set<string>();
  for (const { source, history } of planned) {
    const move = movedFrom(history.moved, source.url);
    if (move !== undefined) askedSite.set(source.id, deps.siteOf(move.to));
    else if (
      !history.reading &&
      history.lastEnd !== undefined &&
      keptAs(history.lastEnd.asked) === keptAs(source.url)
    ) {
      askedSite.set(source.id, deps.siteOf(history.lastEnd.url));
      endedThere.add(source.id);
    }
  }
  const laneSiteOf = (s: PlanSource) => askedSite.get(s.id) ?? siteOfSource(s);
  const lanes = planLanes(planned, laneSiteOf, {
    concurrency: opts.concurrency,
    availableMs: Math.max(0, state.deadlineAt - clock.now()),
  });
  // P21 across a restart: the fetcher's "closed" list lives in memory; the store remembers.
  const closed = await store.closedSites(opts.night);
  // The night stops by a person's stop, or by itself when the archive cannot keep what is
  // read (P8) or the store's disk is full (its journal's rows, P27): asking further sites would
  // only get answers it cannot keep or record. `ended`: that failure, thrown once all unwinds.
  const halt = new AbortController();
  let ended: NorError | undefined;
  const stop = opts.stop === undefined ? halt.signal : AbortSignal.any([opts.stop, halt.signal]);
  const works = planned.length > 0 || state.finishedAt === undefined;
  const fetcher = stoppedBy(await deps.makeFetcher(state, { works }), stop);
  const stopped = () => stop.aborted;
  const ctx: CheckContext = {
    fetcher,
    clock,
    reader: deps.reader,
    validators: deps.validators,
    nightStartedAt: state.startedAt,
    night: opts.night,
  };
  if (store.pageRead) {
    const pageRead = store.pageRead.bind(store);
    ctx.pageReads = { pageRead };
  }
  if (store.holdsAny && store.holdsLike && store.heldLike) {
    const holdsAny = store.holdsAny.bind(store);
    const holdsLike = store.holdsLike.bind(store);
    const heldLike = store.heldLike.bind(store);
    ctx.held = { holdsAny, holdsLike, heldLike };
  }
  const summary: NightSummary = {
    night: opts.night,
    resumed: state.resumed,
    deadlineAt: state.deadlineAt,
    planned: planned.length,
    alreadyDone,
    skippedNotRead,
    outcomes: {},
    newRecords: 0,
    alreadyListed: 0,
    lanes: lanes.length,
    checkerOffline: false,
  };
  // P20, P23: one entry per site, its latest evidence about our connection (true: a DNS or
  // connect failure), newest last; and the sources each site failed that way in this run.
  const reach = new Map<string, boolean>();
  /**
   * The same, the last OFFLINE_WINDOW sites only (the newest last): what the rule judges. Kept
   * apart so that judging after each source reads ten entries, not every site heard from (a
   * night of 27,000 sites copied them all for each of its sources).
   */
  const recent = new Map<string, boolean>();
  const failedBy = new Map<string, { id: string; kind: NightOutcomeKind }[]>();
  let offlineNote: string | undefined;
  /** Sources committed with a DNS or connect failure that the offline decision rests on. */
  const toRelabel = new Map<string, NightOutcomeKind>();
  /**
   * Sources whose commit is under way, each with its end (resolved whatever came of it).
   */
  const committing = new Map<string, Promise<void>>();
  /**
   * The offline decision made durable (P20, P23): the sources it rests on relabelled in one
   * transaction, once those whose commit was under way when it was made have landed; false when
   * the store could not write it (the night stops). Every commit after the decision waits for
   * it, the source that made it included, so the first trace of the decision in the store is
   * that relabel: a kill at any point leaves either no sign of it, or every source it rests on
   * relabelled (a resumed night neither asks nor relabels a source that has an outcome).
   */
  let decision: Promise<boolean> | undefined;
  let offlineSources = 0;
  const offlineResult = (sourceId: string, at: number): SourceResult => ({
    sourceId,
    outcome: { kind: "checker-offline", reason: offlineNote ?? "the checker was offline" },
    records: [],
    validators: [],
    flags: [],
    startedAt: at,
    endedAt: at,
  });
  if (opts.canary !== undefined && planned.length > 0) {
    const o = await fetcher.fetch({ url: opts.canary, purpose: "canary", keepBody: false });
    const out = o.kind === "ok" || o.kind === "not-modified" ? undefined : failureOutcome(o);
    if (out && canaryFailed(out)) {
      const reason = `${out.kind}${out.reason ? `: ${out.reason}` : ""}`;
      summary.offline = {
        failedSites: 0,
        sites: 0,
        sources: 0,
        canary: { url: opts.canary, reason },
      };
      offlineNote = `the checker could not reach the internet: its canary ${opts.canary} failed (${reason}); nothing was asked of this site`;
    }
  }
  /**
   * Feeds one source's own outcome to the rule; true when it is the checker's, not the site's.
   * `recorded`: an outcome recorded tonight before this run (a resume's), relabelled too when
   * it makes the decision itself.
   */
  const observe = (site: string, result: SourceResult, recorded = false): boolean => {
    const ev = reachEvidence(result.outcome);
    if (ev === "none") return false;
    const failed = ev === "failed";
    if (failed && offlineNote !== undefined) return true;
    reach.delete(site);
    reach.set(site, failed);
    recent.delete(site);
    recent.set(site, failed);
    for (const oldest of recent.keys()) {
      if (recent.size <= OFFLINE_WINDOW) break;
      recent.delete(oldest);
    }
    if (failed) {
      const list = failedBy.get(site) ?? [];
      list.push({ id: result.sourceId, kind: result.outcome.kind });
      failedBy.set(site, list);
    }
    if (offlineNote !== undefined || !judgeReach([...recent.values()]).offline) return false;
    // Offline: the failing sites the decision rests on were the checker's problem too.
    for (const [s, f] of recent) {
      if (!f) continue;
      for (const x of failedBy.get(s) ?? [])
        if (recorded || x.id !== result.sourceId) toRelabel.set(x.id, x.kind);
    }
    const v = judgeReach([...recent.values()]);
    const note = `the checker could not reach the internet: ${v.failed} of the last ${v.of} sites failed to resolve or connect; nothing was judged about this site`;
    offlineNote = note;
    const ids = [...toRelabel.keys()];
    const landing = ids.flatMap((id) => committing.get(id) ?? []);
    decision = Promise.all(landing).then(() => relabel(ids, note));
    // This source, when it failed too, is committed as checker-offline by the caller; one that
    // answered keeps its own outcome.
    return failed;
  };
  /**
   * Relabels sources the decision rests on; tried once more as a commit is (a dropped
   * connection). False when the store cannot write it: the night stops as it does when it
   * cannot record an outcome (`ended`, the night left open), since going on would only record
   * more outcomes while these stay their sites' no.
   */
  const relabel = async (ids: readonly string[], note: string): Promise<boolean> => {
    try {
      try {
        await store.relabelCheckerOffline(opts.night, ids, note);
      } catch {
        await store.relabelCheckerOffline(opts.night, ids, note);
      }
      return true;
    } catch (err) {
      ended ??= new NorError(
        diskFull(err) ? "E_CONFIG" : "E_STORE",
        `the night's store could not record that the checker was offline; the night stops${diskFull(err) ? ` (${STORE_FULL})` : ""}: ${messageOf(err)}`,
        { cause: err },
      );
      halt.abort(new Error(`the night stopped: ${ended.message}`, { cause: ended }));
      return false;
    }
  };
  // P20, P23 across a resume: the sites last heard from in the night are judged, those heard
  // before this run (a stop, a kill, another process) included: a night stopped before its
  // decision and resumed in the same outage leaves none of its first failures as their sites'
  // no. Their outcomes are landed already, so a decision they make is relabelled at once.
  const before = new Set<string>();
  if (offlineNote === undefined && planned.length > 0 && store.tonightsOutcomes) {
    const siteById = new Map(sources.list.map((s) => [s.id, siteOfSource(s)] as const));
    for (const o of await store.tonightsOutcomes(opts.night)) {
      const site = siteById.get(o.sourceId);
      if (site === undefined) continue;
      before.add(o.sourceId);
      const outcome: SourceResult["outcome"] = {
        kind: o.kind as SourceResult["outcome"]["kind"],
        ...(o.reason !== null ? { reason: o.reason } : {}),
        status: o.status,
      };
      observe(site, { ...offlineResult(o.sourceId, 0), outcome }, true);
    }
  }
  let done = 0;
  const holder = deps.holder ?? "this-process:0:0";
  const stopBeat = deps.heartbeat?.(LANE_LEASE_MS / 3, () =>
    store.renewLanes(opts.night, holder, clock.now()),
  );
  /**
   * Works a lane this worker has just claimed; false when it lost the lane on the way (taken
   * over by another worker while this one was frozen past its lease: a SIGSTOP, a long pause,
   * a machine cut off from the database), leaving it to that worker, unfinished.
   */
  const runLane = async (lane: Lane, claimedAt: number): Promise<boolean> => {
    // This worker's lease on the lane reaches at least this far (it was claimed at
    // `claimedAt`, the time its claim wrote; the heartbeat renews it). Counted from the claim,
    // not from now: a worker frozen after its claim wrote and before it came back has held the
    // lane since then. Past a margin before it, the lane is claimed again before the next
    // source: another worker may have taken it over, and asking its sources alongside that
    // worker would ask them twice (P8).
    let heldUntil = claimedAt + LANE_LEASE_MS;
    /** Found taken over: nothing more of the lane is asked, nor recorded, by this worker. */
    let lost = false;
    /** The source whose check is under way, and whether another worker has recorded it since. */
    let current: string | undefined;
    let recorded = false;
    /**
     * Whether this worker still holds the lane: yes within its lease (less a margin); past it,
     * claimed again, which fails when another worker has taken it over. Claimed again after
     * another worker held it, finished it and let it go (a finished lane is free), the source
     * under way may be recorded already: then it is not the worker's either. Asked before each
     * source and before each request a source's check sends (a retry's, a redirect hop's), so a
     * worker frozen in the middle of a source (a wait before a retry, the gap) sends nothing
     * more for it once it wakes: the lane's new holder asks what is left (P8, P9).
     */
    const held = (): boolean | Promise<boolean> => {
      if (lost || recorded) return false;
      // Within the lease: said at once, no promise (asked before every request).
      if (clock.now() < heldUntil - LANE_LEASE_MS / 3) return true;
      return claimAgain();
    };
    const claimAgain = async (): Promise<boolean> => {
      const at = clock.now();
      if (!(await store.claimLane(opts.night, lane.site, holder, at))) {
        lost = true;
        return false;
      }
      heldUntil = at + LANE_LEASE_MS;
      if (current !== undefined && (await store.sourceNow(opts.night, current)).done) {
        recorded = true;
        return false;
      }
      return true;
    };
    /**
     * P24 at the moment of sending: the planned history of the source whose check is under
     * way, the requests its check has asked so far, and whether a person's mark written since
     * its turn (`nor mark --not-read` in another process) stopped it.
     */
    let currentHistory: PlannedSource["history"] | undefined;
    /** When the mark was read at the current source's turn. */
    let turnReadAt = Number.NEGATIVE_INFINITY;
    let asks = 0;
    let markedOff = false;
    /**
     * The lane's hold, and for each request of a source's check (its first, an older page,
     * another way's page) the source's mark too, read as the site gate asks the hold before
     * admitting it: after its wait for the gap (a Crawl-delay, an owner's slower pace), so a mark
     * written meanwhile holds for it. At most one prepared read a request: a mark read within
     * MARK_READ_STANDS_MS stands (`lastRead`: for a first request, the read at its turn; the hold
     * is asked again at sending, just after the admission). Marked not read since its turn, the
     * hold is gone: nothing more is sent for the source tonight (NotHeld).
     */
    const heldAndAsked = (source: string, history: PlannedSource["history"], lastRead: number) => {
      let readAt = lastRead;
      return (): boolean | Promise<boolean> => {
        if (markedOff) return false;
        const h = held();
        if (h === false || clock.now() - readAt < MARK_READ_STANDS_MS) return h;
        return (async () => {
          if (!(await h)) return false;
          const now = await store.sourceNow(opts.night, source);
          readAt = clock.now();
          if (!now.done && !asked(markedSince(history, now), opts.night, deps)) markedOff = true;
          return !markedOff;
        })();
      };
    };
    const laneFetcher: Fetcher = {
      fetch: async (req) => {
        // Each request of a source's check reads the mark again at its admission, its first too
        // (it may wait out the gap after the source before it): the mark read at its turn stands
        // for its first only within MARK_READ_STANDS_MS of that read.
        if (markedOff)
          throw new NorError(
            "E_INTERNAL",
            `${current} was marked not read during its check: nothing more is asked (P24)`,
          );
        const readAt = asks++ === 0 ? turnReadAt : Number.NEGATIVE_INFINITY;
        return ctx.fetcher.fetch({
          ...req,
          held:
            current !== undefined && currentHistory !== undefined
              ? heldAndAsked(current, currentHistory, readAt)
              : held,
          notHeldWhy: () =>
            markedOff ? "its source was marked not read since its turn (P24)" : undefined,
        });
      },
    };
    const laneCtx: CheckContext = { ...ctx, fetcher: laneFetcher };
    // The lane's whole entries, held while it runs.
    const entries = new Map(
      (await sources.load(lane.sources.map((p) => p.source.id))).map((s) => [s.id, s]),
    );
    const entryOf = (id: string): Source => {
      const entry = entries.get(id);
      if (entry === undefined) throw new NorError("E_INTERNAL", `no catalog entry for ${id}`);
      return entry;
    };
    for (const plan of lane.sources) {
      // Stopped: the lane is left as it is (not finished), for a resume to take over.
      if (stopped()) return true;
      current = undefined;
      currentHistory = undefined;
      asks = 0;
      markedOff = false;
      recorded = false;
      if (!(await held())) return false;
      const { source } = plan;
      // Another worker (before a restart, or one that died) may have checked it already; and a
      // person's mark written since the plan (`nor mark` in another process, P24) holds from
      // the source's turn on: marked not read, it is asked nothing unless tonight rechecks it.
      // With the source's page reads, where the store reads them at once (sourceTurn): its
      // check's 304 is then counted from them, with no statement of its own.
      const now0: SourceTurn = store.sourceTurn
        ? await store.sourceTurn(opts.night, source.id)
        : await store.sourceNow(opts.night, source.id);
      turnReadAt = clock.now();
      if (now0.done) continue;
      current = source.id;
      const history = markedSince(plan.history, now0);
      currentHistory = history;
      if (!asked(history, opts.night, deps)) {
        // Counted as not read, as if the plan had left it out: not planned, not awaited.
        summary.skippedNotRead++;
        summary.planned--;
        continue;
      }
      let result: SourceResult;
      const now = clock.now();
      if (now >= state.deadlineAt) {
        // P13: no request starts after the limit; the source waits for tomorrow and goes first.
        // A night resumed after a stop or a crash may have asked it before (P13, P15).
        result = await cutShort(store, state, {
          sourceId: source.id,
          outcome: { kind: "unreached", reason: TIME_LIMIT_PASSED },
          records: [],
          validators: [],
          flags: [],
          startedAt: now,
          endedAt: now,
        });
      } else if (closed.has(lane.site) && !endedThere.has(source.id)) {
        result = {
          sourceId: source.id,
          outcome: { kind: "refused", reason: siteClosedReason(closed.get(lane.site)) },
          records: [],
          validators: [],
          flags: [],
          startedAt: now,
          endedAt: now,
        };
      } else if (offlineNote !== undefined) {
        // P20, P23: our side is cut off; no request is started, nothing judged about the site.
        result = offlineResult(source.id, now);
      } else {
        try {
          const entry = entryOf(source.id);
          result = !history.reading
            ? await recheckSource(laneFetcher, clock, entry, deps.validators, history.moved)
            : await checkSource(
                now0.pageReads !== undefined && laneCtx.pageReads !== undefined
                  ? { ...laneCtx, pageReads: now0.pageReads }
                  : laneCtx,
                entry,
                history,
              );
          // Not asked because its site was down tonight (a redirect's target, say, after the
          // source's own page answered): said as that, never as the time limit's.
          if (result.outcome.kind === "unreached" && !isSiteDown(result.outcome.reason))
            result = await cutShort(store, state, result);
          else if (result.outcome.kind === "unreached" && !history.reading)
            result = await recheckRetryRefused(store, state, result);
          if (observe(lane.site, result)) {
            result = {
              ...offlineResult(source.id, result.startedAt),
              endedAt: result.endedAt,
              outcome: {
                kind: "checker-offline",
                reason: `${offlineNote} (${result.outcome.kind}: ${result.outcome.reason ?? ""})`,
              },
            };
          }
        } catch (err) {
          // (Not `lost`: that name is the lane's, below, and this one hid it.)
          const ends = endsTheNight(err);
          if (ends !== undefined) {
            // The night stops (below, exit 2: make room), this source unrecorded, and resumes.
            ended ??= ends;
            // Other lanes' requests cut by it say why, not as if their own answer were lost.
            halt.abort(new Error(`the night stopped: ${ended.message}`, { cause: ended }));
            return true;
          }
          // Cut short by the stop: no outcome, the source is read again on resume.
          if (stopped()) return true;
          // The lane taken over while this worker was frozen in the middle of the source: its
          // new holder asks and records it (NotHeld, net/steps/site-gate.ts).
          if (lost) return false;
          // Recorded by the worker that held the lane meanwhile: its outcome stands.
          if (recorded) continue;
          // P24: marked not read during its check (another process's `nor mark`): counted as
          // not read, as if its turn had come after the mark; what its check read before is
          // not recorded (its answers stay in the archive), and nothing more is asked.
          if (markedOff) {
            summary.skippedNotRead++;
            summary.planned--;
            continue;
          }
          // One source's check that throws (a bug, a store read that failed) is that source's
          // outcome, said to be the checker's own; the lane and the night go on. Nothing is
          // judged about the site's reach from it.
          deps.onSourceError?.(source.id, err);
          result = {
            sourceId: source.id,
            outcome: { kind: "error", reason: checkerErrorReason(err) },
            records: [],
            validators: [],
            flags: [],
            startedAt: now,
            endedAt: clock.now(),
          };
        }
      }
      // Once the checker has found itself offline, nothing is recorded before the sources the
      // decision rests on are relabelled (P20, P23).
      if (decision !== undefined && !(await decision)) return true;
      // What a request cut off by the stop came to is not the site's answer: not recorded.
      if (stopped()) return true;
      result.flags = flagsFor(result, history);
      let landed = () => {};
      committing.set(
        source.id,
        new Promise<void>((r) => {
          landed = r;
        }),
      );
      let committed: Awaited<ReturnType<NightStore["commit"]>>;
      try {
        try {
          committed = await store.commit(opts.night, result);
        } catch {
          // Tried once more: a store whose connection dropped (PostgreSQL restarted, a
          // backend ended) takes the same result on the next; the commit is one transaction,
          // so nothing of the first is kept, and one that went through is found `already`.
          committed = await store.commit(opts.night, result);
        }
      } catch (err) {
        // This result could not be written (a record the store refuses, a bug): the commit is
        // one transaction, so nothing of it is kept. The source is recorded as the checker's
        // error instead, with nothing in it but the reason, and the night goes on.
        deps.onSourceError?.(source.id, err);
        const bare: SourceResult = {
          sourceId: source.id,
          outcome: {
            kind: "error",
            reason: checkerErrorReason(
              err,
              `its ${result.outcome.kind} result could not be stored`,
            ),
          },
          records: [],
          validators: [],
          flags: [],
          startedAt: result.startedAt,
          endedAt: result.endedAt,
        };
        bare.flags = flagsFor(bare, history);
        try {
          committed = await store.commit(opts.night, bare);
        } catch (again) {
          // A store that cannot record even that stops the night: going on would check
          // sources whose outcomes are lost, and a resume would ask their sites again. Its disk
          // full is the operator's to mend, as an archive that cannot keep an answer is (P8):
          // said as configuration (exit 2), which the systemd units do not restart on, since a
          // restart would only ask the same sites again for what it cannot record.
          const full = diskFull(again) || diskFull(err);
          throw new NorError(
            full ? "E_CONFIG" : "E_STORE",
            `the night's store could not record the outcome of ${source.id}; the night stops${full ? ` (${STORE_FULL})` : ""}: ${messageOf(again)}`,
            { cause: again },
          );
        }
        result = bare;
      } finally {
        committing.delete(source.id);
        landed();
      }
      if (result.outcome.kind === "checker-offline") offlineSources++;
      const { newRecords, alreadyListed, already } = committed;
      // Another worker committed this source first (this one's lane lease had run out): its
      // outcome stands and is counted in that worker's summary, not here.
      if (already) continue;
      summary.newRecords += newRecords;
      summary.alreadyListed += alreadyListed ?? 0;
      const k = result.outcome.kind;
      summary.outcomes[k] = (summary.outcomes[k] ?? 0) + 1;
      done++;
      deps.onSourceDone?.({
        done,
        total: summary.planned,
        deadlineAt: state.deadlineAt,
        last: result,
      });
    }
    await store.finishLane(opts.night, lane.site, holder, clock.now());
    return true;
  };
  // Lanes held by another live worker are left to it; one whose worker dies is taken over.
  let waiting: Lane[] = [];
  try {
    // The lanes that start at once are claimed in one transaction (one commit, not one each),
    // so they all start together; the others are claimed as workers come free. A bad pool
    // size is refused before any lane is claimed.
    checkConcurrency(opts.concurrency);
    const startNow = lanes.slice(0, opts.concurrency);
    const firstAt = clock.now();
    const claimedNow = await store.claimLanes(
      opts.night,
      startNow.map((l) => l.site),
      holder,
      firstAt,
    );
    const first = new Set(startNow);
    await runPool(lanes, opts.concurrency, async (lane) => {
      // Stopped: no lane more is claimed (another process may take it at once).
      if (stopped()) return;
      const at = first.has(lane) ? firstAt : clock.now();
      const mine = first.has(lane)
        ? claimedNow.has(lane.site)
        : await store.claimLane(opts.night, lane.site, holder, at);
      if (!mine || !(await runLane(lane, at))) waiting.push(lane);
    });
    // Bounded: a live worker finishes its lanes by the deadline; past it (plus the longest
    // request), whatever is still held is left to its worker.
    const giveUpAt = state.deadlineAt + 5 * 60_000;
    while (waiting.length > 0 && clock.now() < giveUpAt && !stopped()) {
      await clock.sleep(1_000);
      // One read for all of them: only lanes whose worker is gone are tried (thousands of
      // lanes held by live workers cost nothing more per second).
      const states = await store.laneStates(opts.night, clock.now());
      const still: Lane[] = [];
      const free: Lane[] = [];
      for (const lane of waiting) {
        const state = states.get(lane.site) ?? "free";
        if (state === "held") still.push(lane);
        else if (state === "free") free.push(lane);
        else if (!(await laneDone(store, opts.night, lane, deps))) free.push(lane);
      }
      await runPool(free, opts.concurrency, async (lane) => {
        if (stopped()) return;
        const at = clock.now();
        if (await store.claimLane(opts.night, lane.site, holder, at)) {
          if (!(await runLane(lane, at))) still.push(lane);
        } else if (!(await laneDone(store, opts.night, lane, deps))) still.push(lane);
      });
      waiting = still;
    }
  } finally {
    stopBeat?.();
  }
  // The decision's relabel settled (it never throws: a store that could not write it set
  // `ended`). A night that stops ends with its own reason, not the driver's error from the relabel
  // written once more below (a full disk refuses that too: exit 2, not a raw failure).
  await decision;
  if (ended !== undefined) throw ended;
  if (offlineNote !== undefined) {
    // Every lane has ended, so every source the decision named has committed its outcome. The
    // decision relabelled them (`decision`); written once more here (a no-op for those), so
    // that none is left as its site's no whatever came of that.
    await store.relabelCheckerOffline(opts.night, [...toRelabel.keys()], offlineNote);
    for (const [id, kind] of toRelabel) {
      // (Recorded before this run: not in its counts.)
      if (before.has(id)) {
        offlineSources++;
        continue;
      }
      const left = (summary.outcomes[kind] ?? 0) - 1;
      if (left > 0) summary.outcomes[kind] = left;
      else delete summary.outcomes[kind];
      offlineSources++;
    }
    if (offlineSources > 0) summary.outcomes["checker-offline"] = offlineSources;
    const failedSites = [...reach.values()].filter((f) => f).length;
    summary.checkerOffline = true;
    summary.offline = {
      ...summary.offline,
      failedSites,
      sites: reach.size,
      sources: offlineSources,
    };
  }
  // Every lane has unwound: the archive's or the store's failure ended the night (thrown above),
  // left open to resume.
  if (stopped()) {
    // Every lane has unwound (its waiting requests' rows written), and the sources the
    // checker's own outage failed are said to be that (above): the night stays open.
    summary.stopped = true;
    return summary;
  }
  // A night run again with nothing left to do (every source done, or not to be read): it ended
  // when it ended, not now (the public page says when it finished).
  await store.finishNight(
    opts.night,
    planned.length === 0 && state.finishedAt !== undefined ? state.finishedAt : clock.now(),
  );
  return summary;
}

/**
 * The request log's last attempt at a source's page tonight (since the night's start);
 * undefined when there is none, or when the log could not say (the caller then keeps its result).
 */
async function lastAttemptTonight(
  store: NightStore,
  state: NightState,
  sourceId: string,
): Promise<Awaited<ReturnType<NonNullable<NightStore["lastAttempt"]>>>> {
  try {
    return await store.lastAttempt?.(state.night, sourceId, state.startedAt);
  } catch {
    return undefined;
  }
}

/**
 * P13, P15: a check the deadline stopped is `unreached` only when nothing was asked of its page
 * tonight. One whose page was asked and answered (a 503 whose retry would have started after
 * the time limit, say) was reached: it is `cut-short`, in words that say what the site
 * answered. Either way it goes first next night (NOT_CHECKED_OUTCOMES).
 */
async function cutShort(
  store: NightStore,
  state: NightState,
  result: SourceResult,
): Promise<SourceResult> {
  // When the log could not say: left unreached, which goes first next night all the same.
  const last = await lastAttemptTonight(store, state, result.sourceId);
  return last === undefined ? result : { ...result, outcome: cutShortOutcome(last) };
}

/**
 * P25, P15: a recheck not asked tonight as its site was found down, whose page was asked and
 * answered earlier tonight by a run that stopped in its retry's wait (a restart between the 503
 * and the retry, which the site's being down then refused): reached, cut short, as recheck.ts
 * says of the same retry refused in one run; else owed the next night, and its page asked two
 * nights running. The request log says what it answered.
 */
async function recheckRetryRefused(
  store: NightStore,
  state: NightState,
  result: SourceResult,
): Promise<SourceResult> {
  const last = await lastAttemptTonight(store, state, result.sourceId);
  if (last === undefined || last.outcome !== "retry") return result;
  const why = result.outcome.reason ?? "its site was down";
  return { ...result, outcome: recheckRetryOutcome(last.url, last.url, last.status, why) };
}

/**
 * What a check threw that ends the night: the archive's failure (itself or as the cause of a
 * request cut by it), or the store's disk full (the journal could not write a request's row).
 */
function endsTheNight(err: unknown): NorError | undefined {
  const lost = notKeptIn(err);
  if (lost !== undefined || !diskFull(err)) return lost;
  return new NorError(
    "E_CONFIG",
    `the night's store could not record its requests; the night stops (${STORE_FULL}): ${messageOf(err)}`,
    { cause: err },
  );
}

/** The archive's failure a check threw, itself or as the cause of a request cut by it. */
function notKeptIn(err: unknown): NotKept | undefined {
  if (err instanceof NotKept) return err;
  const cause = (err as { cause?: unknown } | null)?.cause;
  return cause instanceof NotKept ? cause : undefined;
}

/**
 * The night's fetcher with the stop given to every request it sends (a request's own signal,
 * if any, kept beside it): the site gate then writes nothing more, a request waiting to leave
 * is completed as not sent, and the transport cuts off one on the wire.
 */
function stoppedBy(fetcher: Fetcher, stop: AbortSignal | undefined): Fetcher {
  if (stop === undefined) return fetcher;
  // Every lane's request in flight listens for it at once (a night's 64 and more): no
  // "possible leak" warning for that.
  setMaxListeners(0, stop);
  return {
    fetch: (req) =>
      fetcher.fetch({
        ...req,
        signal: req.signal === undefined ? stop : AbortSignal.any([req.signal, stop]),
      }),
  };
}

/** The reason an `error` outcome gives for a check that threw: the checker's fault, not the site's. */
export const CHECKER_ERROR_PREFIX = "checker error: ";

/** Longest error text kept in an outcome's reason (the log has it all). */
const REASON_MAX = 500;

function messageOf(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}

function checkerErrorReason(err: unknown, what?: string): string {
  const text = messageOf(err);
  const cut = text.length > REASON_MAX ? `${text.slice(0, REASON_MAX)}…` : text;
  return `${CHECKER_ERROR_PREFIX}${what !== undefined ? `${what}: ` : ""}${cut}`;
}

/**
 * Every source of the lane has its outcome tonight (another worker finished it), or is one a
 * person has marked not read since the plan, which no worker asks tonight.
 */
async function laneDone(
  store: NightStore,
  night: string,
  lane: Lane,
  deps: Pick<NightDeps, "isRecheckNight">,
): Promise<boolean> {
  for (const { source, history } of lane.sources) {
    const now = await store.sourceNow(night, source.id);
    if (!now.done && asked(markedSince(history, now), night, deps)) return false;
  }
  return true;
}

/**
 * P24, P25: whether tonight asks this source anything: it is read, or tonight rechecks it: a
 * recheck night (unless an owed recheck reached just before it stands for it), or a recheck owed
 * since one that was not reached (P13: the deadline, its site down, the checker offline or not
 * run that night), from the nights the store holds (policy/recheck.ts recheckTonight).
 */
function asked(
  h: Pick<TonightHistory, "reading" | "markedNight" | "lastReachedNight">,
  night: string,
  deps: Pick<NightDeps, "isRecheckNight">,
): boolean {
  if (h.reading) return true;
  if (h.markedNight === undefined) return false;
  return recheckTonight(h.markedNight, night, h.lastReachedNight, deps.isRecheckNight);
}

/** The source's history as planned, with the mark it has now when that changed since. */
function markedSince<H extends Pick<TonightHistory, "reading" | "markedNight">>(
  h: H,
  now: SourceNow,
): H {
  if (now.reading === h.reading && now.markedNight === h.markedNight) return h;
  const out: H = { ...h, reading: now.reading };
  if (now.markedNight !== undefined) out.markedNight = now.markedNight;
  else delete out.markedNight;
  return out;
}
