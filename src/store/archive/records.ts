/**
 * Builds the WARC 1.1 records of one exchange: a `response` (or a `revisit` when the payload
 * is the one we already hold, P8), then the `request` it answered, linked by
 * WARC-Concurrent-To. Each record is written by hand (WARC 1.1 §4: version line, named
 * fields, blank line, block, CRLF CRLF), digested with node:crypto and gzipped alone with
 * node:zlib as its own member (WARC 1.1 Annex D), so any record can be read alone from its
 * offset. No stream or wasm hasher per record: a record costs about one gzip and two sha256
 * passes over its bytes (a revisit: its headers only; the original is not read back, see
 * warc-archive.ts). Reading stays with warcio (read.ts), which is also what the tests read the
 * records back with; verify.ts reads member by member (members.ts), so one damaged member is one
 * problem.
 */
import { STATUS_CODES } from "node:http";
import { promisify } from "node:util";
import { gzip, gzipSync } from "node:zlib";
import { NorError } from "../../errors.js";
import type { ArchivePort } from "../../net/types.js";
import { sha256Digest } from "./digest.js";

export type Exchange = Parameters<ArchivePort["write"]>[0];

export interface Original {
  url: string;
  /** WARC-Date of the record holding the payload. */
  date: string;
}

/** Header values never carry a raw line break into the block (it would forge a header). */
function clean(v: string): string {
  return v.replace(/[\r\n]+/g, " ");
}

/** WARC-Date: WARC 1.1 §5.4 allows fractional seconds; toISOString gives milliseconds. */
export function warcDate(ms: number): string {
  return new Date(ms).toISOString();
}

/**
 * The header block as stored. The fetcher hands us the DECODED body (gzip/br undone) and
 * lower-cased headers. A stored `Content-Encoding: gzip` over a plain body would make every
 * WARC reader (warcio, pywb, replay tools) try to inflate it and fail, and a stale
 * Content-Length would misstate the block; so both are dropped/rewritten here, as are
 * Transfer-Encoding (the body is de-chunked) and the hop-by-hop Connection. The values as
 * received are kept in the WARC headers `NOR-Original-Content-Encoding`,
 * `NOR-Original-Content-Length` and `NOR-Original-Transfer-Encoding`, so nothing is lost.
 */
export function storedHttpHeaders(
  headers: Record<string, string>,
  bodyLength: number,
): { http: [string, string][]; original: Record<string, string> } {
  const http: [string, string][] = [];
  const original: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (name === "content-encoding" || name === "transfer-encoding" || name === "content-length") {
      original[`NOR-Original-${name.replace(/(^|-)(\w)/g, (_m, d, c) => d + c.toUpperCase())}`] =
        clean(value);
      continue;
    }
    // set-cookie is kept apart by the fetcher (one per line); each stays its own header.
    if (name === "set-cookie") {
      for (const one of value.split("\n")) if (one) http.push([name, clean(one)]);
      continue;
    }
    http.push([name, clean(value)]);
  }
  http.push(["content-length", String(bodyLength)]);
  return { http, original };
}

/**
 * We are handed the status code, not the status line: the reason phrase is the standard one
 * (RFC 9110 §15) and the version HTTP/1.1, which is what undici speaks to origin servers.
 */
export function statusLine(status: number): string {
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "Unknown"}`;
}

/** The identical-payload-digest revisit profile of WARC 1.1 (§6.7.2), as warcio names it. */
export const REVISIT_PROFILE = "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest";

/** Record Content-Types (WARC 1.1 §6.3–6.4, §6.7, §6.2), spelled as warcio and Heritrix write them. */
const HTTP_RESPONSE = "application/http; msgtype=response";
const HTTP_REQUEST = "application/http; msgtype=request";
const WARC_FIELDS = "application/warc-fields";

const CRLFCRLF = Buffer.from("\r\n\r\n", "latin1");
const EMPTY = Buffer.alloc(0);

/** RFC 9110 §5.1 field-name (a token); WARC named fields share the grammar (WARC 1.1 §4). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

type Field = readonly [name: string, value: string];

/** `Name: value` CRLF per field. A name that is not a token is a bug upstream, not input. */
function fieldLines(fields: readonly Field[]): string {
  let out = "";
  for (const [name, value] of fields) {
    if (!TOKEN.test(name)) {
      throw new NorError("E_INTERNAL", `archive: ${JSON.stringify(name)} is not a field name`);
    }
    out += `${name}: ${clean(value)}\r\n`;
  }
  return out;
}

/** An HTTP message head as a WARC block starts (RFC 9112 §2.1): start line, fields, CRLF. */
function httpHead(startLine: string, fields: readonly Field[]): Buffer {
  return Buffer.from(`${clean(startLine)}\r\n${fieldLines(fields)}\r\n`, "utf8");
}

/** WARC-Target-URI as warcio wrote it: the URL's normalized href when it parses. */
function targetUri(url: string): string {
  try {
    return new URL(url).href;
  } catch {
    return url;
  }
}

/**
 * One record as one gzip member: `WARC/1.1`, the named fields, WARC-Block-Digest over the
 * whole block (§5.8) and Content-Length of the block (§5.3) last, a blank line, the block
 * (`head` then `payload`), and the CRLF CRLF that ends a record (§4).
 */
const gzipOnPool = promisify(gzip);

/**
 * Records up to this size are deflated inline (under about 10 ms here); a larger one (a
 * multi-megabyte PDF, up to the 20 MiB of P14) goes to the libuv pool, so it never holds the
 * event loop, and with it every other lane's timers (P10 gaps, P14 timeouts), for a second.
 */
const INLINE_BYTES = 1 << 20;

async function member(fields: Field[], head: Uint8Array, payload: Uint8Array): Promise<Buffer> {
  const blockLength = head.length + payload.length;
  const top = Buffer.from(
    `WARC/1.1\r\n${fieldLines(fields)}WARC-Block-Digest: ${sha256Digest(head, payload)}\r\nContent-Length: ${blockLength}\r\n\r\n`,
    "utf8",
  );
  const total = top.length + blockLength + CRLFCRLF.length;
  const record = Buffer.concat([top, head, payload, CRLFCRLF], total);
  return total > INLINE_BYTES ? gzipOnPool(record) : gzipSync(record);
}

export async function responseRecord(
  ex: Exchange,
  recordId: string,
  payloadDigest: string,
  revisitOf?: Original,
): Promise<Uint8Array> {
  const body = ex.response.body;
  const { http, original } = storedHttpHeaders(ex.response.headers, body.length);
  const fields: Field[] = [
    ["WARC-Type", revisitOf ? "revisit" : "response"],
    ["WARC-Record-ID", recordId],
    ["WARC-Date", warcDate(ex.fetchedAt)],
    ["WARC-Target-URI", targetUri(ex.response.url)],
  ];
  if (revisitOf) {
    // Identical-payload-digest profile (WARC 1.1 §6.7.2): headers only, the body lies in
    // the record named by WARC-Refers-To-Target-URI / -Date (and WARC-Refers-To, our index).
    fields.push(
      ["WARC-Profile", REVISIT_PROFILE],
      ["WARC-Refers-To-Target-URI", revisitOf.url],
      ["WARC-Refers-To-Date", revisitOf.date],
    );
  }
  fields.push(
    ["WARC-Payload-Digest", payloadDigest],
    ["Content-Type", HTTP_RESPONSE],
    ["NOR-Purpose", ex.purpose],
    ...Object.entries(original),
  );
  if (ex.source !== undefined) fields.push(["NOR-Source", ex.source]);
  const head = httpHead(statusLine(ex.response.status), http);
  return member(fields, head, revisitOf ? EMPTY : body);
}

export async function requestRecord(
  ex: Exchange,
  recordId: string,
  concurrentTo: string,
): Promise<Uint8Array> {
  const target = new URL(ex.request.url);
  const http: Field[] = [];
  if (!Object.keys(ex.request.headers).some((h) => h.toLowerCase() === "host")) {
    http.push(["host", target.host]);
  }
  for (const [k, v] of Object.entries(ex.request.headers)) http.push([k, v]);
  const body = ex.request.body !== undefined ? Buffer.from(ex.request.body, "utf8") : EMPTY;
  const fields: Field[] = [
    ["WARC-Type", "request"],
    ["WARC-Record-ID", recordId],
    ["WARC-Date", warcDate(ex.fetchedAt)],
    ["WARC-Target-URI", targetUri(ex.request.url)],
    ["WARC-Concurrent-To", concurrentTo],
    ["WARC-Payload-Digest", sha256Digest(body)],
    ["Content-Type", HTTP_REQUEST],
  ];
  const head = httpHead(`${ex.request.method} ${target.pathname}${target.search} HTTP/1.1`, http);
  return member(fields, head, body);
}

/** The record that opens every file (WARC 1.1 §6.2). */
export async function warcinfoRecord(
  filename: string,
  at: number,
  recordId: string,
  /** The store whose archive the file is part of (`isPartOf: urn:uuid:…`), when known. */
  storeUrn?: string,
): Promise<Uint8Array> {
  const info: Field[] = [
    ["software", "public-records-check (New on Record)"],
    ["format", "WARC File Format 1.1"],
    [
      "conformsTo",
      "https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/",
    ],
    ["description", "The operator's private copy of every response read (P8)"],
    ...(storeUrn !== undefined ? ([["isPartOf", storeUrn]] as Field[]) : []),
  ];
  const fields: Field[] = [
    ["WARC-Type", "warcinfo"],
    ["WARC-Record-ID", recordId],
    ["WARC-Date", warcDate(at)],
    ["WARC-Filename", filename],
    ["Content-Type", WARC_FIELDS],
  ];
  return member(fields, Buffer.from(fieldLines(info), "utf8"), EMPTY);
}
