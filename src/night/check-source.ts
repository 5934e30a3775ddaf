/**
 * Reads one source for one night: the best way in that robots.txt allows and that works (P4),
 * page 1 with its validators (P12), then up to `backfill.pagesPerNight` older pages while the
 * source is new (P7). Never throws for what a site answers: every answer is a NightOutcome.
 */
import type { Clock } from "../clock.js";
import { SourceCookieJar } from "../net/cookie-jar.js";
import type { CookieJarPort, Fetcher, FetchOutcome, FetchRequest, Purpose } from "../net/types.js";
import {
  BACKFILL_MISSES,
  BACKFILL_UNANSWERED_NIGHTS,
  MAX_URL_LENGTH,
} from "../policy/constants.js";
import { siteOf } from "../policy/site.js";
import type { Source, WayIn } from "../sources/catalog/types.js";
import type { ExtractedRecord, Extraction } from "../sources/record.js";
import { firstAsk, type Opened } from "./first-ask.js";
import { askedAt, moveChange, movedFrom, movesLeftBehind } from "./moves.js";
import { endsTheSource, failureOutcome } from "./outcome.js";
import { pageKey, pageKeyOf, readerKey } from "./page-key.js";
import {
  type KnownPageRead,
  keptAs,
  type PageRead,
  type PageReads,
  type ValidatorStore,
  type WayReader,
  waysInOrder,
} from "./reader.js";
import {
  type BackfillEnd,
  type BackfillState,
  type MoveChange,
  type Moved,
  type NightOutcome,
  NO_OUTCOMES,
  NOT_JUDGED_OUTCOMES,
  type OverflowPending,
  type PageRequest,
  type SourceHistory,
  type SourceResult,
  type WayChoice,
  type WayUsed,
} from "./types.js";
import { skipped, wayUsed } from "./way-choice.js";

export interface CheckContext {
  fetcher: Fetcher;
  clock: Clock;
  reader: WayReader;
  validators: ValidatorStore;
  /** When tonight first started (before any restart): answers stored since are not asked again. */
  nightStartedAt?: number;
  /** P8, P12: the first pages last read in full; a 304 of the same copy is counted, not read. */
  pageReads?: PageReads;
  /** P22: the jar of this source's check (withCookieJar), for what a stored answer had set. */
  cookieJar?: CookieJarPort;
  /** P7: which records the source holds: a first page that shows none of them has overflowed. */
  held?: HeldRecords;
  /** The night being run (P7: the night an overflow left unfinished began, kept with it). */
  night?: string;
}

/** P7: the store's word on whether a source holds any of these records (by id). */
export interface HeldRecords {
  /** `before`: only records first seen on a night before that one. */
  holdsAny(sourceId: string, ids: readonly string[], before?: string): Promise<boolean>;
  /**
   * By their look (a link however written, a day and title): files moved, another way in.
   * `before`: only records first seen on a night before that one.
   */
  holdsLike(
    sourceId: string,
    records: readonly { title: string; date?: string; url?: string }[],
    before?: string,
  ): Promise<boolean>;
  /** For each record, whether it is held by its look (each alone), read once for all. */
  heldLike(
    sourceId: string,
    records: readonly { title: string; date?: string; url?: string }[],
    before?: string,
  ): Promise<boolean[]>;
}

/**
 * How a source's first page is read: its full read is kept by its key (`pageReads`), and
 * `countKnown`: a 304 whose copy is that read is counted from it, not extracted again (only
 * when nothing else needs the page's records and body: a backfill that has not started does).
 */
interface FirstPage {
  countKnown: boolean;
  /** P11: the last answer the fetcher gave for the page (whether it moved permanently). */
  seen?: { outcome?: FetchOutcome };
}

/**
 * Whether a page whose key is `key` may be counted from its last full read (`known`): the same
 * key, and every record that read produced still stored.
 */
function countable(known: KnownPageRead | undefined, key: string): known is KnownPageRead {
  return known !== undefined && known.key === key && known.allStored;
}

/** A full read of a first page as the store keeps it: its key, its records counted and their ids. */
function fullRead(
  way: WayIn,
  url: string,
  contentType: string | undefined,
  body: Uint8Array,
  extraction: Extraction,
  key: string = pageKeyOf(way, url, contentType, body),
): PageRead {
  const ids = [...new Set(extraction.records.map((r) => r.id))];
  return { url, key, records: extraction.records.length, ids };
}

type Read =
  | {
      kind: "read";
      extraction: Extraction;
      body: Uint8Array;
      url: string;
      /** The answer's Content-Type: the pager reads the page in its charset, as `extract` did. */
      contentType?: string | undefined;
      validators?: SourceResult["validators"][0];
      pageRead?: PageRead;
    }
  | {
      /**
       * A full answer (200) whose body is the page last read in full (its key) while the store
       * still holds every record that read produced: its records are counted from that read,
       * not read again, as those of a 304 of that copy are. A site that ignores validators
       * sends the same page every night; reading it again would find the same records. The
       * source's outcome is `ok`, as for any full answer: `unchanged` says the site answered
       * 304.
       */
      kind: "same";
      url: string;
      knownRecords: number;
      validators?: SourceResult["validators"][0];
    }
  | {
      kind: "unchanged";
      url: string;
      extraction?: Extraction;
      body?: Uint8Array;
      contentType?: string | undefined;
      /** The copy is the page last read in full: its records, all stored, are only counted. */
      knownRecords?: number;
      pageRead?: PageRead;
    }
  | { kind: "failed"; outcome: NightOutcome };

/**
 * P5, P22: one source's check with a cookie jar of its own, as a visitor's browser would have
 * for the visit: what a site sets (a search form's session, a cookie check's redirect) goes
 * back to that site on the check's later requests, never to another site (identity.ts,
 * cookie-jar.ts), and the jar ends with the check: never kept, never shared with another
 * source or another night.
 */
function withCookieJar(ctx: CheckContext): CheckContext {
  const cookieJar = new SourceCookieJar(ctx.clock);
  const fetcher = ctx.fetcher;
  return {
    ...ctx,
    cookieJar,
    fetcher: { fetch: (req) => fetcher.fetch(req.cookieJar ? req : { ...req, cookieJar }) },
  };
}

/**
 * The reader of this way loaded (lazy-reader.ts), or, when it cannot be, the source's
 * extract-error saying why: the copy in hand is not asked for again on that account (P8).
 */
async function readerNotLoaded(
  ctx: CheckContext,
  way: WayIn,
  url: string,
): Promise<Read | undefined> {
  try {
    await ctx.reader.ready?.(way);
    return undefined;
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return { kind: "failed", outcome: { kind: "extract-error", reason, url } };
  }
}

function toFetch(req: PageRequest, purpose: Purpose, source: string): FetchRequest {
  const out: FetchRequest = { url: req.url, purpose, source };
  if (req.method !== undefined) out.method = req.method;
  if (req.body !== undefined) out.body = req.body;
  if (req.contentType !== undefined) out.contentType = req.contentType;
  if (req.accept !== undefined) out.accept = req.accept;
  return out;
}

async function readOne(
  ctx: CheckContext,
  way: WayIn,
  req: PageRequest,
  purpose: Purpose,
  sourceId: string,
  conditional: boolean,
  first?: FirstPage,
  /** P11: the last answer the fetcher gave (a page not read as a first page: ownFirstPage's). */
  fetched?: { outcome?: FetchOutcome },
): Promise<Read> {
  const freq = toFetch(req, purpose, sourceId);
  const seen = first?.seen ?? fetched;
  const isGet = (req.method ?? "GET") === "GET";
  // Only a GET's first page is kept by its key: a form's POST body is not part of it.
  const keep = (
    url: string,
    contentType: string | undefined,
    body: Uint8Array,
    e: Extraction,
    key?: string,
  ) =>
    first && isGet && ctx.pageReads ? fullRead(way, url, contentType, body, e, key) : undefined;
  if ((req.method ?? "GET") === "GET" && ctx.nightStartedAt !== undefined) {
    // P8 after kill -9: the answer was archived tonight but its source never committed. Tonight
    // is from the night's start to now: a copy stamped after now (a clock that ran ahead on an
    // earlier night, then set right) was not fetched tonight and is asked for (P8, P27); nor is
    // one another night saved, whatever its time (a clock ahead stamps it inside tonight's).
    const copy = await ctx.validators.storedSince?.(
      keptAs(req.url),
      ctx.nightStartedAt,
      ctx.clock.now(),
      ctx.night,
    );
    if (copy) {
      // The cookies that answer set go back as if it had been received again (a resumed
      // night's backfill keeps its session, P5), only those of the request's own site (P22).
      if (copy.setCookies && siteOf(copy.url) === siteOf(req.url))
        ctx.cookieJar?.store(copy.url, copy.setCookies);
      const notLoaded = await readerNotLoaded(ctx, way, copy.url);
      if (notLoaded) return notLoaded;
      try {
        const extraction = ctx.reader.extract(way, copy.body, copy.url, copy.contentType);
        if (extraction.unreadable === undefined) {
          const read: Read = {
            kind: "read",
            extraction,
            body: copy.body,
            url: copy.url,
            contentType: copy.contentType,
          };
          const pr = keep(copy.url, copy.contentType, copy.body, extraction);
          if (pr) read.pageRead = pr;
          return read;
        }
      } catch {
        // The recipe cannot read tonight's copy: asked again below, and judged on the answer.
      }
    }
  }
  if (conditional && (req.method ?? "GET") === "GET") {
    const v = await ctx.validators.get(keptAs(req.url));
    if (v && (v.etag || v.lastModified)) freq.validators = v;
    freq.validatorsFor = (url) => ctx.validators.get(url);
  }
  let o: FetchOutcome = await ctx.fetcher.fetch(freq);
  if (seen) seen.outcome = o;
  if (o.kind === "not-modified") {
    const u = await unchanged(ctx, way, o.url, sourceId, first);
    if (u !== "lost") return u;
    // P8: the copy the validators belong to is gone, so asking in full is not asking for
    // what we already have; the answer is stored anew.
    delete freq.validators;
    delete freq.validatorsFor;
    o = await ctx.fetcher.fetch(freq);
    if (seen) seen.outcome = o;
    if (o.kind === "not-modified") return { kind: "unchanged", url: o.url };
  }
  if (o.kind !== "ok") return { kind: "failed", outcome: failureOutcome(o) };
  const etag = o.headers["etag"];
  const lastModified = o.headers["last-modified"];
  // Kept under the URL that answered (after any redirect), which is where they apply.
  const answered: SourceResult["validators"][0] | undefined =
    conditional && (etag || lastModified) ? { url: o.url } : undefined;
  if (answered && etag) answered.etag = etag;
  if (answered && lastModified) answered.lastModified = lastModified;
  // The page last read in full, sent again whole: counted from that read (a page that showed
  // no records is read again, for what it says instead).
  const counting = first?.countKnown && isGet ? ctx.pageReads : undefined;
  let key: string | undefined;
  if (counting) {
    const known = await counting.pageRead(sourceId, o.url);
    if (known !== undefined && known.records > 0 && known.allStored) {
      key = pageKeyOf(way, o.url, o.headers["content-type"], o.body);
      if (known.key === key) {
        const same: Read = { kind: "same", url: o.url, knownRecords: known.records };
        if (answered) same.validators = answered;
        return same;
      }
    }
  }
  let extraction: Extraction;
  try {
    await ctx.reader.ready?.(way);
    extraction = ctx.reader.extract(way, o.body, o.url, o.headers["content-type"]);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return {
      kind: "failed",
      outcome: { kind: "extract-error", reason, url: o.url, status: o.status },
    };
  }
  if (extraction.unreadable !== undefined) {
    // P6: a page the reader cannot read for sure is said so, never read as fewer records.
    return {
      kind: "failed",
      outcome: {
        kind: "extract-error",
        reason: extraction.unreadable,
        url: o.url,
        status: o.status,
      },
    };
  }
  const read: Read = {
    kind: "read",
    extraction,
    body: o.body,
    url: o.url,
    contentType: o.headers["content-type"],
  };
  const pr = keep(o.url, o.headers["content-type"], o.body, extraction, key);
  if (pr) read.pageRead = pr;
  if (answered) read.validators = answered;
  return read;
}

/**
 * A 304 (P12) is answered from the copy we hold (P8). When the copy is the source's first page
 * as last read in full (the same key, its records stored in the same commit as that key) and
 * the store still holds every record that read produced, they are counted: the same records,
 * the same count, known from the archive's index without reading the copy back (a 304 costs
 * nothing more). Otherwise its records are read again from the copy, read back and its digest
 * checked, so a source whose answer was archived just before a crash still gets its records
 * stored, and a record removed since (by hand, or a `records` table put back from an older
 * backup) is brought back; the site is not asked again.
 */
async function unchanged(
  ctx: CheckContext,
  way: WayIn,
  url: string,
  sourceId: string,
  first: FirstPage | undefined,
): Promise<Read | "lost"> {
  // The 304 is about the URL that answered it (after any redirect); that is where its copy is.
  // Its records may be counted from the page's last full read (no backfill to start).
  const counting = first?.countKnown ? ctx.pageReads : undefined;
  if (counting && ctx.validators.copyFacts) {
    const facts = await ctx.validators.copyFacts(url);
    if (facts !== undefined) {
      const known = await counting.pageRead(sourceId, facts.url);
      const key = pageKey(way, facts.url, facts.contentType, facts.payloadDigest);
      // A page that showed no records is read again, for what it says instead (as a 200 is).
      if (countable(known, key) && known.records > 0)
        return { kind: "unchanged", url, knownRecords: known.records };
    }
  }
  // Its records are read: the copy is read back, and one gone or damaged is not one we hold
  // (P8): the page is asked again in full.
  const copy = await ctx.validators.storedCopy?.(url);
  if (!copy) return { kind: "unchanged", url };
  if ("lost" in copy) return "lost";
  const key = first && ctx.pageReads ? pageKeyOf(way, copy.url, copy.contentType, copy.body) : "";
  // Counted here only where the index could not say (a store without copyFacts).
  if (counting && !ctx.validators.copyFacts) {
    const known = await counting.pageRead(sourceId, copy.url);
    if (countable(known, key) && known.records > 0)
      return { kind: "unchanged", url, knownRecords: known.records };
  }
  const notLoaded = await readerNotLoaded(ctx, way, url);
  if (notLoaded) return notLoaded;
  try {
    const extraction = ctx.reader.extract(way, copy.body, copy.url, copy.contentType);
    if (extraction.unreadable !== undefined) return { kind: "unchanged", url };
    const u: Read = {
      kind: "unchanged",
      url,
      extraction,
      body: copy.body,
      contentType: copy.contentType,
    };
    if (key !== "")
      u.pageRead = fullRead(way, copy.url, copy.contentType, copy.body, extraction, key);
    return u;
  } catch {
    // The stored copy read fine when it was stored; a recipe change that breaks it shows
    // on the next full read, not as tonight's outcome for an unchanged page.
    return { kind: "unchanged", url };
  }
}

/** What an overflow reading found tonight (readOverflow). */
interface Overflow {
  records: ExtractedRecord[];
  stoppedBy?: NightOutcome;
  /** What changed of the source's overflow left unfinished (SourceResult `overflow`). */
  change?: NonNullable<SourceResult["overflow"]>;
}

/**
 * P7: after a source's backfill has ended, a night reads its list's first page only. A day on
 * which the site posts more records than that page shows pushes the oldest of them to the next
 * page before any night saw them. So when tonight's first page, read in full, shows records and
 * none of them is one the source holds (the list has moved past what it holds), its next pages
 * are read the same night, through the same pager and at the same pace as the backfill's (the
 * gap, robots.txt, the site gate; logged as `backfill`), until a page shows a record the source
 * holds, shows none, leads off the list or back to a page read tonight, or the backfill's
 * pages a night are read. Their records are tonight's list: new on record like the first
 * page's. Never on a source's first read (nothing held: its backfill reads the older pages), nor
 * while its backfill goes on, nor when its catalog asks for no older pages. A page that fails
 * ends the reading there (the night's word on the source when it is a no or the deadline).
 *
 * A reading that stops before a page showing a held record (the bound, or a page that failed) is
 * left pending (SourceHistory `overflow`): the records past where it stopped are not yet read.
 * The next nights go on from that page (after their first page, and after their own overflow
 * when that page overflowed again), with the same bound, until a page shows a record held before
 * the night the overflow began (those first seen since are the part already read), or the list
 * ends: then it is done. A page of it that shows no record held by id but some by their look
 * (the list's files moved since) ends it too, those records not taken: they would be the source's
 * older records under new ids. Its page failing nights in a row (counted as a backfill's:
 * BACKFILL_MISSES, BACKFILL_UNANSWERED_NIGHTS; a no or the deadline not counted) gives it up.
 * Nothing pending, nothing more is asked (P11).
 */
async function readOverflow(
  ctx: CheckContext,
  source: Source,
  way: WayIn,
  firstReq: PageRequest,
  page1: Read,
  history: SourceHistory,
): Promise<Overflow> {
  const out: Overflow = { records: [] };
  const b = history.backfill;
  const perNight = source.backfill.pagesPerNight;
  if (ctx.held === undefined || b === undefined || !b.done || pausedOff(b) || perNight <= 0)
    return out;
  // A first page read in full, or a 304 read back from its copy (a pending overflow asks for
  // its records and body: its pager turns from it).
  if (page1.kind === "same" || page1.kind === "failed" || !page1.extraction || !page1.body)
    return out;
  if (page1.extraction.records.length === 0) return out;
  const held = ctx.held;
  const pending = history.overflow;
  const holds = (rs: readonly ExtractedRecord[], before?: string) =>
    held.holdsAny(
      source.id,
      rs.map((x) => x.id),
      before,
    );
  /**
   * Whether every one of these records was held before `since` and none is new or first seen
   * on `since` or a night after it.
   */
  const allHeldBefore = async (rs: readonly ExtractedRecord[], since: string): Promise<boolean> => {
    for (const x of rs) if (!(await holds([x], since))) return false;
    return true;
  };
  // A first page whose records the source holds under other ids (its files moved, its links
  // written anew, another way in than the list's last: docs/catalog.md) has not overflowed: its
  // next pages show the source's older records under new ids, never new ones.
  const first = page1.extraction.records;
  const firstHeld = await holds(first);
  // Not held, on a page not read tonight (a 304's copy): no overflow of tonight's to read.
  if (!firstHeld && page1.kind !== "read") return out;
  if (!firstHeld && (await held.holdsLike(source.id, first))) return out;
  if (firstHeld && pending === undefined) return out;
  // A first page showing only records held before the overflow pending began: all past it is
  // older (the site took back what it had posted, say): nothing is left between (P11: nothing
  // asked). One older record shown first beside those of the overflow, or beside new ones (an
  // old bid updated, a list sorted by its last change), leaves what is pending below them.
  if (firstHeld && pending !== undefined && (await allHeldBefore(first, pending.since))) {
    out.change = { done: true };
    return out;
  }
  // A first page showing records held before it began beside new ones: the list may have been
  // taken back (its page kept now past its end), or an old record moved to the top. Read on; the
  // page kept gone (404, 410) then says the list ends before it, no failure for a person.
  const shrunk = firstHeld && pending !== undefined && (await holds(first, pending.since));
  const listSite = siteOf(page1.url);
  const seen = new Set([pageId(firstReq), pageId({ url: page1.url })]);
  let lastIds = idsOf(first);
  let budget = perNight;
  // Where a reading stopped before a held record: kept pending, from the earliest night.
  const since =
    pending !== undefined && (ctx.night === undefined || pending.since < ctx.night)
      ? pending.since
      : ctx.night;
  const done = (): Overflow => {
    if (pending !== undefined) out.change = { done: true };
    return out;
  };
  const leave = (at: PageRequest, from: WayIn, failed?: NightOutcome): Overflow => {
    // A postback's state is tonight's only (P5): a form's pager is never carried over (turned
    // again from a later night's first page, it would ask the same pages every night).
    if (since === undefined || (at.method ?? "GET") !== "GET" || at.hop !== undefined)
      return done();
    // P4: with the way whose list it is: read on with that way's reader whichever answers first.
    const p: OverflowPending = { since, cursor: { ...at }, way: from.url };
    // The nights in a row its page failed, counted as the backfill's are (missedPage): at their
    // bound it is given up, not asked every night for ever.
    if (pending !== undefined && pageId(pending.cursor) === pageId(at)) {
      if (pending.failedNights) p.failedNights = pending.failedNights;
      if (pending.unansweredNights) p.unansweredNights = pending.unansweredNights;
    }
    if (failed !== undefined && missedPage(failed)) {
      const unanswered = failed.unanswered === true;
      const nights = (unanswered ? p.unansweredNights : p.failedNights) ?? 0;
      if (nights + 1 >= (unanswered ? BACKFILL_UNANSWERED_NIGHTS : BACKFILL_MISSES)) {
        // P24: records never to be read are for a person (a flag), never lost unsaid.
        out.change = {
          done: true,
          gaveUp: {
            since,
            url: at.url,
            reason: `${unanswered ? "no answer" : "not the page"} ${nights + 1} nights running (last: ${missWords(failed)})`,
          },
        };
        return out;
      }
      if (unanswered) p.unansweredNights = nights + 1;
      else p.failedNights = nights + 1;
    }
    if (JSON.stringify(pending) !== JSON.stringify(p)) out.change = { pending: p };
    return out;
  };
  /** One next page read: its records, or why the reading stops there. */
  const readNext = async (
    req: PageRequest,
    from: WayIn,
  ): Promise<
    | { stop: "failed"; outcome?: NightOutcome }
    | { stop: "end" }
    | { rs: ExtractedRecord[]; asked: Read }
  > => {
    seen.add(pageId(req));
    budget--;
    const asked = await readOne(ctx, from, req, "backfill", source.id, true);
    if (asked.kind === "failed") {
      if (endsTheSource(asked.outcome.kind) && asked.outcome.kind !== "unreached")
        out.stoppedBy = asked.outcome;
      return { stop: "failed", outcome: asked.outcome };
    }
    // P12: a page asked before (by the backfill) is asked with its validators; a 304 is read
    // from the stored copy (P8). One not so read is no answer about its records.
    if (asked.kind === "same" || !asked.extraction || !asked.body) return { stop: "failed" };
    const rs = asked.extraction.records;
    const ids = idsOf(rs);
    if (ids === undefined || ids === lastIds) return { stop: "end" };
    lastIds = ids;
    return { rs, asked };
  };
  const nextOf = (
    req: PageRequest,
    asked: Read,
    from: WayIn = way,
    site: string = listSite,
  ): PageRequest | undefined =>
    asked.kind === "failed" || asked.kind === "same" || !asked.extraction || !asked.body
      ? undefined
      : sameList(
          ctx.reader.nextRequest(from, req, asked.body, asked.extraction, asked.contentType),
          site,
        );
  let next = nextOf(firstReq, page1);
  // P4: an overflow pending on another way's list than tonight's (its end is not that list's).
  const elsewhere = pending?.way !== undefined && pending.way !== way.url;
  if (!firstHeld) {
    // Tonight's own overflow: until a page shows a record the source holds.
    let reached = false;
    while (!reached) {
      if (next === undefined || seen.has(pageId(next))) {
        if (elsewhere) break;
        return done();
      }
      if (budget <= 0) return leave(next, way);
      const r = await readNext(next, way);
      if ("stop" in r && r.stop === "end" && elsewhere) break;
      if ("stop" in r) return r.stop === "end" ? done() : leave(next, way, r.outcome);
      out.records.push(...r.rs);
      const req = next;
      next = nextOf(req, r.asked);
      if (await holds(r.rs)) {
        reached = true;
        // Held before a pending overflow began (or nothing pending): nothing left between.
        if (pending === undefined || (await holds(r.rs, pending.since))) return done();
      }
    }
  }
  // P7: an overflow left unfinished on an earlier night goes on from the page it stopped at
  // (one read tonight already: from where tonight's reading stopped).
  const p = pending as OverflowPending;
  // P4: read with the way whose list it is (its pager, its reader), not tonight's first way in
  // when another answered first (a feed's reader given a page's list reads nothing of it).
  const carry = p.way === undefined ? way : waysInOrder(source).find((w) => w.url === p.way);
  if (carry === undefined) {
    // Its way in is no longer the catalog's (its URL changed, or the way taken out): the records
    // past its page are never read; for a person (P24).
    out.change = {
      done: true,
      gaveUp: {
        since: p.since,
        url: p.cursor.url,
        reason: `its way in, ${p.way}, is no longer the catalog's`,
      },
    };
    return out;
  }
  // Its list's site: where tonight's first page answered, for tonight's way; else where that
  // way is asked (its catalog URL, or where it moved permanently, P11).
  const carrySite = carry === way ? listSite : siteOf(askedAt(history.moved, carry.url));
  const cursor = sameList(p.cursor, carrySite);
  if (carry !== way) next = cursor;
  else if (cursor !== undefined && !seen.has(pageId(cursor))) next = cursor;
  for (;;) {
    if (next === undefined || seen.has(pageId(next))) return done();
    if (budget <= 0) return leave(next, carry);
    const r = await readNext(next, carry);
    if ("stop" in r && r.stop === "failed" && shrunk && r.outcome?.kind === "gone") return done();
    if ("stop" in r) return r.stop === "end" ? done() : leave(next, carry, r.outcome);
    if (await holds(r.rs, p.since)) {
      out.records.push(...r.rs);
      return done();
    }
    // The list's files moved since: its older records under new ids, never new. The page's
    // others (the last of those not yet read, beside the first held) are taken, and it ends.
    // Held by their look before it began, only: the records of the part already read are often
    // alike (a day's legal notices, one title and day), and are never the list's older ones.
    if (!(await holds(r.rs)) && (await held.holdsLike(source.id, r.rs, p.since))) {
      // Told for all at once where the store can (one read of its records, not one a record).
      const alike = await held.heldLike(source.id, r.rs, p.since);
      r.rs.forEach((x, i) => {
        if (!alike[i]) out.records.push(x);
      });
      return done();
    }
    out.records.push(...r.rs);
    const req = next;
    next = nextOf(req, r.asked, carry, carrySite);
  }
}

/** P7: older than the cut-off means the backfill has gone far enough. */
function pastUntil(ext: Extraction, until: string | undefined): boolean {
  if (!until) return false;
  const dated = ext.records.filter((r) => r.date !== undefined);
  return dated.length > 0 && dated.every((r) => (r.date as string).slice(0, 10) < until);
}

export async function checkSource(
  nightCtx: CheckContext,
  source: Source,
  history: SourceHistory,
): Promise<SourceResult> {
  const ctx = withCookieJar(nightCtx);
  const startedAt = ctx.clock.now();
  const records: ExtractedRecord[] = [];
  const validators: SourceResult["validators"] = [];
  let first: NightOutcome | undefined;
  let outcome: NightOutcome | undefined;
  let backfill: BackfillState | undefined;
  let overflow: SourceResult["overflow"];
  // P7, P8: how many of `records` a first page answered 304 showed from its copy (SourceResult).
  let copied: number | undefined;
  let knownRecords = 0;
  let pageRead: PageRead | undefined;
  // P7: how many of `records` the first page listed (the rest came from older pages).
  let onFirstPage: number | undefined;
  // P4: the way that gave tonight's answer, and every better one passed over with its why.
  const choice: WayChoice = { skipped: [] };
  // P4: the first way that opened but showed no records, while a later way was left to ask.
  let empty: { outcome: NightOutcome; used: WayUsed; at: number; pageRead?: PageRead } | undefined;
  // The way whose answer was read as its list tonight (records or none): its reader is kept.
  let readWay: WayIn | undefined;
  // P11: the catalog URLs that moved permanently tonight, or whose remembered target failed:
  // one change a catalog URL (a backfill's other way opened is asked at most once, P11).
  const moves: MoveChange[] = [];
  const addMove = (c: MoveChange | undefined): void => {
    if (c !== undefined && !moves.some((m) => m.from === c.from)) moves.push(c);
  };

  const ways = waysInOrder(source);
  for (const [n, way] of ways.entries()) {
    const opened = await firstRequestOf(ctx, way, source.id, history.moved);
    const { move } = opened;
    if (opened.change) addMove(opened.change);
    const used = (): WayUsed => {
      const u = wayUsed(way);
      if (move) u.asked = move.to;
      return u;
    };
    if ("failed" in opened) {
      first ??= opened.failed;
      if (endsTheSource(opened.failed.kind)) {
        outcome = opened.failed;
        choice.used = used();
        break;
      }
      choice.skipped.push(skipped(way, opened.failed));
      continue;
    }
    const { purpose, req, plain } = opened;
    const seen: { outcome?: FetchOutcome } = {};
    const r = await readOne(ctx, way, req, purpose, source.id, true, {
      // P7: an overflow left pending turns its pager from tonight's page 1 (its records and body).
      countKnown: !backfillNeedsPage1(source, history) && history.overflow === undefined,
      seen,
    });
    // P11: what the answer to a way's own first page (a plain GET) says of its move.
    if (plain)
      addMove(moveChange(way.url, move, r.kind === "failed" ? r.outcome : undefined, seen.outcome));
    if (r.kind === "failed") {
      first ??= r.outcome;
      if (endsTheSource(r.outcome.kind)) {
        outcome = r.outcome;
        choice.used = used();
        break;
      }
      choice.skipped.push(skipped(way, r.outcome));
      continue; // P4: the next way in, if this one is disallowed or does not work
    }
    choice.used = used();
    readWay = way;
    if (r.kind === "same") {
      // Its read is kept as it was (the same key, the same records): nothing to write again.
      knownRecords = r.knownRecords;
      if (r.validators) validators.push(r.validators);
      outcome = { kind: "ok", url: r.url };
    } else if (r.kind === "read") {
      pageRead = r.pageRead;
      records.push(...r.extraction.records);
      if (r.validators) validators.push(r.validators);
      outcome =
        r.extraction.records.length > 0
          ? { kind: "ok", url: r.url }
          : {
              kind: "no-records",
              url: r.url,
              reason: r.extraction.note ?? "no records on the page",
            };
    } else {
      pageRead = r.pageRead;
      if (r.extraction) records.push(...r.extraction.records);
      knownRecords = r.knownRecords ?? 0;
      // Unchanged, and showing no records: still the page that opens but shows none (the
      // night checks that a page still shows records), never a "yes". Unknown (no copy to
      // count from) stays unchanged.
      const shown = r.extraction ? r.extraction.records.length : r.knownRecords;
      outcome =
        shown === 0
          ? {
              kind: "no-records",
              url: r.url,
              reason: `${r.extraction?.note ?? "no records on the page"} (unchanged since it was last read)`,
            }
          : { kind: "unchanged", url: r.url };
    }
    // P4: a way whose answer is not of its kind at all (a feed's address answering a page for
    // people, an api or a download answering something else than JSON, CSV or XLSX) does not
    // work, while a later way is left: that one is asked too, and this one said passed over,
    // with its why. If none shows records, the first such answer is the night's. An empty feed
    // or list works (P11: nothing more is asked of a source whose way answered).
    const notThisWay = r.kind !== "same" && r.extraction?.notThisWay === true;
    if (notThisWay && records.length === 0 && n < ways.length - 1) {
      empty ??= {
        outcome,
        used: used(),
        at: choice.skipped.length,
        ...(pageRead ? { pageRead } : {}),
      };
      choice.skipped.push(skipped(way, outcome));
      outcome = undefined;
      pageRead = undefined;
      readWay = undefined;
      delete choice.used;
      continue;
    }
    // The last way in answering something else than its kind (a feed's address answering a
    // maintenance page) is the night's answer, but read no list: no reader is kept, so the
    // night does not count as the list read empty (docs/catalog.md "New on record, and already
    // listed").
    if (notThisWay) readWay = undefined;
    // P7: a day's records past the list's first page, read as tonight's list (new on record).
    const fromCopy = records.length;
    const spill = await readOverflow(ctx, source, way, req, r, history);
    records.push(...spill.records);
    if (spill.change) overflow = spill.change;
    // Next pages read in full past a first page answered 304: what they show is the site's now,
    // not a copy's (a record first seen on them is new on record, as any overflow's); the first
    // page's, read from its copy, stay our reading of it as it was (`copied`).
    if (outcome.kind === "unchanged" && spill.records.length > 0) {
      outcome = { kind: "ok", url: r.url };
      copied = fromCopy;
    }
    onFirstPage = records.length;
    if (spill.stoppedBy) {
      outcome = spill.stoppedBy;
      break;
    }
    const bf = await runBackfill(ctx, source, way, req, r, history, records, addMove);
    backfill = bf.state;
    if (bf.stoppedBy) outcome = bf.stoppedBy;
    else if (outcome.kind === "no-records" && records.length > 0)
      outcome = { kind: "ok", url: r.url };
    break;
  }

  if (outcome === undefined && empty !== undefined) {
    // No later way showed records, nor said no: the way that opened is the night's answer.
    outcome = empty.outcome;
    choice.used = empty.used;
    choice.skipped.splice(empty.at, 1);
    pageRead = empty.pageRead;
  }
  const result: SourceResult = {
    sourceId: source.id,
    outcome: outcome ?? first ?? { kind: "error", reason: "the source lists no way in" },
    records,
    validators,
    way: choice,
    flags: [],
    startedAt,
    endedAt: ctx.clock.now(),
  };
  if (onFirstPage !== undefined && records.length > onFirstPage) result.olderFrom = onFirstPage;
  if (copied !== undefined && copied > 0) result.copied = copied;
  // Only a state that moved is written again: a backfill done long ago is not rewritten every
  // night (one statement and a page of the store's log less a source).
  // P7: the restarts the night read go with its saves of the backfill and the overflow, which
  // hold only while they are the store's (a person's restart made meanwhile is kept, never
  // overwritten: the overflow it cleared is not written back).
  const restartsRead = history.backfill?.restarted?.count;
  if (backfill && !sameBackfill(backfill, history.backfill)) {
    const { restarted: _, ...state } = backfill;
    result.backfill = restartsRead ? { ...state, restarted: { count: restartsRead } } : state;
  }
  if (overflow) result.overflow = overflow;
  if (restartsRead && (result.backfill || overflow)) result.restartsRead = restartsRead;
  if (knownRecords > 0) result.knownRecords = knownRecords;
  if (pageRead) result.pageRead = pageRead;
  // A list read (not a way that answered something else than its kind, kept as the night's
  // answer when no later way showed records: that one read no list).
  if (readWay !== undefined && choice.used !== undefined) result.reader = readerKey(readWay);
  // P11: a move kept for a URL the catalog no longer lists for the source is forgotten.
  moves.push(
    ...movesLeftBehind(
      history.moved,
      ways.map((w) => w.url),
      moves,
    ),
  );
  if (moves.length > 0) result.moves = moves;
  return result;
}

/**
 * Whether two backfill states say the same (done, pages read, misses, where it goes on from).
 * Its cursor's `way` aside: it changes only with the cursor, but for a cursor kept before its way
 * was, which is tonight's way's and is not written again for that alone.
 */
function sameBackfill(a: BackfillState, b: BackfillState | undefined): boolean {
  return (
    b !== undefined &&
    a.done === b.done &&
    a.pagesRead === b.pagesRead &&
    (a.misses ?? 0) === (b.misses ?? 0) &&
    (a.failedNights ?? 0) === (b.failedNights ?? 0) &&
    a.lastMiss === b.lastMiss &&
    (a.unansweredNights ?? 0) === (b.unansweredNights ?? 0) &&
    a.ended?.why === b.ended?.why &&
    JSON.stringify(a.cursor) === JSON.stringify(b.cursor)
  );
}

/**
 * P6, P7: the older pages of a list are on the list's own site (P9's site: a vendor's other host
 * of it is the same site), the site of the list's first page as it answered tonight. A "next"
 * link to another site, or to no web address at all, leads off the list: it is never followed,
 * and the list, as far as the checker reads it, ends there. So does one whose address is longer
 * than the checker asks for (MAX_URL_LENGTH: net/redirects.ts checkUrl never sends it), rather
 * than a cursor kept for ever that goes nowhere. A cursor kept from an earlier night is held to
 * the same rules.
 */
function sameList(next: PageRequest | undefined, listSite: string): PageRequest | undefined {
  if (next === undefined || next.url.length > MAX_URL_LENGTH) return undefined;
  try {
    const u = new URL(next.url);
    if (u.protocol !== "http:" && u.protocol !== "https:") return undefined;
    return siteOf(u.href) === listSite ? next : undefined;
  } catch {
    return undefined;
  }
}

/** A web address's origin and path, without its query: the list a page of it is a page of. */
function pathOf(url: string): string | undefined {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return undefined;
  }
}

/**
 * A way's first request as a night asks it: a generic form opened (its page asked, P5) and its
 * search made ready to post, else the reader's first request; or why the form could not be
 * opened.
 */
async function firstRequestOf(
  ctx: CheckContext,
  way: WayIn,
  sourceId: string,
  moved: readonly Moved[] | undefined,
): Promise<Opened | (Omit<Opened, "req" | "purpose" | "plain"> & { failed: NightOutcome })> {
  const first = firstAsk(ctx.reader, way, moved, ctx.clock.now());
  if (first.kind === "request") {
    const { kind: _, ...opened } = first;
    return opened;
  }
  const { move } = first;
  // The form reader (and its HTML parser) is loaded by the first form way a night reads.
  const { openFormWay } = await import("./form-way.js");
  const opened = await openFormWay(ctx, way, sourceId, ctx.clock.now(), first.url);
  // Its form page read (the search built from it or not) says where the page is; failed, what
  // it met (as a page's, moves.ts).
  const change = moveChange(
    way.url,
    move,
    opened.answer === undefined && opened.kind === "failed" ? opened.outcome : undefined,
    opened.answer,
  );
  const said = { ...(move ? { move } : {}), ...(change ? { change } : {}) };
  if (opened.kind === "failed") return { failed: opened.outcome, ...said };
  return { req: opened.req, purpose: "form", plain: false, ...said };
}

/**
 * P5, P7: the first page of another way than tonight's, read for its backfill's postback place
 * (runBackfill): a form's search (the form opened as a night opens it), else its first request.
 * Failed: judged as a page on the way to the place (a miss a night, a no or the deadline the
 * night's word on the source).
 */
async function ownFirstPage(
  ctx: CheckContext,
  source: Source,
  own: WayIn,
  moved: readonly Moved[] | undefined,
  onMove: (c: MoveChange | undefined) => void,
): Promise<{ req: PageRequest; read: Read } | { url: string; failed?: NightOutcome }> {
  // Where it moved permanently, as a night asks it (P11), and what its answer says of that.
  const opened = await firstRequestOf(ctx, own, source.id, moved);
  onMove(opened.change);
  if ("failed" in opened) return { url: opened.move?.to ?? own.url, failed: opened.failed };
  const { req, plain, move } = opened;
  const seen: { outcome?: FetchOutcome } = {};
  const r = await readOne(ctx, own, req, "backfill", source.id, true, undefined, seen);
  if (plain)
    onMove(moveChange(own.url, move, r.kind === "failed" ? r.outcome : undefined, seen.outcome));
  if ((r.kind === "read" || r.kind === "unchanged") && r.extraction && r.body)
    return { req, read: r };
  return { url: req.url, ...(r.kind === "failed" ? { failed: r.outcome } : {}) };
}

/**
 * Of the ways whose address has a backfill place's path (runBackfill), those it is a page of
 * where they tell apart by their query: a feed at the list's own path with a query of its own
 * (`/list?format=rss`) is not the list whose next page is `/list?page=4`. Each way's every query
 * parameter is the place's; of those, the ways with the most such.
 */
function ofPlace(
  place: string,
  ways: readonly WayIn[],
  at: (w: WayIn) => readonly string[],
): WayIn[] {
  if (ways.length < 2) return [...ways];
  let have: URLSearchParams;
  try {
    have = new URL(place).searchParams;
  } catch {
    return [...ways];
  }
  const shared = (u: string): number => {
    try {
      const want = [...new URL(u).searchParams];
      return want.every(([k, v]) => have.getAll(k).includes(v)) ? want.length : -1;
    } catch {
      return -1;
    }
  };
  const scored = ways.map((w) => ({ w, n: Math.max(...at(w).map(shared)) }));
  const best = Math.max(...scored.map((x) => x.n));
  return best < 0 ? [...ways] : scored.filter((x) => x.n === best).map((x) => x.w);
}

/**
 * The list site of another way's backfill place (runBackfill): the place's own site, a web
 * address; else where that way is asked (its catalog URL, or where it moved, P11).
 */
function siteOfCursor(
  cursor: PageRequest | undefined,
  own: WayIn,
  moved: readonly Moved[] | undefined,
): string {
  try {
    if (cursor !== undefined) return siteOf(new URL(cursor.url).href);
  } catch {
    // No web address: held to its way's site below, which it is not on (dropped).
  }
  return siteOf(askedAt(moved, own.url));
}

/** A page asked, as the site tells it from another: method, address and form body. */
function pageId(req: PageRequest): string {
  return JSON.stringify([req.method ?? "GET", req.url, req.body ?? ""]);
}

/** A page's records by their ids, in order; undefined for a page that lists none. */
function idsOf(records: readonly ExtractedRecord[]): string | undefined {
  return records.length > 0 ? JSON.stringify(records.map((r) => r.id)) : undefined;
}

/**
 * P7: a backfill that has not started turns from page 1, so page 1's records and body are read;
 * so does one whose cursor is a postback (P5: turned again from tonight's page 1, with its state).
 */
function backfillNeedsPage1(source: Source, history: SourceHistory): boolean {
  const b = history.backfill;
  const asked = source.backfill.pagesPerNight > 0;
  if (b === undefined) return asked;
  // Going on, or paused ("off") and asked for again tonight.
  const goingOn = !b.done || (asked && pausedOff(b));
  // A cursor on a list the catalog no longer names is dropped (runBackfill): from page 1 again.
  const gone = b.way !== undefined && !waysInOrder(source).some((w) => w.url === b.way);
  return goingOn && (b.cursor === undefined || b.cursor.method === "POST" || gone);
}

/**
 * P7: a backfill paused because its catalog asked for no older pages ("off"): it goes on by
 * itself the first night the catalog asks for some again (runBackfill).
 */
function pausedOff(b: BackfillState): boolean {
  return b.done && b.ended?.why === "off";
}

/**
 * P5, P7: result pages a form's backfill turns through on one night on its way to the page it
 * left off at, where tonight's first result page shows no link to that one (a GridView pager
 * shows ten page numbers at a time: one page on the way per ten pages further). Requests like
 * any other (P9, P10), at most this many a night besides its older pages.
 */
export const RESUME_HOPS = 10;

/**
 * Whether an older page's failure counts against the backfill (P7): it was asked tonight and the
 * site answered with something that is not that page (gone, an error, too large, unreadable),
 * robots.txt keeps it, or it got no answer about itself (`unanswered`: a time-out, a connection
 * refused or cut, a 5xx; the site's "later" too, P15: a Retry-After longer than the night
 * waits), each counted apart (failedNight). Not a no (P21: the night's word on the site), nor a
 * page the night did not get to or did not send (the deadline, the checker offline, its owner's
 * request, a closed site, the site gate's politeness: `notSent`). A
 * page that says "later" every night is asked for at most BACKFILL_UNANSWERED_NIGHTS nights,
 * not every night for ever.
 */
function missedPage(o: NightOutcome): boolean {
  // A hold with no answer of its own (the site held before the page was sent) is no night of it.
  if (o.held === true && o.unanswered !== true) return false;
  // Not sent is not an answer: the request never left (the politeness gate, the checker's own
  // failures), so nothing is said of the page.
  if (o.notSent === true) return false;
  return !NOT_JUDGED_OUTCOMES.has(o.kind) && !NO_OUTCOMES.has(o.kind);
}

/**
 * P7: a night on which the page at `failed` (the cursor's page, or one on the way to it) failed
 * as `missedPage` says: one more night of its kind, an answer that is not the page
 * (`failedNights`, BACKFILL_MISSES of them) or no answer at all (`unansweredNights`,
 * BACKFILL_UNANSWERED_NIGHTS), each counted on its own; at its bound the backfill gives up,
 * its cursor kept for `nor backfill restart`.
 */
function failedNight(
  state: BackfillState,
  cursor: PageRequest | undefined,
  failed: string,
  o: NightOutcome,
): BackfillState {
  const unanswered = o.unanswered === true;
  const nights = (unanswered ? state.unansweredNights : state.failedNights) ?? 0;
  const bound = unanswered ? BACKFILL_UNANSWERED_NIGHTS : BACKFILL_MISSES;
  if (nights + 1 >= bound)
    return {
      done: true,
      pagesRead: state.pagesRead,
      ...(cursor ? { cursor } : {}),
      ...(cursor && state.way !== undefined ? { way: state.way } : {}),
      ended: {
        why: "gave-up",
        url: failed,
        reason: `${unanswered ? "no answer" : "not the page"} ${nights + 1} nights running (last: ${missWords(o)})`,
      },
    };
  const next: BackfillState = { ...state, ...(cursor ? { cursor } : {}) };
  if (unanswered) next.unansweredNights = nights + 1;
  else {
    next.failedNights = nights + 1;
    next.lastMiss = missWords(o);
  }
  return next;
}

/** What a night's failed outcome met, in a few words: its kind, and its reason or status. */
function missWords(o: NightOutcome): string {
  return `${o.kind}${o.reason ? `, ${o.reason}` : o.status ? `, HTTP ${o.status}` : ""}`;
}

/** A backfill that is done, and why (P7). */
const ended = (pagesRead: number, why: BackfillEnd["why"]): BackfillState => ({
  done: true,
  pagesRead,
  ended: { why },
});

async function runBackfill(
  ctx: CheckContext,
  source: Source,
  way: WayIn,
  firstReq: PageRequest,
  page1: Read,
  history: Pick<SourceHistory, "backfill" | "moved">,
  records: ExtractedRecord[],
  /** P11: what asking another way's own first page (ownFirstPage) said of its move. */
  onMove: (c: MoveChange | undefined) => void,
): Promise<{ state: BackfillState; stoppedBy?: NightOutcome }> {
  const before = history.backfill;
  const perNight = source.backfill.pagesPerNight;
  // A source that reads no older pages tonight (its catalog entry says 0 a night): paused, not
  // ended. Said "off", its cursor and pages read kept; the first night the catalog asks for
  // older pages again, they are read from there (below), no person needed. One that ended for
  // a reason of its own (its last page, given up) stays as it ended.
  if (perNight <= 0) {
    if (before?.done) return { state: before };
    const off = ended(before?.pagesRead ?? 0, "off");
    if (before?.cursor) off.cursor = before.cursor;
    // With its way (P4): read on by that way's recipe whichever way answers first.
    if (before?.cursor && before.way !== undefined) off.way = before.way;
    // Its counts too: a pause is no night of the page, so a page that never answers is still
    // given up after the nights it was asked (P7), a pause between or not.
    if (before?.misses) off.misses = before.misses;
    if (before?.failedNights) off.failedNights = before.failedNights;
    if (before?.failedNights && before.lastMiss) off.lastMiss = before.lastMiss;
    if (before?.unansweredNights) off.unansweredNights = before.unansweredNights;
    return { state: off };
  }
  const state: BackfillState = before ? { ...before } : { done: false, pagesRead: 0 };
  if (pausedOff(state)) {
    // The catalog asks for older pages again: the pause is over, from its cursor or page 1.
    state.done = false;
    delete state.ended;
  }
  if (state.done) return { state };
  // P4, P7: the cursor is a page of the list of the way that read it (`state.way`), read with
  // that way's reader and pager whichever way answered first tonight (a feed put before the
  // page reads no page's list); one whose way the catalog no longer lists (its URL changed: a
  // list the catalog no longer names) is dropped, never asked, and the older pages are found
  // again from tonight's page 1 (P6). A cursor kept before its way was is tonight's way's.
  let own = way;
  // A place kept before its way was (an earlier version's row): the way whose list it is, where
  // one way's address has the place's path (its next page: `/list?page=4` is `/list`'s), else
  // tonight's. Not tonight's first way's for that alone: a feed put before the page reads no
  // page's list (P4).
  if (state.cursor !== undefined && state.way === undefined) {
    const of = pathOf(state.cursor.url);
    const at = (w: WayIn) => {
      const m = movedFrom(history.moved, w.url);
      return m ? [w.url, m.to] : [w.url];
    };
    const mine = ofPlace(
      state.cursor.url,
      waysInOrder(source).filter((w) => at(w).some((u) => of !== undefined && pathOf(u) === of)),
      at,
    );
    if (mine.length === 1 && mine[0] !== undefined && mine[0] !== way) state.way = mine[0].url;
  }
  if (state.cursor !== undefined && state.way !== undefined && state.way !== way.url) {
    const listed = waysInOrder(source).find((w) => w.url === state.way);
    if (listed === undefined) {
      delete state.cursor;
      delete state.misses;
      delete state.failedNights;
      delete state.lastMiss;
      delete state.unansweredNights;
    } else {
      // P5: a postback's state is that way's page 1's, which tonight's answer is not: that page
      // is read tonight (its form opened and searched as a night does), and the place turned
      // from it by the links a visitor would click, as on a night that way answers first. Not
      // left waiting for such a night, which a way put after another that answers never has.
      if (state.cursor.method === "POST") {
        const opened = await ownFirstPage(ctx, source, listed, history.moved, onMove);
        if ("read" in opened)
          return runBackfill(
            ctx,
            source,
            listed,
            opened.req,
            opened.read,
            history,
            records,
            onMove,
          );
        const out: { state: BackfillState; stoppedBy?: NightOutcome } = { state: { ...state } };
        const f = opened.failed;
        if (f === undefined) return out;
        if (endsTheSource(f.kind) && f.kind !== "unreached") out.stoppedBy = f;
        else if (missedPage(f)) out.state = failedNight(state, state.cursor, opened.url, f);
        return out;
      }
      own = listed;
    }
  }
  if (state.cursor === undefined) delete state.way;
  // The list's site: where its first page answered tonight (after any redirect), else its way.
  // Another way's list, whose first page was not read tonight: the site its place was kept on,
  // held to the list's site the night it was kept (its catalog URL may send its visitors on to
  // a vendor's site that holds the list: its place is there, not on the catalog URL's site).
  // Whether that list has moved since is seen the next night its own way answers first.
  let listSite =
    own === way
      ? siteOf("url" in page1 && page1.url ? page1.url : firstReq.url)
      : siteOfCursor(state.cursor, own, history.moved);
  let next = sameList(state.cursor, listSite);
  // A cursor off the list as it answers tonight (kept before this rule, or the list has moved to
  // another site since): dropped, and the older pages found again from page 1's own next link.
  const dropped = state.cursor !== undefined && next === undefined;
  if (dropped) delete state.cursor;
  if (dropped && own !== way) {
    // Found again from tonight's page 1, as tonight's way's list.
    own = way;
    listSite = siteOf("url" in page1 && page1.url ? page1.url : firstReq.url);
  }
  // P5, P7: a cursor that is a postback carries the state of the page an earlier night turned
  // it from (a search form's __VIEWSTATE, its session): tonight it is turned from tonight's
  // first page, by the link a visitor would click, where that page shows one; where it shows
  // only a link further on the way (a pager's "..." to the next ten pages), that one is
  // clicked, and so on from the page it shows, at most RESUME_HOPS pages a night.
  if (
    next &&
    own === way &&
    ctx.reader.resumeRequest &&
    (page1.kind === "read" || page1.kind === "unchanged") &&
    page1.extraction &&
    page1.body
  ) {
    const cursor = next;
    let from = {
      req: firstReq,
      body: page1.body,
      extraction: page1.extraction,
      contentType: page1.contentType,
    };
    for (let hops = 0; ; hops++) {
      const again = sameList(
        ctx.reader.resumeRequest(
          way,
          cursor,
          from.req,
          from.body,
          from.extraction,
          from.contentType,
        ),
        listSite,
      );
      if (!again) break;
      if (again.hop !== true) {
        next = again;
        break;
      }
      if (hops >= RESUME_HOPS) break;
      const { hop: _, ...req } = again;
      const r = await readOne(ctx, way, req, "backfill", source.id, true);
      const read =
        (r.kind === "read" || r.kind === "unchanged") && r.extraction && r.body ? r : undefined;
      if (read === undefined) {
        // A page on the way that fails tonight is the cursor's page not reached: judged as its
        // failure would be (P7: a miss a night, a no or the deadline the night's word).
        const out: { state: BackfillState; stoppedBy?: NightOutcome } = { state: { ...state } };
        if (r.kind !== "failed") return out;
        if (endsTheSource(r.outcome.kind) && r.outcome.kind !== "unreached")
          out.stoppedBy = r.outcome;
        else if (missedPage(r.outcome))
          out.state = failedNight(state, state.cursor, req.url, r.outcome);
        return out;
      }
      // Its records were read on an earlier night; any it shows now are kept as ever.
      records.push(...(read.extraction?.records ?? []));
      from = {
        req,
        body: read.body as Uint8Array,
        extraction: read.extraction as Extraction,
        contentType: read.contentType,
      };
    }
  }
  // Page 1 answered 304 is read from its stored copy, so a backfill whose start was never
  // committed (a crash after the archive write) still starts (P7).
  if (
    !next &&
    (page1.kind === "read" || page1.kind === "unchanged") &&
    page1.extraction &&
    page1.body
  ) {
    if (pastUntil(page1.extraction, source.backfill.until))
      return { state: ended(state.pagesRead, "cut-off") };
    next = sameList(
      ctx.reader.nextRequest(way, firstReq, page1.body, page1.extraction, page1.contentType),
      listSite,
    );
    if (!next) return { state: ended(state.pagesRead, "last-page") };
  }
  // Page 1 not read in full tonight (counted from its last full read): the backfill starts
  // again from it next night, when it is (backfillNeedsPage1).
  if (!next && dropped) return { state: { done: false, pagesRead: state.pagesRead } };
  // From here the pages read are the list of `own`: its cursor is kept with its way.
  const wayOf = { way: own.url };
  // P7, P11: a list whose "next" leads back to a page read tonight (page 1, or an older page
  // again), or whose pages past its end repeat the page before (or page 1) under new
  // addresses, has reached its end: the backfill is done, never asked again every night.
  const seen = new Set([pageId(firstReq)]);
  if ("url" in page1 && page1.url) seen.add(pageId({ url: page1.url }));
  const firstIds =
    own === way && "extraction" in page1 && page1.extraction
      ? idsOf(page1.extraction.records)
      : undefined;
  let lastIds = firstIds;
  let cutOff = false;
  for (let i = 0; i < perNight && next; i++) {
    if (seen.has(pageId(next))) return { state: ended(state.pagesRead, "last-page") };
    seen.add(pageId(next));
    // P12: an older page asked before is asked with its validators; a 304 is read from the
    // stored copy (P8), exactly like a new answer.
    const asked = await readOne(ctx, own, next, "backfill", source.id, true);
    const r =
      asked.kind === "unchanged" && asked.extraction && asked.body
        ? {
            kind: "read" as const,
            extraction: asked.extraction,
            body: asked.body,
            url: asked.url,
            contentType: asked.contentType,
          }
        : asked;
    // P7, P11: an older page that is gone (404, 410), or that fails otherwise while page 1
    // answered (a 500, a page too large or unreadable, every night), is a miss: asked again
    // next night (a blip passes), and after BACKFILL_MISSES in a row the list has ended there,
    // never asked every night for ever. A no, the deadline, or a night the checker was offline
    // says nothing of the page: not a miss.
    //
    // A page gone counts with the older pages that show no records (pages in a row: the list
    // ends there); any other failure counts in nights, apart: the page is asked once a night,
    // and one failed answer after two quiet months read the same night does not end the list.
    if (r.kind === "failed" && r.outcome.kind === "gone") {
      const misses = (state.misses ?? 0) + 1;
      if (misses >= BACKFILL_MISSES) return { state: ended(state.pagesRead, "past-end") };
      return { state: { ...state, cursor: next, misses, ...wayOf } };
    }
    // A failure of another kind counts in nights (failedNight): an answer that is not the page
    // (too large, unreadable, a 4xx, robots.txt keeps it) BACKFILL_MISSES nights running, no
    // answer at all (a time-out, a connection refused or cut, a 5xx) many more.
    if (r.kind === "failed" && missedPage(r.outcome))
      return { state: failedNight({ ...state, ...wayOf }, next, next.url, r.outcome) };
    if (r.kind !== "read") {
      const out: { state: BackfillState; stoppedBy?: NightOutcome } = {
        state: { ...state, cursor: next, ...wayOf },
      };
      // A no or the deadline is the night's word on this source; another failure just
      // leaves the cursor for tomorrow.
      if (r.kind === "failed" && endsTheSource(r.outcome.kind) && r.outcome.kind !== "unreached") {
        out.stoppedBy = r.outcome;
      }
      return out;
    }
    // The page answered: a run of nights it failed is over.
    delete state.failedNights;
    delete state.lastMiss;
    delete state.unansweredNights;
    const ids = idsOf(r.extraction.records);
    if (ids !== undefined && (ids === lastIds || ids === firstIds))
      return { state: ended(state.pagesRead + 1, "last-page") };
    // P7, P11: an older page that shows no records is a miss (a month without meetings goes on
    // to the next); BACKFILL_MISSES in a row are past the list's end, whatever "next" link they
    // still show (many lists keep one on empty pages): done, not walked on every night.
    if (r.extraction.records.length === 0) {
      state.misses = (state.misses ?? 0) + 1;
      if (state.misses >= BACKFILL_MISSES) return { state: ended(state.pagesRead + 1, "past-end") };
    } else delete state.misses;
    lastIds = ids;
    records.push(...r.extraction.records);
    state.pagesRead++;
    cutOff = pastUntil(r.extraction, source.backfill.until);
    const after = cutOff
      ? undefined
      : ctx.reader.nextRequest(own, next, r.body, r.extraction, r.contentType);
    next = sameList(after, listSite);
  }
  if (!next) return { state: ended(state.pagesRead, cutOff ? "cut-off" : "last-page") };
  return {
    state: {
      done: false,
      pagesRead: state.pagesRead,
      cursor: next,
      ...wayOf,
      ...(state.misses ? { misses: state.misses } : {}),
      ...(state.failedNights ? { failedNights: state.failedNights } : {}),
      ...(state.failedNights && state.lastMiss ? { lastMiss: state.lastMiss } : {}),
      ...(state.unansweredNights ? { unansweredNights: state.unansweredNights } : {}),
    },
  };
}
