/**
 * `nor archive cdx`: a CDXJ index of the archive (the pywb / OpenWayback form), made by
 * warcio's own indexer so it is what every other WARC tool would write for these files:
 * `<surt> <14-digit timestamp> {"url","mime","status","digest","length","offset","filename"}`,
 * sorted as text (CDX servers binary-search it).
 */
import { createReadStream } from "node:fs";
import { join } from "node:path";
import { listWarcFiles } from "./files.js";

export async function cdxLines(dir: string): Promise<string[]> {
  // Loaded here, not with the archive: a night never needs warcio (and its wasm hasher).
  const { CDXIndexer } = await import("warcio");
  const indexer = new CDXIndexer({ format: "cdxj" });
  const files = listWarcFiles(dir).map((filename) => ({
    filename,
    reader: createReadStream(join(dir, filename)),
  }));
  const lines: string[] = [];
  for await (const entry of indexer.iterIndex(files)) {
    lines.push(indexer.serializeCDXJ(entry).trimEnd());
  }
  // Byte order, as `LC_ALL=C sort` gives and CDX servers expect.
  return lines.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
