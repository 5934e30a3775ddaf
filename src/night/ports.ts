/**
 * What the night needs from the store. Each source's result is committed in one
 * transaction with its outcome, records, validators, backfill cursor and flags, so a
 * `kill -9` at any moment leaves either all of a source's night or none of it.
 */
import type { KnownPageRead, PageReads } from "./reader.js";
import type { SourceHistory, SourceResult } from "./types.js";

export interface NightState {
  night: string;
  startedAt: number;
  /** P13: fixed when the night first starts; a resumed night keeps it. */
  deadlineAt: number;
  /** true when this night had already been started (a restart after a crash or a stop). */
  resumed: boolean;
  /**
   * When it had finished, if it had (run again: `nor night` a second time that night). A run
   * again that has nothing to do keeps that end (run-night.ts), rather than saying the night
   * ended when it was run again.
   */
  finishedAt?: number;
}

export interface CatalogRow {
  id: string;
  government: string;
  url: string;
  site: string;
}

export interface TonightHistory extends SourceHistory {
  /** Already has an outcome tonight: never checked twice in one night. */
  doneTonight: boolean;
}

export type LaneState = "done" | "held" | "free";

/**
 * What a source's commit stored: its records first seen tonight, those new on record and those
 * already listed (its first read, or a backfill's older pages, P7: the source's, never new).
 */
export type Committed = { newRecords: number; alreadyListed?: number; already?: true };

export interface NightStore {
  openNight(night: string, now: number, deadlineAt: number): Promise<NightState>;
  /** Upserts what the night keeps about each catalog source (read from the file each run). */
  syncSources(rows: readonly CatalogRow[], now: number): Promise<void>;
  histories(night: string, ids: readonly string[]): Promise<Map<string, TonightHistory>>;
  /**
   * One transaction. Returns how many of the records were new (first seen tonight), or
   * `already` when another worker committed this source tonight first (nothing is written).
   */
  commit(night: string, result: SourceResult): Promise<Committed>;
  /**
   * P21: sites that said no earlier tonight (before a restart), which stay closed, each with
   * what it said.
   */
  closedSites(night: string): Promise<Map<string, string>>;
  /**
   * A site's lane tonight, leased to one worker at a time (several `nor night` processes on
   * one store share a night this way). True when `holder` now holds it: it was free (never
   * taken, or finished: a source added since still gets its check), already its own, or its
   * holder is dead. False while another live worker holds it.
   */
  claimLane(night: string, site: string, holder: string, now: number): Promise<boolean>;
  /**
   * `claimLane` for several sites in one transaction (a night's first lanes, started together):
   * the sites that `holder` now holds.
   */
  claimLanes(
    night: string,
    sites: readonly string[],
    holder: string,
    now: number,
  ): Promise<Set<string>>;
  /**
   * Every lane of the night in one read, for a worker waiting on lanes others hold: `done`,
   * `held` by a live worker, or `free` (its holder is dead or its lease ran out). A site not
   * in the map has no lane yet (free).
   */
  laneStates(night: string, now: number): Promise<Map<string, LaneState>>;
  /** The lane is done tonight (every source has its outcome). */
  finishLane(night: string, site: string, holder: string, now: number): Promise<void>;
  /** Keeps this worker's lanes leased while it works (a dead worker's lanes are taken over). */
  renewLanes(night: string, holder: string, now: number): Promise<void>;
  /** Whether a source has its outcome tonight (read again when a lane is taken over). */
  isDone(night: string, sourceId: string): Promise<boolean>;
  /**
   * A source as it stands when its turn comes, read in one statement: whether it has its outcome
   * tonight (isDone), and a person's latest mark (P24), which `nor mark` may have written in
   * another process since the night planned it.
   */
  sourceNow(night: string, sourceId: string): Promise<SourceNow>;
  /**
   * sourceNow at the source's turn, and in the same statement the page reads `pageRead` would
   * give for the source's first page (every address its list was last read in full at), handed
   * to that source's check (`pageReads`): the 304 or the page sent again whole is then counted
   * from them, with no statement of its own. Counted so, a 304's copy is not read back (a copy
   * found lost is asked again in full, P8) and a page sent again whole starts no overflow
   * reading (P7): a request may hang on them. They are what a read at the answer would give:
   * nothing but the source's own commit writes them (its lane held meanwhile), and any commit
   * of the source tonight since its turn (another worker's, that took its lane over) makes this
   * one's claim fail, its result unrecorded (a checker-offline one writes neither). A store
   * without it: sourceNow, and pageRead when asked.
   */
  sourceTurn?(night: string, sourceId: string): Promise<SourceTurn>;
  finishNight(night: string, now: number): Promise<void>;
  /**
   * P20, P23: the checker found itself offline: these sources' outcomes tonight, when a DNS or
   * connect failure (unreachable, robots-unavailable, recheck-still-no), become
   * `checker-offline` with `note`, and the flags they raised tonight are withdrawn.
   */
  relabelCheckerOffline(night: string, sourceIds: readonly string[], note: string): Promise<void>;
  /**
   * P20, P23 across a resume: the outcomes recorded tonight (any process's, any run's), the
   * earliest ended first, for the offline rule to judge the sites last heard from in the night,
   * not only those this run heard. A store without it judges this run's alone.
   */
  tonightsOutcomes?(night: string): Promise<TonightOutcome[]>;
  /**
   * P8, P12: the source's first page at `url` as last read in full (its key, how many records it
   * listed, whether every record it produced is still stored), kept by `commit` with those
   * records; a store without it reads every 304's copy. One indexed query: it runs on every 304.
   */
  pageRead?(sourceId: string, url: string): Promise<KnownPageRead | undefined>;
  /**
   * P7: whether the source holds any of these records (by id): a list's first page that shows
   * none of them has moved past what the source holds (a day's overflow on its next pages).
   * A store without it never reads a list's next pages for its overflow. `before`: only records
   * first seen on a night before that one (an overflow carried over ends at a record held before
   * the night it began, SourceHistory `overflow`).
   */
  holdsAny?(sourceId: string, ids: readonly string[], before?: string): Promise<boolean>;
  /**
   * P7: whether the source holds, by its look (policy/way-identity.ts showsAnyOf: a link however
   * written, or a day and title), any of these records: asked only when it holds none of their
   * ids. A first page so held has not overflowed (its files moved, another way in): its next
   * pages are not read. A store without it reads no list's next pages for its overflow.
   * `before`: only records first seen on a night before that one (an overflow carried over).
   */
  holdsLike?(
    sourceId: string,
    records: readonly { title: string; date?: string; url?: string }[],
    before?: string,
  ): Promise<boolean>;
  /**
   * P7: for each of these records, whether the source holds it by its look (as holdsLike, each
   * record alone), its held records read once for all (a carried-over page held by its look).
   * A store without it, as without the two above, reads no list's next pages for its overflow.
   */
  heldLike?(
    sourceId: string,
    records: readonly { title: string; date?: string; url?: string }[],
    before?: string,
  ): Promise<boolean[]>;
  /**
   * P13, P15: the latest attempt sent for this source tonight (its robots.txt aside) that the
   * site answered or that failed on the wire, from the request log (P27); undefined when
   * nothing was sent for it. Read only when the deadline stopped a source's check, to tell a
   * source cut short (asked and answered, its retry or next request past the time limit) from
   * one not reached. A store without it records every such source as unreached. `since`: the
   * night's start (tonight's attempts began after it), so the read never walks a source's
   * older history.
   */
  lastAttempt?(night: string, sourceId: string, since: number): Promise<LastAttempt | undefined>;
}

/** One attempt of the request log, as `NightStore.lastAttempt` reads it. */
export interface LastAttempt {
  url: string;
  /** The HTTP status; null for a connection that failed or closed before its head. */
  status: number | null;
  /** The log's word for the attempt (`retry`, `redirect`, `error`, `gone`, …). */
  outcome: string;
  /** The transport's failure, when any (a connection closed before a full response). */
  failure?: string;
  endedAt: number;
  /** P15: when its retry was due (`retry` attempts). */
  retryAt?: number;
  /** The answer was complete (P8: never asked again tonight), its source not yet recorded. */
  final?: boolean;
}

/** What sourceNow reads. */
export interface SourceNow {
  done: boolean;
  /** The latest mark says the source is read (true without a mark). */
  reading: boolean;
  /** The night of the latest mark, when it says not read. */
  markedNight?: string;
}

/** What sourceTurn reads: sourceNow, and the source's page reads as they stood then. */
export interface SourceTurn extends SourceNow {
  /** Answers `pageRead` for this source from what was read at its turn, else as the store does. */
  pageReads?: PageReads;
}

/** A source's outcome recorded tonight, as the offline rule reads it (TonightOutcomes). */
export interface TonightOutcome {
  sourceId: string;
  kind: string;
  reason: string | null;
  status: number | null;
}
