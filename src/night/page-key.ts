/**
 * The key of one full read of a page (P8, P12): what its records are a function of, hashed. The
 * way in (its access, platform, recipe, field map, zone: the catalog's whole entry), the URL
 * that answered (links are made absolute against it), the Content-Type (the charset the body is
 * read in), the body (by its digest, as the archive's index keeps it: `sha256:` + base32), and
 * the readers' code. Two reads with one key show the same records, so a 304 whose stored copy
 * has the key of the page's last full read is counted from that read (`page_reads`) instead of
 * extracted again; the copy's key is had from the archive's index alone, without reading it.
 */
import { createHash, randomUUID } from "node:crypto";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { codeFilesUnder, hashCodeFiles } from "../code-files.js";
import type { WayIn } from "../sources/catalog/types.js";
import { sha256Digest } from "../store/archive/digest.js";

/**
 * Raise it with a change to the readers that the files hashed below do not show (a dependency
 * that reads pages, such as the HTML parser, upgraded): every page is then extracted in full
 * again on its next 304. A change to a preset, an extractor or a record id needs no raise.
 */
export const READERS_VERSION = 1;

const HERE = dirname(fileURLToPath(import.meta.url));
/** `.ts` when run from the sources (tests), `.js` from dist/. */
const EXT = import.meta.url.endsWith(".ts") ? ".ts" : ".js";

/**
 * The rules of src/policy that src/sources calls (a body's charset, a title's shown text, a
 * time's zone; the catalog's site and limits): a change to them may read the same page
 * differently. A test holds this list to what those files import.
 */
export const READER_POLICY = [
  "body-text",
  "constants",
  "credentials",
  "html-entities",
  "kept-answers",
  "shown-text",
  "site",
  "zone",
] as const;

/**
 * The code a page's records depend on: every preset, generic extractor, date reader and record
 * id (src/sources), the rules of src/policy they call (READER_POLICY), and the night's way
 * reader and form pager (presets live in code, not in the catalog entry the key holds).
 */
export function readerFiles(): string[] {
  return [
    ...codeFilesUnder(join(HERE, "..", "sources")),
    ...READER_POLICY.map((f) => join(HERE, "..", "policy", f + EXT)),
    ...["way-reader-of", "way-reader", "lazy-reader", "form-way"].map((f) => join(HERE, f + EXT)),
  ];
}

/** The files and directories' code, hashed: it changes when any of them does. */
export function readersFingerprint(paths: readonly string[]): string {
  const files: string[] = [];
  for (const p of paths) {
    try {
      files.push(...codeFilesUnder(p));
    } catch {
      files.push(p); // a file, not a directory
    }
  }
  const h = createHash("sha256");
  hashCodeFiles(h, files, paths.length === 1 ? (paths[0] as string) : HERE);
  return h.digest("base64url");
}

let readers: string | undefined;

/**
 * The readers' version: READERS_VERSION and the hash of their code, read once per process.
 * Code that cannot be read gives a value of this process alone: every 304 is then extracted
 * again (as before any key), never counted from a read by other code.
 */
export function readersVersion(): string {
  if (readers === undefined) {
    try {
      readers = `${READERS_VERSION}:${readersFingerprint(readerFiles())}`;
    } catch {
      // Not an id of anything (no record or row carries it): a nonce so no key matches another's.
      readers = `${READERS_VERSION}:unknown:${randomUUID()}`;
    }
  }
  return readers;
}

/** The key of a read of `payloadDigest`'s body (the archive's digest of it: sha256Digest). */
export function pageKey(
  way: WayIn,
  url: string,
  contentType: string | undefined,
  payloadDigest: string,
  version: string = readersVersion(),
): string {
  return createHash("sha256")
    .update(JSON.stringify([version, way, url, contentType ?? null, payloadDigest]))
    .digest("base64url");
}

/**
 * The reader a list was read with (docs/catalog.md "New on record, and already listed"): the
 * way in as the catalog writes it (its recipe, field map, platform) and the readers' code, the
 * page's body and address aside. A night that read a list and found no records on it counts as
 * having read it only for a later night that reads it with the same reader: a recipe (or a
 * preset) that read nothing and is then mended reads its list as for the first time. And a night
 * whose reader is not the last read's may know the same records by other ids (a recipe that
 * reads the platform's own id instead of the link): store/night-records.ts matches them as it
 * does across ways in.
 */
export function readerKey(way: WayIn, version: string = readersVersion()): string {
  // The source's own way in carries the catalog entry's words about it (its name, notes,
  // evidence, whether a person confirmed it, its backfill's pace): none reads the list, so an
  // entry confirmed, named or noted is the same reader (its empty reads still count).
  const read = Object.fromEntries(Object.entries(way).filter(([k]) => !NOT_READING.has(k)));
  return createHash("sha256")
    .update(JSON.stringify(["reader", version, read]))
    .digest("base64url");
}

/** A catalog entry's fields that say something of the source and read nothing of its list. */
const NOT_READING: ReadonlySet<string> = new Set([
  "name",
  "notes",
  "evidence",
  "confirmed",
  "backfill",
  "alternates",
]);

/** The key of a read of `body`. */
export function pageKeyOf(
  way: WayIn,
  url: string,
  contentType: string | undefined,
  body: Uint8Array,
  version?: string,
): string {
  return pageKey(way, url, contentType, sha256Digest(body), version);
}
