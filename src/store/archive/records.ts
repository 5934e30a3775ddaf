/**
 * Builds the WARC 1.1 records of one exchange with warcio: a `response` (or a `revisit` when
 * the payload is the one we already hold, P8), then the `request` it answered, linked by
 * WARC-Concurrent-To. Each record is serialized to its own gzip member (WARC 1.1 Annex D),
 * so any record can be read alone from its offset.
 */
import { STATUS_CODES } from "node:http";
import { WARC_1_1, WARCRecord, WARCSerializer } from "warcio";
import type { ArchivePort } from "../../net/types.js";
import { DIGEST_OPTS } from "./digest.js";

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

async function serialize(record: WARCRecord): Promise<Uint8Array> {
  return WARCSerializer.serialize(record, { gzip: true, digest: DIGEST_OPTS });
}

export async function responseRecord(
  ex: Exchange,
  recordId: string,
  payloadDigest: string,
  revisitOf?: Original,
): Promise<Uint8Array> {
  const body = ex.response.body;
  const { http, original } = storedHttpHeaders(ex.response.headers, body.length);
  const warcHeaders: Record<string, string> = {
    "WARC-Record-ID": recordId,
    "WARC-Payload-Digest": payloadDigest,
    "NOR-Purpose": ex.purpose,
    ...original,
  };
  if (ex.source !== undefined) warcHeaders["NOR-Source"] = clean(ex.source);
  const common = {
    url: ex.response.url,
    date: warcDate(ex.fetchedAt),
    warcVersion: WARC_1_1,
    statusline: statusLine(ex.response.status),
    httpHeaders: http,
    warcHeaders,
  } as const;
  if (revisitOf) {
    // Identical-payload-digest profile (WARC 1.1 §6.7.2): headers only, the body lies in
    // the record named by WARC-Refers-To-Target-URI / -Date (and WARC-Refers-To, our index).
    const rec = WARCRecord.create({
      ...common,
      type: "revisit",
      refersToUrl: revisitOf.url,
      refersToDate: revisitOf.date,
    });
    return serialize(rec);
  }
  const rec = WARCRecord.create({ ...common, type: "response" }, [body]);
  return serialize(rec);
}

export async function requestRecord(
  ex: Exchange,
  recordId: string,
  concurrentTo: string,
): Promise<Uint8Array> {
  const target = new URL(ex.request.url);
  const http: [string, string][] = [];
  if (!Object.keys(ex.request.headers).some((h) => h.toLowerCase() === "host")) {
    http.push(["host", target.host]);
  }
  for (const [k, v] of Object.entries(ex.request.headers)) http.push([k, clean(v)]);
  const body = ex.request.body !== undefined ? new TextEncoder().encode(ex.request.body) : null;
  const rec = WARCRecord.create(
    {
      url: ex.request.url,
      date: warcDate(ex.fetchedAt),
      type: "request",
      warcVersion: WARC_1_1,
      statusline: `${ex.request.method} ${target.pathname}${target.search} HTTP/1.1`,
      httpHeaders: http,
      warcHeaders: { "WARC-Record-ID": recordId, "WARC-Concurrent-To": concurrentTo },
    },
    body ? [body] : [],
  );
  return serialize(rec);
}

export async function warcinfoRecord(filename: string, at: number): Promise<Uint8Array> {
  const rec = WARCRecord.createWARCInfo(
    { filename, date: warcDate(at), warcVersion: WARC_1_1 },
    {
      software: "public-records-check (New on Record), warcio.js",
      format: "WARC File Format 1.1",
      conformsTo: "https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/",
      description: "The operator's private copy of every response read (P8)",
    },
  );
  return serialize(rec);
}
