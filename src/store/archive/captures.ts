/**
 * The archive's index in the store (P8, P12): URL → every capture, the latest first.
 * PostgreSQL returns bigint as text, so every number is passed through Number().
 */
import type { Validators } from "../../net/types.js";
import type { Db } from "../db.js";
import type { GroupCommit } from "../group-commit.js";
import { sql } from "../kysely.js";
import { type Placeholder, prepared } from "../prepared.js";
import type { CapturesTable } from "../schema/archive.js";
import type { Tx } from "../write-txn.js";

/**
 * `limit 1` written into the SQL, not bound: SQLite plans a bound `limit ?` without knowing it
 * is 1 and sorts into a temporary b-tree; a latest-capture lookup then took 20–30 µs against
 * 6–14 µs (docs/benchmarks.md). It runs once or twice a request.
 */
const ONE = sql.lit(1);

export interface Capture {
  recordId: string;
  url: string;
  fetchedAt: number;
  file: string;
  offset: number;
  length: number;
  requestOffset?: number;
  requestLength?: number;
  recordType: "response" | "revisit";
  method: string;
  status: number;
  mime?: string;
  payloadDigest: string;
  payloadLength: number;
  etag?: string;
  lastModified?: string;
  source?: string;
  purpose: string;
  /** Revisits: where the original payload lies. */
  refersTo?: { recordId: string; file: string; offset: number; length: number };
  /** The night whose request brought it (migration 038), when one did. */
  night?: string;
}

export function toRow(c: Capture): CapturesTable {
  return {
    record_id: c.recordId,
    url: c.url,
    fetched_at: new Date(c.fetchedAt).toISOString(),
    file: c.file,
    offset: c.offset,
    length: c.length,
    request_offset: c.requestOffset ?? null,
    request_length: c.requestLength ?? null,
    record_type: c.recordType,
    method: c.method,
    status: c.status,
    mime: c.mime ?? null,
    payload_digest: c.payloadDigest,
    payload_length: c.payloadLength,
    etag: c.etag ?? null,
    last_modified: c.lastModified ?? null,
    source: c.source ?? null,
    purpose: c.purpose,
    refers_to: c.refersTo?.recordId ?? null,
    refers_file: c.refersTo?.file ?? null,
    refers_offset: c.refersTo?.offset ?? null,
    refers_length: c.refersTo?.length ?? null,
    night: c.night ?? null,
  };
}

export function fromRow(r: CapturesTable): Capture {
  const c: Capture = {
    recordId: r.record_id,
    url: r.url,
    fetchedAt: Date.parse(r.fetched_at),
    file: r.file,
    offset: Number(r.offset),
    length: Number(r.length),
    recordType: r.record_type,
    method: r.method,
    status: Number(r.status),
    payloadDigest: r.payload_digest,
    payloadLength: Number(r.payload_length),
    purpose: r.purpose,
  };
  if (r.request_offset !== null) c.requestOffset = Number(r.request_offset);
  if (r.request_length !== null) c.requestLength = Number(r.request_length);
  if (r.mime !== null) c.mime = r.mime;
  if (r.etag !== null) c.etag = r.etag;
  if (r.last_modified !== null) c.lastModified = r.last_modified;
  if (r.source !== null) c.source = r.source;
  if (r.night !== null && r.night !== undefined) c.night = r.night;
  if (r.refers_to !== null && r.refers_file !== null) {
    c.refersTo = {
      recordId: r.refers_to,
      file: r.refers_file,
      offset: Number(r.refers_offset),
      length: Number(r.refers_length),
    };
  }
  return c;
}

/**
 * Inserts of captures into each store in this process, counted against the store's handle
 * (also when a group commit over it ran the insert), when each ends (committed or not): a
 * lookup remembered while the count stayed the same is still what the index says for every URL
 * this process archives (ArchiveValidators).
 */
const written = new WeakMap<Db, number>();

/** How many inserts of captures through `db` have ended in this process. */
export function capturesWritten(db: Db): number {
  return written.get(db) ?? 0;
}

/**
 * Several captures in one statement, all committed or none: in a transaction of its own, or,
 * given `group` (a group commit over `db`), in one of its transactions: shared with the writes
 * queued beside it (one fsync for all), or alone when one of those failed and each was run
 * again on its own. Resolves once they are committed; counted against `db` either way.
 */
export async function insertCaptures(
  db: Db,
  cs: readonly Capture[],
  group?: GroupCommit,
): Promise<void> {
  if (cs.length === 0) return;
  const rows = cs.map(toRow);
  const insert = (tx: Tx) => tx.insertInto("captures").values(rows).execute();
  try {
    await (group ? group.run(insert) : insert(db));
  } finally {
    written.set(db, capturesWritten(db) + 1);
    // What was noted of these URLs is no longer the latest (a "none" would now be wrong), also
    // what a lookup noted while the insert waited for its commit: let go once it has ended.
    const noted = recentCopies.get(db);
    if (noted !== undefined) for (const c of cs) noted.delete(c.url);
  }
}

/**
 * The GET captures with a body the index gave lately for their URLs, in this process (at most
 * RECENT_COPIES, the oldest let go): what a conditional request was just built from. A capture
 * row is never changed once written, so one named here is always a capture that was made, whether
 * or not a later one has been since; the archive takes it as the original of a revisit when the
 * answer's payload is the same (WarcArchive), instead of asking the index again for the URL's
 * latest capture (a page sent again whole, as many sites do whatever validators they are sent).
 */
const recentCopies = new WeakMap<Db, Map<string, Capture | null>>();
const RECENT_COPIES = 1024;

/**
 * The GET capture with a body the index last gave for `url` in this process; null when it gave
 * none (and this process has archived nothing at the URL since); undefined when not kept.
 */
export function recentCopy(db: Db, url: string): Capture | null | undefined {
  return recentCopies.get(db)?.get(url);
}

function noteRecentCopy(db: Db, url: string, c: Capture | null): void {
  let m = recentCopies.get(db);
  if (m === undefined) {
    m = new Map();
    recentCopies.set(db, m);
  }
  m.delete(url);
  m.set(url, c);
  if (m.size > RECENT_COPIES) {
    const oldest = m.keys().next().value;
    if (oldest !== undefined) m.delete(oldest);
  }
}

/**
 * The capture of `url` at or before `at` (default: the latest); `withBody` skips 304s etc.;
 * `method` keeps only answers to that method (a form posts back to its own page's URL).
 */
export async function latestCapture(
  db: Db,
  url: string,
  /** `night`: only a copy that night's request brought (migration 038). */
  opts: { at?: number; withBody?: boolean; method?: string; night?: string } = {},
): Promise<Capture | undefined> {
  if (
    opts.at === undefined &&
    opts.night === undefined &&
    opts.withBody &&
    opts.method !== undefined
  ) {
    // The one asked before every conditional request and behind every 304: built once.
    const row = await latestWithBody.first(db, { url, method: opts.method });
    const c = row ? fromRow(row) : undefined;
    if (opts.method === "GET") noteRecentCopy(db, url, c ?? null);
    return c;
  }
  if (
    opts.at === undefined &&
    opts.night === undefined &&
    !opts.withBody &&
    opts.method === undefined
  ) {
    // The one the archive asks before every answer it keeps (a revisit?): built once.
    const row = await latest.first(db, { url });
    return row ? fromRow(row) : undefined;
  }
  let q = db.selectFrom("captures").selectAll().where("url", "=", url);
  if (opts.at !== undefined) q = q.where("fetched_at", "<=", new Date(opts.at).toISOString());
  if (opts.withBody) q = q.where("status", ">=", 200).where("status", "<", 300);
  if (opts.method !== undefined) q = q.where("method", "=", opts.method);
  if (opts.night !== undefined) q = q.where("night", "=", opts.night);
  const row = await q
    .orderBy("fetched_at", "desc")
    .orderBy("offset", "desc")
    .limit(ONE)
    .executeTakeFirst();
  return row ? fromRow(row) : undefined;
}

/**
 * Every column of a capture, named: the hot lookups below name theirs rather than `*`, so the
 * store's direct path reads their rows by the names written here (statement-cache.ts `rows`),
 * with no check of the schema's version at each run.
 */
const CAPTURE_COLUMNS = [
  "record_id",
  "url",
  "fetched_at",
  "file",
  "offset",
  "length",
  "request_offset",
  "request_length",
  "record_type",
  "method",
  "status",
  "mime",
  "payload_digest",
  "payload_length",
  "etag",
  "last_modified",
  "source",
  "purpose",
  "refers_to",
  "refers_file",
  "refers_offset",
  "refers_length",
  "night",
] as const satisfies readonly (keyof CapturesTable)[];

// One row: a page read every night has a capture a night, and only the latest is wanted.
const latest = prepared((db, $: Placeholder<{ url: string }>) =>
  db
    .selectFrom("captures")
    .select(CAPTURE_COLUMNS)
    .where("url", "=", $("url"))
    .orderBy("fetched_at", "desc")
    .orderBy("offset", "desc")
    .limit(ONE),
);

const latestWithBody = prepared((db, $: Placeholder<{ url: string; method: string }>) =>
  db
    .selectFrom("captures")
    .select(CAPTURE_COLUMNS)
    .where("url", "=", $("url"))
    .where("status", ">=", 200)
    .where("status", "<", 300)
    .where("method", "=", $("method"))
    .orderBy("fetched_at", "desc")
    .orderBy("offset", "desc")
    .limit(ONE),
);

const urlAndTime = prepared((db, $: Placeholder<{ recordId: string }>) =>
  db.selectFrom("captures").select(["url", "fetched_at"]).where("record_id", "=", $("recordId")),
);

/**
 * The URL and time of the capture whose response record is `recordId` (the primary key): a
 * revisit's original, named in the revisit written after it. Built once, as a night writes a
 * revisit of a page sent again whole every night.
 */
export function captureUrlAndTime(
  db: Db,
  recordId: string,
): Promise<{ url: string; fetched_at: string } | undefined> {
  return urlAndTime.first(db, { recordId });
}

/** Every capture of `url`, oldest first. */
export async function capturesOf(db: Db, url: string): Promise<Capture[]> {
  const rows = await db
    .selectFrom("captures")
    .selectAll()
    .where("url", "=", url)
    .orderBy("fetched_at", "asc")
    .execute();
  return rows.map(fromRow);
}

/**
 * P12: the ETag / Last-Modified to send back, from the latest capture that holds a body (a
 * 2xx response or a revisit of one) of a GET. A 304 is not a representation, so it never
 * replaces the validators of the copy we hold; nor is the answer to a POST to the same URL
 * (RFC 9110 §13.1: conditional requests are about the GET's selected representation).
 */
export async function validatorsFor(db: Db, url: string): Promise<Validators | undefined> {
  return validatorsOf(await latestCapture(db, url, { withBody: true, method: "GET" }));
}

/** The ETag / Last-Modified a capture holding a body gives to send back (validatorsFor). */
export function validatorsOf(c: Capture | undefined): Validators | undefined {
  if (!c || (c.etag === undefined && c.lastModified === undefined)) return undefined;
  const v: Validators = {};
  if (c.etag !== undefined) v.etag = c.etag;
  if (c.lastModified !== undefined) v.lastModified = c.lastModified;
  return v;
}

/** The last file the index names (names sort in writing order: timestamp, then number). */
export async function lastIndexedFile(db: Db): Promise<string | undefined> {
  const row = await db
    .selectFrom("captures")
    .select((eb) => eb.fn.max("file").as("file"))
    .executeTakeFirst();
  return row?.file ?? undefined;
}

/**
 * The index's records in `file` that do not lie wholly within its first `size` bytes: how many
 * stored copies (response or revisit records) that leaves unreadable. Asked only of a file found
 * shorter than the index says (cut short), so the rows are counted here, not in SQL.
 */
export async function copiesPast(db: Db, file: string, size: number): Promise<number> {
  const rows = await db
    .selectFrom("captures")
    .select(["offset", "length"])
    .where("file", "=", file)
    .execute();
  return rows.filter((r) => Number(r.offset) + Number(r.length) > size).length;
}

/** The end of the last indexed record in `file` (0 when none): recovery truncates to it. */
export async function indexedEnd(db: Db, file: string): Promise<number> {
  const rows = await db
    .selectFrom("captures")
    .select(["offset", "length", "request_offset", "request_length"])
    .where("file", "=", file)
    .execute();
  let end = 0;
  for (const r of rows) {
    end = Math.max(end, Number(r.offset) + Number(r.length));
    if (r.request_offset !== null) {
      end = Math.max(end, Number(r.request_offset) + Number(r.request_length));
    }
  }
  return end;
}
