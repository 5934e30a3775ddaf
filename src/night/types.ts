/**
 * The night's shapes: what the scheduler plans, what one source's check yields, and the one
 * outcome stored per source per night. Outcomes are a closed set (P23, P24), so the
 * directory, `nor status` and the flag rules can match on them exhaustively.
 */
import type { RefusalEvidence } from "../net/types.js";
import type { Access } from "../sources/catalog/types.js";
import type { ExtractedRecord } from "../sources/record.js";

export type NightOutcomeKind =
  | "ok"
  | "unchanged"
  | "refused"
  | "disallowed"
  | "robots-unavailable"
  | "unreachable"
  | "timed-out"
  | "too-large"
  | "gone"
  | "error"
  | "no-records"
  | "extract-error"
  /** P13: the night's time limit came before anything was asked of its page. */
  | "unreached"
  /**
   * P13, P15: its page was asked and answered tonight, but the request that had to follow (a
   * retry, a redirect's hop, the next way in) would have started after the night's time limit,
   * so it was not sent. Reached, not finished: the reason says what the site answered.
   */
  | "cut-short"
  /**
   * P26: not asked, at its site owner's request (`nor site`: the whole site not read, or this
   * path left alone): the operator's decision, never the site's no; the reason says which. It
   * neither counts toward a run of nights nor breaks one (P24).
   */
  | "left-alone"
  | "recheck-still-no"
  | "recheck-answers"
  /**
   * P20, P23: the checker itself could not reach the internet (most sites failed to resolve
   * or connect, or the canary failed). Not the site's no: nothing is judged about it.
   */
  | "checker-offline";

/**
 * Every outcome kind, once (a kind added to the type and not here fails to compile): what a
 * filter by outcome (the console's Sources page) accepts.
 */
const EVERY_OUTCOME: Record<NightOutcomeKind, true> = {
  ok: true,
  unchanged: true,
  refused: true,
  disallowed: true,
  "robots-unavailable": true,
  unreachable: true,
  "timed-out": true,
  "too-large": true,
  gone: true,
  error: true,
  "no-records": true,
  "extract-error": true,
  unreached: true,
  "cut-short": true,
  "left-alone": true,
  "recheck-still-no": true,
  "recheck-answers": true,
  "checker-offline": true,
};
export const OUTCOME_KINDS = Object.keys(EVERY_OUTCOME) as readonly NightOutcomeKind[];

/**
 * Outcomes of a night on which the source was not checked, or not to the end: not asked at all
 * (unreached, checker-offline), or asked but cut short by the deadline (P13: these go first).
 */
export const NOT_CHECKED_OUTCOMES: ReadonlySet<NightOutcomeKind> = new Set([
  "unreached",
  "cut-short",
  "checker-offline",
]);

/**
 * P25, P13: outcomes of a night on which nothing was asked of the source's page: a recheck
 * night with one of these was not reached, and owes a recheck the next night that runs
 * (policy/recheck.ts `recheckOwed`). A recheck cut short (`cut-short`: its page asked and
 * answered, the request that had to follow not sent) was reached: asking its page again the
 * next night, and the next while whatever stopped it lasts, would open a page marked not read
 * every night, not on the calendar's nights.
 */
export const NOT_ASKED_OUTCOMES: ReadonlySet<NightOutcomeKind> = new Set([
  "unreached",
  "checker-offline",
]);

/**
 * Outcomes of a night that say nothing of the site (P24): not checked or not to the end
 * (NOT_CHECKED_OUTCOMES), or not asked at its owner's request. A run of nights (the no-three-
 * nights flag) leaves them out: they neither count toward it nor break it.
 */
export const NOT_JUDGED_OUTCOMES: ReadonlySet<NightOutcomeKind> = new Set([
  ...NOT_CHECKED_OUTCOMES,
  "left-alone",
]);

/**
 * P21: what a source behind a closed lane is told (night/outcome.ts siteClosedReason): not asked,
 * its site's no earlier tonight. Here so the store reads it too (P13: not reached, for the order).
 */
export const SITE_CLOSED_REASON = "site said no earlier tonight";

/** P21/P20: the outcomes that count as that night's "no" (for the 3-nights flag, P24). */
export const NO_OUTCOMES: ReadonlySet<NightOutcomeKind> = new Set([
  "refused",
  "robots-unavailable",
]);

export interface NightOutcome {
  kind: NightOutcomeKind;
  /** Human text: the refusal reason, the error, the extractor's note. */
  reason?: string;
  evidence?: RefusalEvidence;
  status?: number | null;
  /** The URL the outcome is about (the way in that decided it). */
  url?: string;
  /**
   * P15: an error that is the site's hold (a Retry-After longer than the night waits): its
   * "later", not the page's failure (P7: a night of no answer, `unanswered`, never a miss). Not
   * stored; the reason says it.
   */
  held?: true;
  /**
   * P7: a failure that is no answer of the site's about the page: it could not be reached, timed
   * out, closed the connection or cut the body, or answered a 5xx. Not the page's end (no backfill
   * miss), asked again another night. Not stored; the kind and reason say it.
   */
  unanswered?: true;
  /**
   * P7: the request never left (the site gate did not send it, the robots.txt it waited on could
   * not be asked for the checker's own failures): not an answer, so no backfill night of any
   * kind. Not stored; the reason says it.
   */
  notSent?: true;
}

/** A request a platform preset or the backfill cursor asks for (P5, P7). */
export interface PageRequest {
  url: string;
  method?: "GET" | "POST";
  body?: string;
  contentType?: string;
  accept?: string;
  /** Form ways (P5): which result page this request asks for (1 = the search itself). */
  pageNo?: number;
  /**
   * P5, P7: a result page turned through tonight on the way to the one a backfill left off at
   * (the pager shows no link to that one from where it started): never kept as a cursor.
   */
  hop?: true;
}

/** Backfill progress for one source (P7): where the older pages resume tomorrow. */
export interface BackfillState {
  done: boolean;
  cursor?: PageRequest;
  pagesRead: number;
  /**
   * Older pages in a row, to the cursor, that showed no records or were gone (404, 410): at
   * BACKFILL_MISSES the list is taken to have ended (P7, P11). Kept with the cursor.
   */
  misses?: number;
  /**
   * Nights in a row on which the cursor's page, asked, failed otherwise (a 5xx, too large,
   * unreadable): at BACKFILL_MISSES such nights the list is taken to have ended there (P7,
   * P11). Nights, not pages: each night asks that page once, and its failure is never added to
   * the older pages without records read before it. Kept with the cursor.
   */
  failedNights?: number;
  /**
   * What the last of those nights met, in words (`robots-disallowed`, `error, HTTP 400`, …), so
   * that what is said of the run does not claim the site answered when robots.txt kept the
   * page unasked. Kept with the cursor, absent in rows written before it was kept.
   */
  lastMiss?: string;
  /**
   * Nights in a row on which the cursor's page, asked, got no answer about itself (a time-out, a
   * connection refused or cut, a 5xx: `NightOutcome.unanswered`): not the page's end, asked again
   * the next night, until BACKFILL_UNANSWERED_NIGHTS such nights, when the backfill gives up.
   * Kept with the cursor.
   */
  unansweredNights?: number;
  /**
   * P4, P7: the catalog URL of the way in whose list the cursor's page is (its own reader and
   * pager read it, whichever way answers first tonight); a cursor whose way the catalog no
   * longer lists (its URL changed) is dropped, never asked. Kept with the cursor; absent in rows
   * written before it was kept (the cursor is then taken for tonight's way's).
   */
  way?: string;
  /** Why a backfill that is done ended (P7), absent while it goes on. */
  ended?: BackfillEnd;
  /**
   * P7: the latest restart by a person (`nor backfill restart`, the console), and how many
   * there were (`count`): read from the store, never written by a night (a night's save of its
   * backfill holds only while the count is the one it read).
   */
  restarted?: { count: number; at?: string; by?: string };
}

/**
 * Why a backfill ended (P7), for the operator (`nor site`, `nor status --json`, the console):
 * - `last-page`: the list's oldest page was read (it shows no older link, or leads back to a
 *   page read, or its pages repeat);
 * - `past-end`: BACKFILL_MISSES older pages in a row showed no records or were gone (404, 410);
 * - `cut-off`: the catalog's cut-off date (`backfill.until`) was reached;
 * - `gave-up`: the older page at `url` failed BACKFILL_MISSES nights running with an answer that
 *   is not the page (too large, unreadable, a 4xx, robots.txt keeps it), or got no answer at all
 *   BACKFILL_UNANSWERED_NIGHTS nights running (`reason`: the last failure). Its cursor is kept,
 *   so `nor backfill restart` goes on from that page;
 * - `off`: the source reads no older pages (`backfill.pagesPerNight: 0`).
 * `night`: the night it ended (set by the store when it commits the end).
 */
export interface BackfillEnd {
  why: "last-page" | "past-end" | "cut-off" | "gave-up" | "off";
  night?: string;
  url?: string;
  reason?: string;
}

export type FlagKind =
  | "no-three-nights"
  | "no-records"
  | "robots-disallows"
  | "answers-again"
  /** P7: its backfill gave up on an older page tonight (`nor backfill restart` asks it again). */
  | "backfill-gave-up"
  /**
   * P7: a day's overflow carried over (its list's next pages past the first) gave up tonight on
   * a page failing nights running: the records past it are never read.
   */
  | "overflow-gave-up"
  /**
   * P11: its catalog URL answered a permanent redirect (301, 308) to a page that was read:
   * the night asks the page there from now on; the catalog should be updated.
   */
  | "moved";

/**
 * P24, P11: the flag kinds whose open flag tells a person of one thing only, named in its detail:
 * a `moved` flag names where the page is asked now, so a move found again to another page (its
 * first target gone, forgotten) is told again, not held back by the open flag of the old one.
 * Every other kind is raised once while one of it is open for the source.
 */
export const FLAGS_TOLD_BY_DETAIL: ReadonlySet<FlagKind> = new Set<FlagKind>(["moved"]);

export interface RaisedFlag {
  kind: FlagKind;
  detail: string;
}

/** P4: the way in a night used for a source (the one whose answer decided the outcome). */
export interface WayUsed {
  access: Access;
  platform?: string;
  url: string;
  /**
   * P11: the URL the night asked instead of `url` (the catalog's), which had answered a
   * permanent redirect there on an earlier night (`SourceHistory.moved`). Absent: `url` itself.
   */
  asked?: string;
}

/** P4: a better way in that was tried first and passed over, and why (shown in `nor status`). */
export interface WaySkipped {
  access: Access;
  url: string;
  why: string;
}

/** The choice of way and why, stored with the outcome. `used` is absent when no way worked. */
export interface WayChoice {
  used?: WayUsed;
  skipped: WaySkipped[];
}

/** What one source's check produced; committed in one transaction (crash safety). */
export interface SourceResult {
  sourceId: string;
  outcome: NightOutcome;
  /** P4: which way in was used tonight and why the better ones were not. */
  way?: WayChoice;
  records: ExtractedRecord[];
  /**
   * P7: `records` from this index on came from the list's older pages (a backfill): already
   * listed before tonight, kept as the source's records, never new on record. Absent: none did.
   */
  olderFrom?: number;
  /**
   * P7, P8: the first page answered 304 and was read from its copy (our reading of the page as
   * it was), while next pages past it were read in full (a pending overflow carried over: the
   * outcome `ok`): its records are `records[0, copied)`, kept as an `unchanged` outcome's are
   * (brought up to date, none said changed; one first found on it already listed).
   */
  copied?: number;
  /**
   * Records the page showed that are already stored and not listed in `records`: a 304 whose
   * copy is the page last read in full (P8, P12). Counted in the records found, never new.
   */
  knownRecords?: number;
  /**
   * The reader of the way in that read the list tonight (page-key.ts `readerKey`), when a list
   * was read (an answer of its kind, parsed: records or none); absent when none was. Kept with
   * the way choice (night_sources.way, as `reader`).
   */
  reader?: string;
  /** The first page read in full tonight, by its key: kept with the records it listed. */
  pageRead?: { url: string; key: string; records: number; ids: string[] };
  /** Validators to keep per URL (P12); written with the outcome, never before it. */
  validators: { url: string; etag?: string; lastModified?: string }[];
  backfill?: BackfillState;
  /**
   * P7, P24: the restarts of the source's backfill the night read (SourceHistory
   * `backfill.restarted.count`; absent: none, or `backfill.restarted`'s). Its saves of the
   * backfill and of the overflow hold only while the store's count is still this one: a person's
   * `nor backfill restart` made meanwhile (which may clear the overflow) is never written over.
   * The overflow's save still holds after a restart that kept its cursor (from the page it gave
   * up on), which leaves the overflow as it was.
   */
  restartsRead?: number;
  /**
   * P7: an overflow reading left unfinished tonight, or one carried over from an earlier night
   * that went on (`pending`, kept in place of the one read), or that ended tonight (`done`: a
   * page showed a record held before it began, or the list ended). Absent: nothing changed.
   */
  overflow?: { pending: OverflowPending } | { done: true; gaveUp?: OverflowGaveUp };
  /**
   * P11: a catalog URL of the source that moved permanently tonight (remembered, kept with the
   * outcome), or whose remembered target failed tonight or is no longer the catalog's (forgotten).
   */
  moves?: MoveChange[];
  flags: RaisedFlag[];
  startedAt: number;
  endedAt: number;
}

/** What the night knows about a source before checking it (from the store). */
export interface SourceHistory {
  /** false once a person marked it not read (P24). */
  reading: boolean;
  /** The night of the latest "not read" mark, for the recheck calendar (P25). */
  markedNight?: string;
  /** When it was last checked (end of its check), ms; undefined = never. */
  lastCheckedAt?: number;
  /** Last night's outcome was one of NOT_CHECKED_OUTCOMES, `unreached` say (P13: these go first). */
  unreachedLast: boolean;
  /**
   * P13, P21, P23: last night it was not asked because its site's no earlier that night closed the
   * site (unreachedLast too): first in its lane, but its lane after those holding sources the
   * deadline (or the site down, the checker offline) kept from being reached (lanes.ts).
   */
  closedLast?: boolean;
  /**
   * P25, P13: the latest night before tonight on which it was reached (an outcome not one of
   * NOT_ASKED_OUTCOMES: its page was asked), read from the store's nights (HISTORY_NIGHTS back); absent when none
   * is. For a source marked not read, a recheck night since then that was not reached (or did
   * not run) owes a recheck tonight (policy/recheck.ts `recheckOwed`); read for every source, so
   * a mark made while the night runs finds it too.
   */
  lastReachedNight?: string;
  /** Outcomes of earlier nights, newest first (for the flag rules). */
  recentOutcomes: NightOutcomeKind[];
  /**
   * P25, P13: how many of its latest nights running (newest first, nights it had an outcome)
   * it was not reached for want of time (the deadline, its owner's pace): not for its site down
   * or asking to wait, which kept its site's pages read from their night too. Absent: none.
   */
  unreachedRun?: number;
  recordsKnown: number;
  backfill?: BackfillState;
  /** Last measured time of its check, ms, for the lane estimate. */
  lastDurationMs?: number;
  /** P11: its catalog URLs that moved permanently, and where the night asks them instead. */
  moved?: Moved[];
  /**
   * P25, P9: for a source marked not read, where its last check that was judged ended (`url`:
   * its outcome's, after any redirect, a refusal's too) and the catalog URL that check asked
   * (`asked`): its recheck goes in that site's lane, after that site's pages that are read, while
   * the catalog URL is still that one and no move is remembered for it.
   */
  lastEnd?: { url: string; asked: string };
  /** P7: a day's overflow left unread on an earlier night, read on from there tonight. */
  overflow?: OverflowPending;
}

/**
 * P7: a source's overflow reading (a list's next pages read because its first page showed no
 * record the source held) that stopped before a page showing a held record: at the bound of
 * `pagesPerNight` pages, or at a next page that failed. The records between where it stopped and
 * those the source held before `since` (the night it began; the earliest, when several nights
 * stack) are still to read: later nights go on from `cursor` (the page not yet read, a GET: a
 * form's postback is never carried over), until a page shows a record held before `since`, or
 * the list ends.
 */
/**
 * P7, P24: an overflow carried over that gave up tonight: its page (`url`) failed as many nights
 * running as a backfill's older page does before it gives up (`reason`: how, and the last
 * failure); the records past it, posted since `since`, are never read. For a person (a flag).
 */
export interface OverflowGaveUp {
  since: string;
  url: string;
  reason: string;
}

export interface OverflowPending {
  since: string;
  cursor: PageRequest;
  /**
   * P4: the catalog URL of the way in whose list it was read through (its pager, its reader):
   * later nights read `cursor` with that way's reader, whichever way answered first tonight;
   * one the catalog no longer lists ends it (a flag). Absent (kept before this was): the way
   * that answers.
   */
  way?: string;
  /**
   * Nights in a row on which `cursor`'s page failed with an answer that is not the page, or got
   * no answer about itself (as BackfillState's): at BACKFILL_MISSES, BACKFILL_UNANSWERED_NIGHTS
   * the overflow is given up.
   */
  failedNights?: number;
  unansweredNights?: number;
}

/**
 * P11: a source's catalog URL (`from`, a way's URL as the catalog writes it) that answered a
 * permanent redirect (301, 308, every hop) to `to`, where the page was read on `night`. Kept in
 * the store by source and `from`, so a catalog that changes the URL leaves it behind.
 */
export interface Moved {
  from: string;
  to: string;
  night: string;
}

/** P11: what a night changes of a source's moves: one remembered, or one forgotten (and why). */
export type MoveChange =
  | { kind: "remember"; from: string; to: string }
  | { kind: "forget"; from: string; to: string; why: string };

/** P13: the words of a source the deadline stopped before anything was asked of its page. */
export const TIME_LIMIT_PASSED = "the night's time limit passed";

/** What a recheck cut short (outcome.ts recheckHopReason, recheckRetryReason) says before why. */
export const NOT_SENT_FOR = " was not sent: ";

/**
 * P13: whether a source cut short (its `reason` as stored) was cut by the night's time limit:
 * every one a night's read cut (cutShortOutcome), and a recheck's hop not sent for it; not a
 * recheck's hop or retry not sent as its site was down tonight or asked to wait
 * (outcome.ts recheckHopReason, recheckRetryReason).
 */
export function cutByTheDeadline(reason: string | null | undefined): boolean {
  if (reason?.startsWith("its page (") !== true) return true;
  const at = reason.lastIndexOf(NOT_SENT_FOR);
  return at < 0 || reason.startsWith(TIME_LIMIT_PASSED, at + NOT_SENT_FOR.length);
}

/** Whether a refusal's reason is outcome.ts siteClosedReason's: not asked, its site's no earlier tonight. */
export function isSiteClosedReason(reason: string | undefined): boolean {
  return reason === SITE_CLOSED_REASON || reason?.startsWith(`${SITE_CLOSED_REASON}: `) === true;
}

/**
 * P13, P21: a source not asked tonight because its site had said no earlier tonight (its own
 * page sent nothing): for the next night's order it was not reached, and goes first (lanes.ts),
 * though its page shows that night's no (P23) as it is. Not one whose page was asked (`asked`, its
 * way's URL) and whose redirect hop (`url`, where it ended) met another site's no tonight.
 */
export function closedUnasked(
  kind: string,
  reason: string | null | undefined,
  url?: string | null,
  asked?: string,
): boolean {
  if (kind !== "refused" || !isSiteClosedReason(reason ?? undefined)) return false;
  // Its own page asked, a redirect hop of it met another site closed tonight: it was reached.
  return url === undefined || url === null || asked === undefined || url === asked;
}
