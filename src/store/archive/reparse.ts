/**
 * Re-extraction over the stored copies (P8): after a recipe or preset changes, every
 * source's archived list pages are read again from DIR/archive with today's extractors and
 * compared with the records the store holds. It reads files and the store only; it never
 * fetches (the CLI test runs it with every connection refused).
 */

import { detectChallenge } from "../../policy/refusal.js";
import { shownText } from "../../policy/shown-text.js";
import { normalForm } from "../../policy/url-form.js";
import { pairAcrossWays, type WayRow } from "../../policy/way-identity.js";
import type { Source, WayIn } from "../../sources/catalog/types.js";
import type { ExtractedRecord, Extraction } from "../../sources/record.js";
import type { Db } from "../db.js";
import { type Capture, fromRow } from "./captures.js";
import { readCapture, type StoredResponse } from "./read.js";

/** Today's extractor for one way in: records from a stored response, or why not. */
export type Extractor = (
  source: Source,
  way: WayIn,
  stored: StoredResponse,
) => Extraction | { error: string };

export interface StoredRecord {
  id: string;
  title: string;
  date?: string;
  url?: string;
  kind?: string;
}

export interface SourceReparse {
  source: string;
  /** Captures to read (the latest per URL), those not re-read (`errors`) included. */
  captures: number;
  found: number;
  stored: number;
  added: ExtractedRecord[];
  /**
   * Stored records no capture has now. Empty when any capture was not re-read (`errors`), when
   * none was read, or when a page of the source was last read before `since` (`before`): what
   * those hold is unknown, so no stored record is called removed on the evidence of the rest.
   */
  removed: StoredRecord[];
  /**
   * With `since`: the URLs of the source's list pages last captured before it, so not read
   * (the stored records may have come from them). 0 without `since`.
   */
  before: number;
  /** Each with the fields that differ, in the order title, date, url, kind (never empty). */
  changed: { before: StoredRecord; after: ExtractedRecord; fields: FieldChange[] }[];
  /** One per capture not re-read: its copy did not read back, or today's extractor failed. */
  errors: string[];
  /**
   * One per capture that is the site's no (a challenge or block page answered 200, P21), not
   * its list: not read as one, and no stored record is called removed on the evidence of the rest.
   */
  noes: string[];
  /**
   * One per capture that is not an answer of its way's kind at all (P4: a feed's address that
   * answered a page for people, an api's that answered HTML): not read as the list, as the
   * night did not read it as one, and no stored record is called removed on its evidence.
   */
  notLists: string[];
  /** Why a capture read now shows no records, as the reader says it (`not a feed`, …). */
  notes: string[];
  /**
   * Captures a way the catalog no longer has read (the source moved to another address, or
   * from a feed to a page): not read with today's ways, which never asked them.
   */
  otherWays: number;
  /**
   * One per list page whose latest copy `nor archive forget` took out of the index (its file
   * lost): no older copy of it is read, and no stored record is called removed.
   */
  forgotten: string[];
  /**
   * With no list copy to read (`captures` 0): the latest stored copy of its list pages that is
   * the site's no or an error (4xx, 5xx), kept (P8) but never read as the list.
   */
  refusedCopy?: { status: number; fetchedAt: string; url: string };
}

/** The fields of a record compared, in the order a change names them. */
export const COMPARED_FIELDS = ["title", "date", "url", "kind"] as const;
export type ComparedField = (typeof COMPARED_FIELDS)[number];

/** One field that differs: its value stored and its value found now (absent: none). */
export interface FieldChange {
  field: ComparedField;
  before?: string;
  after?: string;
}

export interface ReparseOptions {
  db: Db;
  /** DIR/archive */
  archiveDir: string;
  sources: Source[];
  extract: Extractor;
  since?: number;
}

/**
 * Purposes whose responses are record lists: a page, an older page, a form's result, and the
 * answer a redirect led one of those to (P19: kept as "redirect", why that request was made,
 * P27), which the night read as the list. robots.txt (its hops "robots" too) and rechecks (no
 * body kept, P25) are not.
 */
const LIST_PURPOSES = ["page", "backfill", "form", "redirect"];

/**
 * For each GET capture kept as "redirect", the address whose 3xx led to it: the source's latest
 * list request (page, backfill, form) answered 3xx before it, asked with GET. A form's POST
 * answered 303 is left out (its result pages, posted to one address, are told apart by body).
 */
async function redirectStarts<R extends { purpose: string; method: string; fetched_at: string }>(
  db: Db,
  source: string,
  rows: readonly R[],
): Promise<Map<R, string>> {
  const out = new Map<R, string>();
  const hops = rows.filter((r) => r.purpose === "redirect" && r.method !== "POST");
  if (hops.length === 0) return out;
  const starts = await db
    .selectFrom("request_log")
    .select(["url", "method", "started_at"])
    .where("source", "=", source)
    .where("purpose", "in", ["page", "backfill", "form"])
    .where("status", ">=", 300)
    .where("status", "<", 400)
    .where("started_at", "<=", hops[0]?.fetched_at ?? "")
    .orderBy("started_at", "desc")
    .orderBy("id", "desc")
    .execute();
  for (const h of hops) {
    const start = starts.find((s) => s.started_at < h.fetched_at);
    if (start?.method === "GET") out.set(h, start.url);
  }
  return out;
}

export async function reparse(opts: ReparseOptions): Promise<SourceReparse[]> {
  const out: SourceReparse[] = [];
  for (const source of opts.sources) out.push(await reparseSource(opts, source));
  return out;
}

async function reparseSource(opts: ReparseOptions, source: Source): Promise<SourceReparse> {
  let q = opts.db
    .selectFrom("captures")
    .selectAll()
    .where("source", "=", source.id)
    .where("purpose", "in", LIST_PURPOSES)
    .where("status", ">=", 200)
    .where("status", "<", 300);
  if (opts.since !== undefined) q = q.where("fetched_at", ">=", new Date(opts.since).toISOString());
  const rows = await q.orderBy("fetched_at", "desc").execute();
  // A redirect's answer stands for the request that led to it (P19): the 3xx answered to the
  // page's own address just before it. A target that changes from night to night (a session or a
  // month in its address) leaves one copy a night, each at another URL: only the latest answer
  // to that request is the list as it stands, as is a later copy of the address asked directly.
  const ledFrom = await redirectStarts(opts.db, source.id, rows);
  // The latest capture of each URL: the list as it stands now, each page once.
  const latest = new Map<string, Capture>();
  const answered = new Set<string>();
  // The address each GET capture answered: its own, or the one whose redirect led to it.
  const askedAt = new Map<Capture, string>();
  for (const r of rows) {
    if (r.method === "POST" || latest.has(r.url)) continue;
    const from = r.purpose === "redirect" ? ledFrom.get(r) : r.url;
    if (from !== undefined && answered.has(from)) continue; // a newer answer to that request
    if (from !== undefined) answered.add(from);
    const capture = fromRow(r);
    if (from !== undefined) askedAt.set(capture, from);
    latest.set(r.url, capture);
  }
  // A form's result pages are POSTs to one address, told apart by their bodies (a page number,
  // a view state that changes every night, P5): the pages the source's last check posted are
  // its list as it stands now, each once. That check is the one whose time holds the latest
  // POST; without its row (a check cut off before it was recorded), that POST alone.
  const posts = rows.filter((r) => r.method === "POST");
  const last = posts[0];
  // The source's checks, each with the way it used (night_sources.way).
  const checks = await opts.db
    .selectFrom("night_sources")
    .select(["started_at", "ended_at", "way", "outcome"])
    .where("source_id", "=", source.id)
    .orderBy("ended_at", "desc")
    .execute();
  const checkAt = (iso: string) => checks.find((c) => c.started_at <= iso && iso <= c.ended_at);
  const postedIn = (c: { started_at: string; ended_at: string }) =>
    posts.filter((p) => p.fetched_at >= c.started_at && p.fetched_at <= c.ended_at);
  let olderPosts = false;
  if (last !== undefined) {
    const check = checkAt(last.fetched_at);
    const ofCheck = check ? postedIn(check) : [last];
    for (const p of ofCheck) latest.set(`POST ${p.record_id}`, fromRow(p));
    // Result pages an earlier check posted and the last did not (a backfill done: each night
    // then posts its first page only): what they hold now is unknown, so nothing is called
    // removed.
    // So too an older result page a backfill posted on an earlier check (each night of a form's
    // backfill posts its first page and the next older ones): its records are on the list still,
    // past the pages the last check posted.
    olderPosts =
      checks.some((c) => postedIn(c).length > ofCheck.length) ||
      posts.some((p) => p.purpose === "backfill" && !ofCheck.includes(p));
  }
  // Pages whose latest copy `nor archive forget` took out of the index (its file lost): an
  // older copy still stored is not the list as it stands (the records the lost copy brought
  // would be called removed, titles changed back), so it is not read and none is called removed,
  // until a night stores a newer copy. One before the window is a page read before it.
  const forgottenRows = await opts.db
    .selectFrom("forgotten_copies")
    .select(["url", "method", "fetched_at", "file"])
    .where("source", "=", source.id)
    .where("purpose", "in", LIST_PURPOSES)
    .where("status", ">=", 200)
    .where("status", "<", 300)
    .orderBy("fetched_at", "desc")
    .execute();
  const sinceIso = opts.since === undefined ? undefined : new Date(opts.since).toISOString();
  const newest = new Map<string, string>(); // a GET page's latest copy in the window, when read
  for (const r of rows)
    if (r.method !== "POST" && !newest.has(r.url)) newest.set(r.url, r.fetched_at);
  // P12: a night's 304 of such a page since, to the validators of the older copy still stored
  // (which the night asks with once the latest is forgotten): by the site's word that copy is the
  // page as it stands, and the night read it so. A 304 keeps no copy; the request log holds what
  // it was sent (its If-None-Match or If-Modified-Since: that copy's, not the lost one's).
  const lostGets = forgottenRows.filter((f) => f.method !== "POST").map((f) => f.url);
  const vouched =
    lostGets.length === 0
      ? []
      : await opts.db
          .selectFrom("request_log")
          .select(["url", "started_at", "validators_sent"])
          .where("method", "=", "GET")
          .where("status", "=", 304)
          .where("url", "in", lostGets)
          .execute();
  const stillCurrent = (url: string, after: string): boolean => {
    const copy = latest.get(url);
    if (copy === undefined || (copy.etag === undefined && copy.lastModified === undefined))
      return false;
    return vouched.some((v) => {
      if (v.url !== url || v.started_at <= after || v.validators_sent === null) return false;
      let sent: { etag?: unknown; lastModified?: unknown };
      try {
        sent = JSON.parse(v.validators_sent) as typeof sent;
      } catch {
        return false;
      }
      return copy.etag !== undefined
        ? sent.etag === copy.etag
        : sent.lastModified === copy.lastModified;
    });
  };
  const forgotten: string[] = [];
  const forgottenBefore = new Set<string>();
  const lostPages = new Set<string>();
  for (const f of forgottenRows) {
    const post = f.method === "POST";
    const page = post ? `POST ${f.url}` : f.url;
    if (lostPages.has(page)) continue; // its latest forgotten copy said
    lostPages.add(page);
    const stored = post ? last?.fetched_at : newest.get(f.url);
    if (stored !== undefined && stored >= f.fetched_at) continue; // a newer copy is read
    if (!post && stillCurrent(f.url, f.fetched_at)) continue; // the older copy, vouched for
    if (sinceIso !== undefined && f.fetched_at < sinceIso) {
      if (stored === undefined) forgottenBefore.add(page);
      continue;
    }
    if (post) {
      for (const key of [...latest.keys()]) if (key.startsWith("POST ")) latest.delete(key);
    } else latest.delete(f.url);
    forgotten.push(
      `${post ? `${f.url} (the form's result pages)` : f.url}: its latest copy, read ${f.fetched_at}, was in ${f.file}, lost and forgotten (nor archive forget); no older copy is read as the list, until a night stores a newer one or the site answers 304 to the older copy's validators`,
    );
  }

  // A page read only before the window: its latest copy is not read (the window's latest copy
  // of a page is its latest of all, so only pages with none in the window are left out).
  let before = forgottenBefore.size;
  if (opts.since !== undefined) {
    const older = await opts.db
      .selectFrom("captures")
      .select("url")
      .distinct()
      .where("source", "=", source.id)
      .where("purpose", "in", LIST_PURPOSES)
      .where("status", ">=", 200)
      .where("status", "<", 300)
      .where("fetched_at", "<", new Date(opts.since).toISOString())
      .execute();
    before += older.filter((r) => !latest.has(r.url) && !lostPages.has(r.url)).length;
  }

  // Each capture read by the way its check used: one no way of today's catalog has is left
  // out, never read with another way's reader.
  const ways: WayIn[] = [source, ...source.alternates];
  const wayOf = new Map<Capture, WayIn>();
  // The first pages the night read as its list, by the way that answered (its records read from
  // them, by the recipe of that night): today's reader finding no list there is today's recipe's
  // doing, not a copy that is not the list (P8: what a recipe change would do is said).
  const readAsList = new Set<Capture>();
  let otherWays = 0;
  // A generic form's own page (the blank form, asked with GET at its way's address) is no list
  // of records, whichever way answered first that night (a form's backfill behind a feed opens
  // its form too, P5, P7); a form that submits with GET has its results at another (its query).
  // So too the blank form a redirect of the way's address led to (P19).
  // So too the blank form asked where its address moved permanently (P11: source_moves, asked
  // there directly from the night after the move was seen, by the night or a backfill).
  const moves = await opts.db
    .selectFrom("source_moves")
    .select(["from_url", "to_url"])
    .where("source_id", "=", source.id)
    .execute();
  const movedFrom = (u: string) => moves.find((m) => bare(m.to_url) === bare(u))?.from_url;
  // And a move forgotten since (its target gone, the page back at its catalog URL): the address a
  // redirect of the way's address once led to, which stood for it then (each GET hop's start).
  const ledTo = new Map<string, string>();
  for (const [r, from] of ledFrom) if (!ledTo.has(bare(r.url))) ledTo.set(bare(r.url), from);
  const blankForm = (c: Capture) => {
    if (c.method !== "GET") return false;
    const asked = askedAt.get(c) ?? c.url;
    const froms = [moves.length > 0 ? movedFrom(asked) : undefined, ledTo.get(bare(asked))];
    return ways.some(
      (w) =>
        w.access === "form" &&
        w.platform === undefined &&
        (bare(c.url) === bare(w.url) ||
          bare(asked) === bare(w.url) ||
          froms.some((from) => from !== undefined && bare(from) === bare(w.url))),
    );
  };
  for (const [key, capture] of latest) {
    if (blankForm(capture)) {
      latest.delete(key);
      continue;
    }
    const check = checkAt(new Date(capture.fetchedAt).toISOString());
    const used = check?.way
      ? (JSON.parse(check.way) as { used?: { url: string } }).used
      : undefined;
    if (used === undefined) continue; // no word of it: found by its address (wayFor)
    const way = ways.find((w) => bare(w.url) === bare(used.url));
    // A generic form's own page (the blank form, asked with GET at the way's address) is no list
    // of records; a form that submits with GET has its results at another (its query).
    if (
      way &&
      way.access === "form" &&
      way.platform === undefined &&
      capture.method === "GET" &&
      bare(capture.url) === bare(way.url)
    )
      latest.delete(key);
    else if (way) {
      wayOf.set(capture, way);
      if (
        (check?.outcome === "ok" || check?.outcome === "unchanged") &&
        capture.purpose !== "backfill" &&
        bare(capture.url) === bare(way.url)
      )
        readAsList.add(capture);
    } else {
      latest.delete(key);
      otherWays++;
    }
  }

  const result: SourceReparse = {
    source: source.id,
    captures: latest.size,
    found: 0,
    stored: 0,
    added: [],
    removed: [],
    before,
    changed: [],
    errors: [],
    noes: [],
    notLists: [],
    notes: [],
    otherWays,
    forgotten,
  };
  if (latest.size === 0) {
    // P8: the site's no (or an error) is stored too; said as what is there, not as nothing.
    let nq = opts.db
      .selectFrom("captures")
      .select(["status", "fetched_at", "url"])
      .where("source", "=", source.id)
      .where("purpose", "in", LIST_PURPOSES)
      .where("status", ">=", 300);
    if (opts.since !== undefined)
      nq = nq.where("fetched_at", ">=", new Date(opts.since).toISOString());
    const no = await nq.orderBy("fetched_at", "desc").limit(1).executeTakeFirst();
    if (no !== undefined)
      result.refusedCopy = { status: Number(no.status), fetchedAt: no.fetched_at, url: no.url };
  }
  if (olderPosts)
    result.notes.push(
      "result pages posted on earlier nights and not since are not read again: none called removed",
    );
  const found = new Map<string, ExtractedRecord>();
  // What each way in's captures found (by the way's address): a record is one across ways in.
  const byWay = new Map<string, Map<string, ExtractedRecord>>();
  for (const capture of latest.values()) {
    let way = wayOf.get(capture) ?? wayFor(source, capture.url);
    let got: Extraction | { error: string };
    try {
      const stored = await readCapture(opts.archiveDir, capture);
      // The site's no, answered with a 200 (a CAPTCHA or block page, P21): not the list, and
      // no evidence that any stored record is gone.
      const no = detectChallenge({
        status: stored.status,
        headers: stored.headers,
        body: stored.body,
        url: stored.url,
      });
      if (no) {
        result.noes.push(
          `${capture.url} (${capture.file}@${capture.offset}): the site's no (${no.provider} ${no.verdict}: ${no.marker}), not its list`,
        );
        continue;
      }
      got = opts.extract(source, way, stored);
      // P4, P7: an older page a night read for another way's backfill than the way that answered
      // first (a feed put before the page: the page's older pages, read by the page's recipe)
      // is that way's: read by the first other way whose reader takes it for its own answer.
      const read = got;
      if (
        capture.purpose === "backfill" &&
        !("error" in read) &&
        read.records.length === 0 &&
        read.notThisWay === true
      )
        for (const w of ways) {
          if (w === way) continue;
          const other = opts.extract(source, w, stored);
          if ("error" in other || other.notThisWay === true || other.unreadable !== undefined)
            continue;
          way = w;
          got = other;
          break;
        }
    } catch (err) {
      got = { error: err instanceof Error ? err.message : String(err) };
    }
    if (!("error" in got) && got.unreadable !== undefined) got = { error: got.unreadable };
    if ("error" in got) {
      result.errors.push(`${capture.url} (${capture.file}@${capture.offset}): ${got.error}`);
      continue;
    }
    if (got.records.length === 0 && got.notThisWay === true && !readAsList.has(capture)) {
      result.notLists.push(`${capture.url}: ${got.note ?? `not a ${way.access} answer`}`);
      continue;
    }
    if (got.records.length === 0 && got.note !== undefined)
      result.notes.push(`${capture.url}: ${got.note}`);
    for (const rec of got.records) if (!found.has(rec.id)) found.set(rec.id, rec);
    const mine = byWay.get(way.url) ?? new Map<string, ExtractedRecord>();
    byWay.set(way.url, mine);
    for (const rec of got.records) if (!mine.has(rec.id)) mine.set(rec.id, rec);
  }
  result.found = found.size;

  const stored = await storedRecords(opts.db, source.id);
  result.stored = stored.size;
  // Copies of several ways in (an api's, and the page the night its api failed read): a record
  // one way found that the store holds under another way's id is that record, as the night
  // holds it (policy/way-identity.ts): neither added nor called removed. So too one way's copies
  // read by a recipe changed since the night (the platform's id read where the link was): the
  // night matches them as across ways in (night-records.ts, a reader changed), and so is it said
  // here. With the recipe of the night, every record found is stored under its id: none to pair.
  const acrossWays = new Set<string>();
  const heldAcross = new Set<string>();
  if (byWay.size > 0)
    for (const mine of byWay.values()) {
      const row = (id: string, x: StoredRecord | ExtractedRecord): WayRow => ({
        id,
        title: x.title,
        date: x.date ?? null,
        url: x.url ?? null,
      });
      const pairs = pairAcrossWays(
        [...mine].filter(([id]) => !stored.has(id)).map(([id, x]) => row(id, x)),
        [...mine].map(([id, x]) => row(id, x)),
        [...stored].filter(([id]) => !mine.has(id)).map(([id, x]) => row(id, x)),
        // One way in: the records stored are its list's, read now by today's recipe (the night
        // that reads with it pairs them by title alone too, a reader changed at one address),
        // those its list showed at its last read in full only, as the night does.
        ways.length === 1 ? await lastShown(opts.db, source) : false,
      );
      for (const [id, old] of pairs) {
        acrossWays.add(id);
        heldAcross.add(old.id);
      }
    }
  // Each record once: a copy paired with another way's is not counted again.
  result.found = found.size - acrossWays.size;
  for (const [id, rec] of found) {
    const before = stored.get(id);
    if (!before) {
      if (!acrossWays.has(id)) result.added.push(rec);
    } else {
      const fields = changedFields(before, rec);
      if (fields.length > 0) result.changed.push({ before, after: rec, fields });
    }
  }
  // A capture not re-read may hold any of the stored records (a missing archive holds them
  // all): none is called removed on the evidence of the captures that were. So too a site's no
  // or an answer not of its way's kind (neither is the list), a page left out by the window,
  // and with no capture read nothing was compared at all.
  if (
    result.errors.length > 0 ||
    result.noes.length > 0 ||
    result.notLists.length > 0 ||
    result.forgotten.length > 0 ||
    olderPosts ||
    result.before > 0 ||
    latest.size === 0
  )
    return result;
  for (const [id, rec] of stored)
    if (!found.has(id) && !heldAcross.has(id)) result.removed.push(rec);
  return result;
}

/**
 * The ids the source's list showed at its last read in full (page_reads.ids: its catalog
 * address's, else the newest kept, as the night's LAST_READ_IDS), or `true` (any) where none is
 * kept or that read showed none.
 */
async function lastShown(db: Db, source: Source): Promise<true | ReadonlySet<string>> {
  const reads = await db
    .selectFrom("page_reads")
    .select(["url", "ids", "night"])
    .where("source_id", "=", source.id)
    .orderBy("night", "desc")
    .execute();
  const read = reads.find((r) => bare(r.url) === bare(source.url)) ?? reads[0];
  if (!read?.ids) return true;
  try {
    const v: unknown = JSON.parse(read.ids);
    const ids = Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
    // A read that showed none says nothing of the list (the night's rule: night-records.ts).
    return ids.length > 0 ? new Set(ids) : true;
  } catch {
    return true;
  }
}

/**
 * An address as it is sent (policy/url-form.ts normalForm: no fragment, host in lower case, no
 * default port, an escape of an unreserved character decoded), which is how a copy is kept: a
 * catalog address written otherwise (`https://City.gov:443/%7Eclerk/list#notices`) is its way's.
 */
function bare(u: string): string {
  try {
    return normalForm(new URL(u));
  } catch {
    return u.split("#")[0] as string;
  }
}

/** The way in a capture was read by: the one with its URL, else its origin, else the first. */
export function wayFor(source: Source, url: string): WayIn {
  const ways: WayIn[] = [source, ...source.alternates];
  const exact = ways.find((w) => bare(w.url) === bare(url));
  if (exact) return exact;
  const origin = (u: string) => {
    try {
      return new URL(u).origin;
    } catch {
      return u;
    }
  };
  return ways.find((w) => origin(w.url) === origin(url)) ?? source;
}

/**
 * The fields that differ between a stored record and the one found now, the title compared as
 * shown (a row stored before titles were); each with its values as they are (the title's too).
 */
export function changedFields(
  before: StoredRecord | ExtractedRecord,
  after: StoredRecord | ExtractedRecord,
): FieldChange[] {
  const out: FieldChange[] = [];
  for (const field of COMPARED_FIELDS) {
    const b = before[field];
    const a = after[field];
    const same = field === "title" ? shownText(b ?? "") === shownText(a ?? "") : b === a;
    if (same) continue;
    const change: FieldChange = { field };
    if (b !== undefined) change.before = b;
    if (a !== undefined) change.after = a;
    out.push(change);
  }
  return out;
}

/** The records the night holds for a source (the night's `records` table). */
async function storedRecords(db: Db, source: string): Promise<Map<string, StoredRecord>> {
  // Named: the columns the store works out beside them (migration 018) are not read here.
  const rows = await db
    .selectFrom("records")
    .select(["record_id", "title", "date", "url", "kind"])
    .where("source_id", "=", source)
    .execute();
  const out = new Map<string, StoredRecord>();
  for (const r of rows) {
    const rec: StoredRecord = { id: r.record_id, title: r.title };
    if (r.date !== null) rec.date = r.date;
    if (r.url !== null) rec.url = r.url;
    if (r.kind !== null) rec.kind = r.kind;
    out.set(r.record_id, rec);
  }
  return out;
}
