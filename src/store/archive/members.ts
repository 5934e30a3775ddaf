/**
 * One WARC file read gzip member by gzip member (WARC 1.1 Annex D: every record its own
 * member), for `nor archive verify`: a member that does not read costs that member alone. Each
 * is read from its offset with positioned reads, inflated and checked against its gzip trailer
 * (CRC-32 and length, RFC 1952 §2.3), then split into its WARC record. Memory is bounded by one
 * record (MAX_MEMBER_BYTES), never by the file. After a member that does not read, the next one
 * is looked for at the next offset the index knows, or at the next gzip header (`1f 8b 08`).
 */
import type { FileHandle } from "node:fs/promises";
import * as zlib from "node:zlib";

/**
 * The most a member may take, compressed or inflated: a record holds at most a 20 MB body
 * (MAX_BODY_BYTES) and its headers, so more is a damaged member running on, not a record.
 */
export const MAX_MEMBER_BYTES = 64 * 1024 * 1024;
/** What is read first for a member whose length the index does not give. */
const FIRST_READ = 64 * 1024;
/** What is scanned at a time for the next gzip header. */
const SCAN_READ = 1024 * 1024;

export interface WarcRecord {
  /** WARC header fields, their names lower-cased. */
  headers: Map<string, string>;
  block: Uint8Array;
}

export type MemberRead =
  | { ok: true; end: number; record: WarcRecord }
  /** `eof`: the file ends inside it (a member cut short, or damaged data running on). */
  | { ok: false; why: string; eof: boolean };

const CRLFCRLF = Buffer.from("\r\n\r\n");

/** Node ≥ 20.15 has zlib.crc32; before it, a table. */
const nativeCrc32 = (zlib as { crc32?: (data: Uint8Array) => number }).crc32;
let table: Uint32Array | undefined;
function crc32(data: Uint8Array): number {
  if (nativeCrc32) return nativeCrc32(data) >>> 0;
  if (!table) {
    table = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (const byte of data) crc = (table[(crc ^ byte) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** Where the deflate data of the gzip member at the start of `buf` begins (RFC 1952 §2.3). */
function gzipHeader(buf: Buffer): { dataStart: number } | { why: string } | "more" {
  if (buf.length < 10) return "more";
  if (buf[0] !== 0x1f || buf[1] !== 0x8b || buf[2] !== 8) {
    const head = buf
      .subarray(0, 3)
      .toString("hex")
      .replace(/(..)(?!$)/g, "$1 ");
    return { why: `not the start of a gzip member (its first bytes are ${head}, not 1f 8b 08)` };
  }
  const flags = buf[3] as number;
  if (flags & 0xe0) return { why: "bad gzip header (reserved flags set)" };
  let at = 10;
  if (flags & 4) {
    if (buf.length < at + 2) return "more";
    at += 2 + buf.readUInt16LE(at);
  }
  for (const bit of [8, 16]) {
    if (!(flags & bit)) continue;
    const nul = buf.indexOf(0, at);
    if (nul < 0) return "more";
    at = nul + 1;
  }
  if (flags & 2) at += 2;
  return buf.length < at ? "more" : { dataStart: at };
}

function hex8(n: number): string {
  return n.toString(16).padStart(8, "0");
}

/** The one WARC record a member holds, or why it is not one. */
export function parseWarcRecord(raw: Buffer): WarcRecord | { why: string } {
  const headEnd = raw.indexOf(CRLFCRLF);
  if (headEnd < 0) return { why: "not a WARC record (its header does not end)" };
  const lines = raw.toString("utf8", 0, headEnd).split("\r\n");
  if (!/^WARC\/1\.[01]$/.test(lines[0] ?? ""))
    return {
      why: `not a WARC record (it begins ${JSON.stringify((lines[0] ?? "").slice(0, 20))})`,
    };
  const headers = new Map<string, string>();
  let last: string | undefined;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] as string;
    if ((line.startsWith(" ") || line.startsWith("\t")) && last !== undefined) {
      headers.set(last, `${headers.get(last)} ${line.trim()}`); // a folded line (WARC 1.1 §4)
      continue;
    }
    const colon = line.indexOf(":");
    if (colon <= 0) return { why: `not a WARC record (a header line without a name)` };
    last = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    const before = headers.get(last);
    headers.set(last, before === undefined ? value : `${before}, ${value}`);
  }
  const declared = headers.get("content-length") ?? "";
  if (!/^\d+$/.test(declared)) return { why: "not a WARC record (no Content-Length)" };
  const length = Number(declared);
  const blockStart = headEnd + CRLFCRLF.length;
  if (raw.length < blockStart + length)
    return {
      why: `its block is shorter than its Content-Length (${raw.length - blockStart} of ${length} bytes)`,
    };
  const rest = raw.subarray(blockStart + length);
  if (!rest.equals(CRLFCRLF))
    return {
      why: `its gzip member holds ${rest.length} bytes after the record's block where 4 (CRLF CRLF) belong`,
    };
  return { headers, block: raw.subarray(blockStart, blockStart + length) };
}

export class MemberReader {
  readonly #fh: FileHandle;
  readonly #size: number;

  constructor(fh: FileHandle, size: number) {
    this.#fh = fh;
    this.#size = size;
  }

  async #read(pos: number, n: number): Promise<Buffer> {
    const buf = Buffer.allocUnsafe(Math.max(0, Math.min(n, this.#size - pos)));
    let got = 0;
    while (got < buf.length) {
      const { bytesRead } = await this.#fh.read(buf, got, buf.length - got, pos + got);
      if (bytesRead === 0) break; // the file shrank meanwhile
      got += bytesRead;
    }
    return buf.subarray(0, got);
  }

  /**
   * The member at `pos`: inflated, its CRC and length checked, its WARC record split out.
   * `hint`: its length as the index gives it (read at once; more is read if it runs on).
   */
  async readAt(pos: number, hint?: number): Promise<MemberRead> {
    let want = Math.min(Math.max(hint ?? FIRST_READ, 32), MAX_MEMBER_BYTES);
    for (;;) {
      const buf = await this.#read(pos, want);
      const toEnd = pos + buf.length >= this.#size;
      const more = (): boolean => {
        if (toEnd || buf.length >= MAX_MEMBER_BYTES) return false;
        want = Math.min(buf.length * 2, MAX_MEMBER_BYTES);
        return true;
      };
      const cut = (what: string): MemberRead =>
        toEnd
          ? { ok: false, why: `cut short: the file ends inside its ${what}`, eof: true }
          : {
              ok: false,
              why: `bad gzip data (its ${what} runs on past ${MAX_MEMBER_BYTES} bytes)`,
              eof: false,
            };
      const header = gzipHeader(buf);
      if (header === "more") {
        if (more()) continue;
        return cut("gzip header");
      }
      if ("why" in header) return { ok: false, why: header.why, eof: false };
      let raw: Buffer;
      let used: number;
      try {
        const r = zlib.inflateRawSync(buf.subarray(header.dataStart), {
          info: true,
          maxOutputLength: MAX_MEMBER_BYTES,
        }) as unknown as { buffer: Buffer; engine: { bytesWritten: number } };
        raw = r.buffer;
        used = r.engine.bytesWritten;
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === "Z_BUF_ERROR") {
          if (more()) continue;
          return cut("deflate data");
        }
        if (code === "ERR_BUFFER_TOO_LARGE")
          return {
            ok: false,
            why: `bad gzip data (it inflates to more than ${MAX_MEMBER_BYTES} bytes)`,
            eof: false,
          };
        return { ok: false, why: `bad gzip data (${(err as Error).message})`, eof: false };
      }
      const trailer = header.dataStart + used;
      if (buf.length < trailer + 8) {
        if (more()) continue;
        return cut("gzip trailer (CRC and length)");
      }
      const crc = buf.readUInt32LE(trailer);
      const isize = buf.readUInt32LE(trailer + 4);
      const actual = crc32(raw);
      if (crc !== actual)
        return {
          ok: false,
          why: `CRC mismatch (its gzip trailer says ${hex8(crc)}, its data inflates to ${hex8(actual)})`,
          eof: false,
        };
      if (isize !== raw.length >>> 0)
        return {
          ok: false,
          why: `length mismatch (its gzip trailer says ${isize} bytes, its data inflates to ${raw.length})`,
          eof: false,
        };
      const record = parseWarcRecord(raw);
      if ("why" in record) return { ok: false, why: record.why, eof: false };
      return { ok: true, end: pos + trailer + 8, record };
    }
  }

  /** Whether every byte from `from` to the end of the file is zero (at most 64 MiB looked at). */
  async zerosFrom(from: number): Promise<boolean> {
    if (this.#size - from > MAX_MEMBER_BYTES) return false;
    for (let at = from; at < this.#size; at += SCAN_READ) {
      const buf = await this.#read(at, Math.min(SCAN_READ, this.#size - at));
      if (buf.length === 0) break;
      if (buf.some((b) => b !== 0)) return false;
    }
    return true;
  }

  /**
   * Where to look for the next member after one that did not read at `from - 1`: the first
   * gzip header (`1f 8b 08`) from `from` on, or `until` (the next offset the index knows), the
   * earlier. Undefined when there is none before the end of the file.
   */
  async nextStart(from: number, until?: number): Promise<number | undefined> {
    const stop = Math.min(until ?? this.#size, this.#size);
    for (let at = from; at < stop; ) {
      // Two bytes more than the step, so a header across a boundary is found.
      const buf = await this.#read(at, Math.min(SCAN_READ, stop - at) + 2);
      if (buf.length === 0) break;
      let i = buf.indexOf(0x1f);
      while (i >= 0 && at + i < stop) {
        if (buf[i + 1] === 0x8b && buf[i + 2] === 8) return at + i;
        i = buf.indexOf(0x1f, i + 1);
      }
      at += SCAN_READ;
    }
    return until !== undefined && until < this.#size ? until : undefined;
  }
}
