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
import { open } from "node:fs/promises";
import { join } from "node:path";
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
}

/** The bytes of one gzip member (one record). */
export async function readMember(
  path: string,
  offset: number,
  length: number,
): Promise<Uint8Array> {
  const fh = await open(path, "r");
  try {
    const buf = new Uint8Array(length);
    const { bytesRead } = await fh.read(buf, 0, length, offset);
    if (bytesRead !== length) {
      throw new NorError(
        "E_ARCHIVE",
        `${path}@${offset}: record cut short (${bytesRead}/${length} bytes)`,
      );
    }
    return buf;
  } finally {
    await fh.close();
  }
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

/** One response or revisit record as read: its type, HTTP status and headers, and payload. */
export interface HttpRecord {
  type: string;
  status: number | undefined;
  headers: Record<string, string>;
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
  for (let i = 1; i < http.length; i++) {
    const line = http[i] as string;
    const colon = line.indexOf(":");
    if (colon <= 0) return undefined; // a folded or odd line: warcio decides
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  return {
    type,
    status: Number(statusMatch[1]),
    headers,
    payload: block.subarray(httpEnd + CRLFCRLF.length),
  };
}

async function readHttpRecord(path: string, offset: number, length: number): Promise<HttpRecord> {
  const bytes = await readMember(path, offset, length);
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
    payload,
  };
}

/** `dir` is the archive directory (DIR/archive). */
export async function readCapture(dir: string, capture: Capture): Promise<StoredResponse> {
  const rec = await readHttpRecord(join(dir, capture.file), capture.offset, capture.length);
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
    body = (await readHttpRecord(join(dir, ref.file), ref.offset, ref.length)).payload;
  }
  return { status, headers: rec.headers, body, url: capture.url, fetchedAt: capture.fetchedAt };
}
