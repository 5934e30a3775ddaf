/**
 * Where the WARC files lie: DIR/archive/nor-<UTC timestamp>-<seq>.warc.gz. The sequence
 * number makes names sort in writing order even when two files start in the same second.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";

/** P8: files rotate at 1 GB by default (the size most WARC tools and crawlers use). */
export const DEFAULT_ROTATE_BYTES = 1_000_000_000;

const NAME = /^nor-(\d{14})-(\d{5})\.warc\.gz$/;

export function archiveDir(dataDir: string): string {
  return join(dataDir, "archive");
}

/** The 14-digit WARC/CDX timestamp (UTC) of a time. */
export function timestamp14(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:T]/g, "").slice(0, 14);
}

export function fileName(seq: number, at: number): string {
  return `nor-${timestamp14(at)}-${String(seq).padStart(5, "0")}.warc.gz`;
}

/** The archive's WARC files in writing order (absent directory: none). */
export function listWarcFiles(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => NAME.test(n))
    .sort((a, b) => seqOf(a) - seqOf(b) || a.localeCompare(b));
}

export function seqOf(name: string): number {
  return Number(NAME.exec(name)?.[2] ?? 0);
}
