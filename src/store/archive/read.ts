/**
 * Reading back the private copy (P8): one record from its offset, never the network. A
 * revisit is answered with its own status and headers and the payload of the response it
 * refers to (the identical-payload-digest profile's meaning).
 */
import { open } from "node:fs/promises";
import { join } from "node:path";
import { WARCParser, type WARCRecord } from "warcio";
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

/** Parses the record at `offset` of `path`; `payload` is the raw bytes after the HTTP headers. */
export async function readRecordAt(
  path: string,
  offset: number,
  length: number,
): Promise<{ record: WARCRecord; payload: Uint8Array }> {
  const bytes = await readMember(path, offset, length);
  let record: WARCRecord | null;
  try {
    record = await WARCParser.parse([bytes]);
  } catch (cause) {
    throw new NorError("E_ARCHIVE", `${path}@${offset}: not a readable WARC record`, { cause });
  }
  if (!record) throw new NorError("E_ARCHIVE", `${path}@${offset}: no WARC record there`);
  const payload = await record.readFully(false);
  return { record, payload };
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

/** `dir` is the archive directory (DIR/archive). */
export async function readCapture(dir: string, capture: Capture): Promise<StoredResponse> {
  const { record, payload } = await readRecordAt(
    join(dir, capture.file),
    capture.offset,
    capture.length,
  );
  const status = Number(record.httpHeaders?.statusCode ?? capture.status);
  const headers = headersOf(record);
  let body = payload;
  if (record.warcType === "revisit") {
    const ref = capture.refersTo;
    if (!ref) {
      throw new NorError(
        "E_ARCHIVE",
        `${capture.file}@${capture.offset}: revisit with no original`,
      );
    }
    body = (await readRecordAt(join(dir, ref.file), ref.offset, ref.length)).payload;
  }
  return { status, headers, body, url: capture.url, fetchedAt: capture.fetchedAt };
}
