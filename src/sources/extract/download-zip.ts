/**
 * Just enough of a ZIP reader (PKWARE APPNOTE 6.3.10 §4.3) to take the few XML parts of an
 * XLSX out of a downloaded file, synchronously, with a hard cap on what inflating may produce:
 * a 20 MiB file can hold gigabytes of zeros (a zip bomb), and the sizes a zip declares can
 * lie, so the cap is enforced by zlib itself (`maxOutputLength`), never taken from the header.
 */
import { inflateRawSync } from "node:zlib";

export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  /** Offset of the entry's local file header (§4.3.7). */
  localOffset: number;
}

export type ZipIndex = { ok: true; entries: Map<string, ZipEntry> } | { ok: false; why: string };

export type ZipRead = { ok: true; bytes: Uint8Array } | { ok: false; why: string; tooLarge?: true };

const EOCD_SIG = 0x06054b50; // §4.3.16 end of central directory record
const CDH_SIG = 0x02014b50; // §4.3.12 central directory file header
const LFH_SIG = 0x04034b50; // §4.3.7 local file header
const ZIP64_MARK = 0xffffffff;

/** "PK\3\4": a local file header first, as every zip written by a spreadsheet program starts. */
export function looksLikeZip(body: Uint8Array): boolean {
  return body[0] === 0x50 && body[1] === 0x4b && body[2] === 0x03 && body[3] === 0x04;
}

/** The central directory: one entry per file name (the last wins, as unzip tools do). */
export function zipIndex(body: Uint8Array): ZipIndex {
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  // The EOCD is the last 22 bytes plus a comment of up to 65535 bytes (§4.3.16).
  let eocd = -1;
  for (let i = body.length - 22; i >= 0 && i >= body.length - 22 - 0xffff; i--) {
    if (view.getUint32(i, true) === EOCD_SIG) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) return { ok: false, why: "not a complete zip file (no end record)" };
  const count = view.getUint16(eocd + 10, true);
  let p = view.getUint32(eocd + 16, true);
  if (p === ZIP64_MARK || count === 0xffff) return { ok: false, why: "ZIP64 files are not read" };
  const entries = new Map<string, ZipEntry>();
  for (let n = 0; n < count; n++) {
    if (p + 46 > body.length || view.getUint32(p, true) !== CDH_SIG)
      return { ok: false, why: "damaged zip directory" };
    const method = view.getUint16(p + 10, true);
    const compressedSize = view.getUint32(p + 20, true);
    const nameLen = view.getUint16(p + 28, true);
    const extraLen = view.getUint16(p + 30, true);
    const commentLen = view.getUint16(p + 32, true);
    const localOffset = view.getUint32(p + 42, true);
    if (compressedSize === ZIP64_MARK || localOffset === ZIP64_MARK)
      return { ok: false, why: "ZIP64 files are not read" };
    const name = new TextDecoder().decode(body.subarray(p + 46, p + 46 + nameLen));
    entries.set(name, { name, method, compressedSize, localOffset });
    p += 46 + nameLen + extraLen + commentLen;
  }
  return { ok: true, entries };
}

/**
 * One entry's bytes, inflated to at most `maxBytes`. Stored (0) and deflated (8) entries only:
 * those are what Excel, LibreOffice and every XLSX writer produce.
 */
export function readZipEntry(body: Uint8Array, e: ZipEntry, maxBytes: number): ZipRead {
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  const h = e.localOffset;
  if (h + 30 > body.length || view.getUint32(h, true) !== LFH_SIG)
    return { ok: false, why: `damaged zip entry ${e.name}` };
  const start = h + 30 + view.getUint16(h + 26, true) + view.getUint16(h + 28, true);
  const end = start + e.compressedSize;
  if (end > body.length) return { ok: false, why: `zip entry ${e.name} is cut short` };
  const data = body.subarray(start, end);
  if (e.method === 0) {
    if (data.length > maxBytes) return tooBig(e);
    return { ok: true, bytes: data };
  }
  if (e.method !== 8) return { ok: false, why: `zip entry ${e.name} uses compression ${e.method}` };
  try {
    return { ok: true, bytes: inflateRawSync(data, { maxOutputLength: Math.max(1, maxBytes) }) };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") return tooBig(e);
    return { ok: false, why: `zip entry ${e.name} does not inflate (${(err as Error).message})` };
  }
}

function tooBig(e: ZipEntry): ZipRead {
  return { ok: false, why: `zip entry ${e.name} is over the size cap`, tooLarge: true };
}
