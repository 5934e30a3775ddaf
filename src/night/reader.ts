/**
 * The port through which the night reads a way in: which request opens it, how its answer
 * becomes records, and which request turns to the next (older) page (P5, P7). The default
 * (way-reader.ts) uses the platform presets and the generic extractors; the port keeps the
 * scheduler independent of them.
 */
import { normaliseUrl } from "../net/redirects.js";
import type { WayIn } from "../sources/catalog/types.js";
import type { Extraction } from "../sources/record.js";
import type { PageRequest } from "./types.js";

export interface WayReader {
  /**
   * Loads what reading this way's answers takes, the first time a way of its kind is read
   * (lazy-reader.ts): called before `extract`. Absent: everything is loaded already.
   */
  ready?(way: WayIn): Promise<void>;
  firstRequest(way: WayIn, now: number): PageRequest;
  /**
   * Throws when the way is broken configuration; an answer it cannot read for sure comes
   * back `unreadable` (both are stored as extract-error, with the reason).
   */
  extract(way: WayIn, body: Uint8Array, url: string, contentType?: string): Extraction;
  nextRequest(
    way: WayIn,
    previous: PageRequest,
    body: Uint8Array,
    extraction: Extraction,
    /** The answer's Content-Type, as given to `extract`. */
    contentType?: string,
  ): PageRequest | undefined;
  /**
   * P5, P7: the request for the older page an earlier night's backfill left off at (`cursor`),
   * turned from tonight's first page (`first`, its answer `body`) as a visitor would, where
   * the cursor carries the state of the page it was turned from (a search form's postback:
   * that state is an earlier night's, never sent again). Undefined when the cursor is asked
   * as it was kept (a plain link), or tonight's first page shows no way to it.
   */
  resumeRequest?(
    way: WayIn,
    cursor: PageRequest,
    first: PageRequest,
    body: Uint8Array,
    extraction: Extraction,
    contentType?: string,
  ): PageRequest | undefined;
}

/** A stored copy as the archive's index names it (ValidatorStore.copyFacts). */
export interface CopyFacts {
  url: string;
  contentType?: string;
  payloadDigest: string;
}

/** A response body we already hold (P8). */
export interface StoredCopy {
  url: string;
  body: Uint8Array;
  contentType?: string;
  /** The Set-Cookie headers the answer carried (P22: replayed into the source's jar). */
  setCookies?: string[];
}

/** P12: the last ETag / Last-Modified per URL, and (P8) the copy they belong to. */
/**
 * P8, P12: the address a request's validators and stored copies are kept under: the URL as it is
 * sent (net/redirects.ts normaliseUrl: no fragment, an escape of an unreserved character
 * decoded), which is the address the fetcher stores the answer by, however the catalog wrote it
 * (`…/bids#open`, `/%7Ebids`); the URL itself when the net would not send it.
 */
export function keptAs(url: string): string {
  return normaliseUrl(url) ?? url;
}

export interface ValidatorStore {
  get(url: string): Promise<{ etag?: string; lastModified?: string } | undefined>;
  /**
   * The stored body of a GET, for a 304, when this store keeps bodies (the WARC archive
   * does). `lost`: the index names a copy that can no longer be read back whole (deleted,
   * cut, corrupted).
   */
  storedCopy?(url: string): Promise<StoredCopy | { lost: string } | undefined>;
  /**
   * What the index says of that copy, without reading it back: the URL that answered, its
   * Content-Type and its payload's digest (`sha256:` + base32, as page-key.ts takes it), for a
   * copy this store holds whole (its file long enough); undefined otherwise. Enough to know a 304
   * is the page last read in full, whose records are then counted (P12: a 304 costs nothing
   * more); the copy is read back, its digest checked, whenever its records are read.
   */
  copyFacts?(url: string): Promise<CopyFacts | undefined>;
  /**
   * P8 across a crash: the 2xx answer to a GET of `url` stored at or after `since` (tonight,
   * before a restart) and by `until` (now), read back whole, or undefined. Such a page is never
   * asked again. A copy stamped after now was archived by a clock running ahead, on an earlier
   * night: never tonight's answer (P27: nothing is said read tonight that no request brought).
   * `night`: tonight's date; then only a copy tonight's own request saved (migration 038), never
   * one another night saved, whatever its time says.
   */
  storedSince?(
    url: string,
    since: number,
    until: number,
    night?: string,
  ): Promise<StoredCopy | undefined>;
}

/** True for a form way that the night fills in itself (a platform preset does its own). */
export function isGenericForm(way: WayIn): boolean {
  return way.access === "form" && way.platform === undefined;
}

/**
 * P8, P12: the first page a source showed when last read in full, by its key (page-key.ts),
 * with how many records it listed and their distinct ids, all of them stored for the source in
 * the same commit.
 */
export interface PageRead {
  url: string;
  key: string;
  records: number;
  ids: string[];
}

/**
 * What the store remembers of a page's last full read: its key, how many records it listed,
 * and whether the store still holds every record it produced (`allStored`: false when one was
 * removed since, by hand or by a `records` table put back from an older backup, or when the
 * read's ids were never kept). Only then is a 304 of the same copy counted from it.
 */
export interface KnownPageRead {
  url: string;
  key: string;
  records: number;
  allStored: boolean;
}

/** The store's memory of full reads: a 304 whose copy has the same key is not read again. */
export interface PageReads {
  pageRead(sourceId: string, url: string): Promise<KnownPageRead | undefined>;
}

const ACCESS_RANK: Record<WayIn["access"], number> = {
  api: 0,
  download: 1,
  feed: 2,
  page: 3,
  form: 3,
};

/**
 * P4: every way in of the source, best first — an API, then a download file, then a feed,
 * then a page or form made for people — whichever of them the catalog lists as the source's
 * own way. Ties keep catalog order (the source's own way before its alternates).
 */
export function waysInOrder(source: WayIn & { alternates: readonly WayIn[] }): WayIn[] {
  // The source is a way in itself, plus catalog fields that are not part of one.
  const { alternates, ...own } = source;
  return [own, ...alternates]
    .map((w, i) => ({ w, i }))
    .sort((a, b) => ACCESS_RANK[a.w.access] - ACCESS_RANK[b.w.access] || a.i - b.i)
    .map((x) => x.w);
}
