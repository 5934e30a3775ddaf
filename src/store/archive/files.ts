/**
 * Where the WARC files lie: DIR/archive/nor-<UTC timestamp>-<seq>-<token>.warc.gz. The
 * sequence number makes names sort in writing order even when two files start in the same
 * second. The token (8 hex digits: the start of the file's warcinfo record id, random in
 * production) keeps names apart across machines: workers on several hosts, each with a data
 * directory of its own, share one capture index (PostgreSQL), which names records by file name,
 * and their files may start in the same second with the same number. Files written before the
 * token was added (nor-<UTC timestamp>-<seq>.warc.gz) are read as before.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../../errors.js";

/** P8: files rotate at 1 GB by default (the size most WARC tools and crawlers use). */
export const DEFAULT_ROTATE_BYTES = 1_000_000_000;

const NAME = /^nor-(\d{14})-(\d{5})(?:-([0-9a-f]{8}))?\.warc\.gz$/;
const TOKEN = /^[0-9a-f]{8}$/;

export function archiveDir(dataDir: string): string {
  return join(dataDir, "archive");
}

/** What is said of something else where the archive's directory goes (it waits for a person). */
export function archiveInTheWay(path: string): string {
  return `the archive location ${path} is not a directory: the stored copies (P8) are kept in a directory there; move what is in the way`;
}

/** The 14-digit WARC/CDX timestamp (UTC) of a time. */
export function timestamp14(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:T]/g, "").slice(0, 14);
}

/** A file's name; `token` is 8 lower-case hex digits (see above). */
export function fileName(seq: number, at: number, token: string): string {
  if (!TOKEN.test(token)) throw new RangeError(`a WARC file token is 8 hex digits, not ${token}`);
  return `nor-${timestamp14(at)}-${String(seq).padStart(5, "0")}-${token}.warc.gz`;
}

/**
 * The archive's WARC files in writing order (absent directory: none). A directory that is there
 * but cannot be listed (its permissions) is an error, never taken for an empty archive.
 */
export function listWarcFiles(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw new ConfigError(
      `the archive ${dir} cannot be read: ${(err as NodeJS.ErrnoException).code ?? String(err)} (its permissions? nor must be able to list and read it)`,
    );
  }
  return names
    .filter((n) => NAME.test(n))
    .sort((a, b) => seqOf(a) - seqOf(b) || a.localeCompare(b));
}

export function seqOf(name: string): number {
  return Number(NAME.exec(name)?.[2] ?? 0);
}
