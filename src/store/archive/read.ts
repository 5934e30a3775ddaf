/**
 * Reading back the private copy (P8): one record from its offset, never the network. A
 * revisit is answered with its own status and headers and the payload of the response it
 * refers to (the identical-payload-digest profile's meaning).
 *
 * Every 304 of a night is answered from here, so the common case is read by hand: the record
 * is one gzip member (WARC 1.1 Annex D), inflated whole with node:zlib (its CRC checked), its
 * WARC head and HTTP head split at their blank lines (WARC 1.1 §4, RFC 9112 §2.1). Anything
 * that does not read that way (a record this writer would not have written) goes to warcio's
 * parser, as every record did before (loaded only then).
 */
import { existsSync, readSync } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { dirname, join } from "node:path";
import { gunzipSync } from "node:zlib";
import type { WARCRecord } from "warcio";
import { NorError } from "../../errors.js";
import type { Capture } from "./captures.js";

export interface StoredResponse {
  status: number;
  /** Lower-cased, as stored (Content-Encoding dropped, Content-Length of the decoded body). */
  headers: Record<string, string>;
  body: Uint8Array;
  url: string;
  fetchedAt: number;
  /** Each Set-Cookie the answer carried, one a line as stored (P22: replayed into a jar). */
  setCookies: string[];
}

/**
 * Reads up to this size are made synchronously: one pread of at most 64 kB, 1–3 µs from the
 * page cache against 25–75 µs of CPU through the libuv pool (a pool thread woken, a callback, a
 * promise; `npm run bench -- archive`, docs/benchmarks.md). A record not in the page cache holds
 * the event loop for that read, usually one seek; the night's commits already wait for their
 * fsync on the event loop, for longer. A larger record (a PDF) is read through the pool.
 */
export const INLINE_READ_BYTES = 64 * 1024;

/**
 * WARC files kept open for many reads: a night reads its 304s' copies back from a few files,
 * and opening and closing one for every record was a sizable part of the read. At most `max`
 * stay open (the least recently used is closed first; a close waits for reads under way). The
 * owner closes them when done. A file removed meanwhile still reads as it was (its digest is
 * checked by the caller); one that cannot be opened is not kept.
 */
export class OpenFiles {
  readonly #max: number;
  readonly #open = new Map<string, Entry>();
  /** Closes under way, so `close` resolves after them. */
  readonly #closing = new Set<Promise<void>>();
  /** Every file not yet let go: kept, or dropped while a read still uses it. */
  readonly #live = new Set<Entry>();
  #closed = false;

  constructor(max = 8) {
    this.#max = max;
  }

  /** Fills `buf` from `offset` of `path`; how many bytes were read, as FileHandle.read says. */
  async read(path: string, buf: Uint8Array, offset: number): Promise<number> {
    if (this.#closed) {
      // After close (a worker still finishing when the night ended): nothing kept open.
      const fh = await open(path, "r");
      try {
        return (await fh.read(buf, 0, buf.length, offset)).bytesRead;
      } finally {
        await fh.close();
      }
    }
    let e = this.#open.get(path);
    if (e !== undefined) {
      this.#open.delete(path); // most recently used: last in the map
      this.#open.set(path, e);
    } else {
      e = { fh: open(path, "r"), users: 0, dropped: false, closed: false };
      this.#open.set(path, e);
      this.#live.add(e);
      this.#trim();
    }
    e.users++;
    try {
      const fh = await e.fh;
      // A record of a page is read at once, on the event loop: through the libuv pool, the
      // read of a record of a few kB costs many times its CPU (a 304's copy, every night).
      if (buf.length <= INLINE_READ_BYTES) return readSync(fh.fd, buf, 0, buf.length, offset);
      return (await fh.read(buf, 0, buf.length, offset)).bytesRead;
    } catch (err) {
      this.#drop(path, e);
      throw err;
    } finally {
      e.users--;
      if (e.dropped && e.users === 0) {
        if (e.lastRead) e.lastRead();
        else this.#let(e);
      }
    }
  }

  /**
   * Every file closed, one a read is still using included: resolves when that read has ended
   * and its file is closed. Reads after it open and close their file each time.
   */
  async close(): Promise<void> {
    this.#closed = true;
    this.#open.clear();
    for (const e of [...this.#live]) {
      e.dropped = true;
      if (e.users === 0) this.#let(e);
      else this.#let(e, true);
    }
    await Promise.all([...this.#closing]);
  }

  /** Closes `e` now, or (`later`) once its last read ends; `close` waits for either. */
  #let(e: Entry, later = false): void {
    if (e.letting) return;
    e.letting = true;
    this.#live.delete(e);
    const p = later
      ? new Promise<void>((resolve) => {
          e.lastRead = resolve;
        }).then(() => closeQuietly(e))
      : closeQuietly(e);
    this.#closing.add(p);
    void p.then(() => this.#closing.delete(p));
  }

  /** Beyond `max`, the least recently used is let go: closed once no read is using it. */
  #trim(): void {
    while (this.#open.size > this.#max) {
      const [path, e] = this.#open.entries().next().value as [string, Entry];
      this.#drop(path, e);
      if (e.users === 0) this.#let(e);
    }
  }

  #drop(path: string, e: Entry): void {
    if (this.#open.get(path) === e) this.#open.delete(path);
    e.dropped = true;
  }
}

interface Entry {
  fh: Promise<FileHandle>;
  /** Reads under way: the file is closed only when none is. */
  users: number;
  /** No longer handed out (trimmed, failed, or all closed): closed when its last read ends. */
  dropped: boolean;
  closed: boolean;
  /** Its close is under way or waits for its last read (`lastRead`). */
  letting?: boolean;
  lastRead?: () => void;
}

async function closeQuietly(e: Entry): Promise<void> {
  if (e.closed) return;
  e.closed = true;
  try {
    await (await e.fh).close();
  } catch {
    // Never opened, or already closed: nothing to let go.
  }
}

/** The bytes of one gzip member (one record), through `files` when given. */
export async function readMember(
  path: string,
  offset: number,
  length: number,
  files?: OpenFiles,
): Promise<Uint8Array> {
  const buf = new Uint8Array(length);
  let bytesRead: number;
  try {
    if (files) bytesRead = await files.read(path, buf, offset);
    else {
      const fh = await open(path, "r");
      try {
        ({ bytesRead } = await fh.read(buf, 0, length, offset));
      } finally {
        await fh.close();
      }
    }
  } catch (err) {
    throw unreadableFile(path, err);
  }
  if (bytesRead !== length) {
    throw new NorError(
      "E_ARCHIVE",
      `${path}@${offset}: record cut short (${bytesRead}/${length} bytes)`,
    );
  }
  return buf;
}

/** Why a WARC file the index names could not be read, in words, with its path. */
function unreadableFile(path: string, err: unknown): unknown {
  const why = unreadableWhy(path, (err as NodeJS.ErrnoException | null)?.code);
  return why === undefined ? err : new NorError("E_ARCHIVE", `${path}: ${why}`, { cause: err });
}

function unreadableWhy(path: string, code: string | undefined): string | undefined {
  const dir = dirname(path);
  const named = "though the index names records in it";
  if (code === "ENOENT")
    return existsSync(dir)
      ? `the file is gone from the archive (moved or deleted), ${named}`
      : `the archive directory ${dir} is gone (moved or deleted), ${named}`;
  if (code === "ENOTDIR")
    return `${dir} is not a directory: the archive is a directory of WARC files`;
  if (code === "EACCES" || code === "EPERM") return `this user may not read it (${code})`;
  if (code === "EISDIR") return "a directory, not a WARC file";
  return undefined;
}

export function headersOf(record: WARCRecord): Record<string, string> {
  const out: Record<string, string> = {};
  const h = record.httpHeaders?.headers;
  if (!h) return out;
  for (const [k, v] of h) {
    const name = k.toLowerCase();
    out[name] = out[name] === undefined ? v : `${out[name]}, ${v}`;
  }
  return out;
}

/** Each Set-Cookie header of a record warcio read, apart. */
export function setCookiesOf(record: WARCRecord): string[] {
  const out: string[] = [];
  for (const [k, v] of record.httpHeaders?.headers ?? []) {
    if (k.toLowerCase() === "set-cookie") out.push(v);
  }
  return out;
}

/** One response or revisit record as read: its type, HTTP status and headers, and payload. */
export interface HttpRecord {
  type: string;
  status: number | undefined;
  headers: Record<string, string>;
  /** Each Set-Cookie header apart (`headers` joins them, which a cookie's Expires date spoils). */
  setCookies: string[];
  payload: Uint8Array;
}

/** Inflating a record never yields more than a 20 MiB body (P14) plus its headers allow. */
const MAX_RECORD_BYTES = 24 * 1024 * 1024;
const CRLFCRLF = Buffer.from("\r\n\r\n", "latin1");

/**
 * The record in one gzip member, read by hand; undefined when it is not plainly one WARC
 * record with an HTTP block (the caller then asks warcio). Throws when the member does not
 * inflate (a damaged copy: warcio could not read it either).
 */
export function parseHttpRecord(member: Uint8Array): HttpRecord | undefined {
  const raw = gunzipSync(member, { maxOutputLength: MAX_RECORD_BYTES });
  const headEnd = raw.indexOf(CRLFCRLF);
  if (headEnd < 0) return undefined;
  const lines = raw.toString("utf8", 0, headEnd).split("\r\n");
  if (!/^WARC\/1\.[01]$/.test(lines[0] ?? "")) return undefined;
  let type = "";
  let length = -1;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] as string;
    const colon = line.indexOf(":");
    if (colon <= 0) return undefined;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === "warc-type") type = value;
    else if (name === "content-length") length = /^\d+$/.test(value) ? Number(value) : -2;
  }
  if (length < 0 || (type !== "response" && type !== "revisit")) return undefined;
  const blockStart = headEnd + CRLFCRLF.length;
  if (raw.length < blockStart + length) return undefined;
  const block = raw.subarray(blockStart, blockStart + length);
  const httpEnd = block.indexOf(CRLFCRLF);
  if (httpEnd < 0) return undefined;
  const http = block.toString("utf8", 0, httpEnd).split("\r\n");
  const statusMatch = /^HTTP\/\d(?:\.\d)? (\d{3})(?: |$)/.exec(http[0] ?? "");
  if (!statusMatch) return undefined;
  const headers: Record<string, string> = {};
  const setCookies: string[] = [];
  for (let i = 1; i < http.length; i++) {
    const line = http[i] as string;
    const colon = line.indexOf(":");
    if (colon <= 0) return undefined; // a folded or odd line: warcio decides
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
    if (name === "set-cookie") setCookies.push(value);
  }
  return {
    type,
    status: Number(statusMatch[1]),
    headers,
    setCookies,
    payload: block.subarray(httpEnd + CRLFCRLF.length),
  };
}

async function readHttpRecord(
  path: string,
  offset: number,
  length: number,
  files?: OpenFiles,
): Promise<HttpRecord> {
  const bytes = await readMember(path, offset, length, files);
  let fast: HttpRecord | undefined;
  try {
    fast = parseHttpRecord(bytes);
  } catch (cause) {
    throw new NorError("E_ARCHIVE", `${path}@${offset}: not a readable WARC record`, { cause });
  }
  if (fast) return fast;
  let record: WARCRecord | null;
  try {
    // Only for a record this writer would not have written: warcio (and its wasm hasher) is
    // loaded then, not by every night.
    const { WARCParser } = await import("warcio");
    record = await WARCParser.parse([bytes]);
  } catch (cause) {
    throw new NorError("E_ARCHIVE", `${path}@${offset}: not a readable WARC record`, { cause });
  }
  if (!record) throw new NorError("E_ARCHIVE", `${path}@${offset}: no WARC record there`);
  const payload = await record.readFully(false);
  const code = record.httpHeaders?.statusCode;
  return {
    type: record.warcType ?? "",
    status: code === undefined ? undefined : Number(code),
    headers: headersOf(record),
    setCookies: setCookiesOf(record),
    payload,
  };
}

/** `dir` is the archive directory (DIR/archive); `files` keeps its files open between reads. */
export async function readCapture(
  dir: string,
  capture: Capture,
  files?: OpenFiles,
): Promise<StoredResponse> {
  const rec = await readHttpRecord(join(dir, capture.file), capture.offset, capture.length, files);
  const status = rec.status ?? capture.status;
  let body = rec.payload;
  if (rec.type === "revisit") {
    const ref = capture.refersTo;
    if (!ref) {
      throw new NorError(
        "E_ARCHIVE",
        `${capture.file}@${capture.offset}: revisit with no original`,
      );
    }
    body = (await readHttpRecord(join(dir, ref.file), ref.offset, ref.length, files)).payload;
  }
  return {
    status,
    headers: rec.headers,
    body,
    url: capture.url,
    fetchedAt: capture.fetchedAt,
    setCookies: rec.setCookies,
  };
}
