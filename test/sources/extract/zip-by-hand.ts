import { deflateRawSync } from "node:zlib";

/** One entry of zipByHand: `data` deflated unless `method` is 0 (stored) or `declared` is set. */
export interface ZipEntry {
  name: string;
  data: Uint8Array | string;
  method?: 0 | 8;
  /** The uncompressed size the headers declare, and `data` written as given (a lie, for tests). */
  declared?: number;
}

/**
 * A zip written by hand (APPNOTE §4.3), for the XLSX tests' files no spreadsheet writer would
 * make: each entry's local header, its data, then the central directory and its end.
 */
export function zipByHand(entries: readonly ZipEntry[]): Uint8Array {
  const parts: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = new TextEncoder().encode(e.name);
    const raw = typeof e.data === "string" ? new TextEncoder().encode(e.data) : e.data;
    const method = e.method ?? 8;
    const data = method === 8 && e.declared === undefined ? deflateRawSync(raw) : raw;
    const usize = e.declared ?? raw.length;
    const lfh = Buffer.alloc(30);
    lfh.writeUInt32LE(0x04034b50, 0);
    lfh.writeUInt16LE(20, 4);
    lfh.writeUInt16LE(method, 8);
    lfh.writeUInt32LE(data.length, 18);
    lfh.writeUInt32LE(usize, 22);
    lfh.writeUInt16LE(name.length, 26);
    const cdh = Buffer.alloc(46);
    cdh.writeUInt32LE(0x02014b50, 0);
    cdh.writeUInt16LE(20, 6);
    cdh.writeUInt16LE(method, 10);
    cdh.writeUInt32LE(data.length, 20);
    cdh.writeUInt32LE(usize, 24);
    cdh.writeUInt16LE(name.length, 28);
    cdh.writeUInt32LE(offset, 42);
    parts.push(lfh, name, data);
    central.push(cdh, name);
    offset += 30 + name.length + data.length;
  }
  const cdSize = central.reduce((n, b) => n + b.length, 0);
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(entries.length, 8);
  eocd.writeUInt16LE(entries.length, 10);
  eocd.writeUInt32LE(cdSize, 12);
  eocd.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...parts, ...central, eocd]));
}
