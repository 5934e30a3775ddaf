/**
 * The stamp of catalog files: what an import of them writes into the store is a function of,
 * hashed. Their names as given (each source keeps the file it came from), their bytes, in
 * order, and the importer itself: STAMP_VERSION, the code under src/sources (the loader, the
 * schema and its defaults, the preset names that fill in a way's access, the diff) and the
 * store's side of the import, and the versions of the YAML parser, of zod and of tldts (and,
 * in a build, the YAML parser and zod as bundled: the code that runs).
 *
 * Every import of files records their stamp in the store, in the transaction that writes their
 * rows (src/store/catalog-import.ts); an import of a catalog held in memory, or of files
 * written to while they were read, records none. A night whose files have the stamp the store
 * holds runs the sources the store holds (exactly the catalog's, each with its whole entry)
 * without reading, validating and importing the files again, and without loading the YAML
 * parser or zod (docs/benchmarks.md "A night's memory"). Any difference (a byte of a
 * file, a file added, renamed or reordered, another catalog imported since, a store from before
 * the stamp, the importer's code) means a full import, as before.
 *
 * This module loads neither yaml nor zod.
 */
import { createHash, type Hash, randomUUID } from "node:crypto";
import { closeSync, existsSync, readFileSync, readSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { codeFilesUnder, hashCodeFiles } from "../../code-files.js";
import { MAX_CATALOG_BYTES, openCatalogFile } from "./read.js";

/**
 * Raise it with a change to what an import writes that the code hashed below does not show
 * (a library the loader uses, other than yaml and zod, upgraded): the next night then reads
 * and imports its files again. A change to the code under src/sources needs no raise.
 */
export const STAMP_VERSION = 1;

const HERE = dirname(fileURLToPath(import.meta.url));
/** `.ts` when run from the sources (tests), `.js` from dist/. */
const EXT = import.meta.url.endsWith(".ts") ? ".ts" : ".js";

/**
 * The importer's code outside src/sources (relative to src/): every module the catalog's
 * loading and import reach, for what they write depends on it (policy/constants.ts holds
 * the default `backfill.pagesPerNight`, policy/zone.ts and zone-names.ts which timezones pass,
 * policy/site.ts and mapped-ipv4.ts which hosts pass and their sites, policy/credentials.ts
 * which query parameters are credentials).
 * test/sources/catalog-stamp.test.ts follows the imports and holds this list to them.
 */
const IMPORTER_BESIDE = [
  "store/catalog-import",
  "store/marks",
  "store/iso-time",
  "store/schema/sources",
  "store/write-txn",
  "store/sqlite-direct",
  "store/pg-named",
  "store/no-nul",
  "store/dialect-of",
  "store/kysely",
  "vendored",
  "yaml",
  "zod",
  "policy/constants",
  "policy/zone",
  "policy/zone-names",
  "policy/site",
  "policy/kept-answers",
  "policy/mapped-ipv4",
  "policy/body-text",
  "policy/credentials",
  "cjs",
  "errors",
  "code-files",
];

/**
 * The packages the importer runs as `npm run build` bundled them into dist/vendor
 * (scripts/bundle-vendor.mjs), loaded by src/yaml.ts and src/zod.ts when they are there.
 */
const VENDOR_BUNDLES = ["yaml.js", "zod.js"];

/** The importer's code the stamp hashes: every file under src/sources, and those beside. */
export function importerFiles(): string[] {
  const sources = join(HERE, "..");
  return [
    ...codeFilesUnder(sources),
    ...IMPORTER_BESIDE.map((f) => join(sources, "..", `${f}${EXT}`)),
  ].sort();
}

let importer: string | undefined;

/**
 * The importer's version: STAMP_VERSION, the hash of its code and its libraries' versions,
 * read once per process. Code that cannot be read gives a value of this process alone, so no
 * import is ever skipped on its word.
 */
export function importerVersion(): string {
  if (importer === undefined) {
    try {
      const h = createHash("sha256");
      hashCodeFiles(h, importerFiles(), join(HERE, ".."));
      const require = createRequire(import.meta.url);
      // tldts: its Public Suffix List says which hosts pass (policy/site.ts).
      for (const lib of ["yaml", "zod", "tldts"]) {
        const { version } = JSON.parse(
          readFileSync(require.resolve(`${lib}/package.json`), "utf8"),
        ) as { version: string };
        h.update(`${lib}@${version}\0`);
      }
      // A build runs yaml and zod as `npm run build` bundled them (src/yaml.ts, src/zod.ts),
      // which may be of another version than node_modules' (an `npm update` not yet built):
      // the bundles' bytes, where there are bundles.
      for (const file of VENDOR_BUNDLES) {
        const bundle = join(HERE, "..", "..", "vendor", file);
        if (existsSync(bundle)) h.update(`${file}\0`).update(readFileSync(bundle)).update("\0");
      }
      importer = `${STAMP_VERSION}:${h.digest("base64url")}`;
    } catch {
      importer = `${STAMP_VERSION}:unknown:${randomUUID()}`;
    }
  }
  return importer;
}

/** What says a file was not written to: its identity, size, and modification and change times. */
function identity(file: string): string {
  const s = statSync(file, { bigint: true });
  return `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
}

const BLOCK = 1024 * 1024;

/**
 * Hashes a file's bytes, with its size. Throws for what the loader refuses to read (read.ts):
 * a directory, a device or FIFO (`/dev/zero` would be hashed forever), a file too large.
 */
function hashFile(h: Hash, file: string): void {
  const fd = openCatalogFile(file);
  try {
    const buf = Buffer.allocUnsafe(BLOCK);
    let size = 0;
    for (;;) {
      const n = readSync(fd, buf, 0, BLOCK, null);
      if (n === 0) break;
      h.update(buf.subarray(0, n));
      size += n;
      if (size > MAX_CATALOG_BYTES) throw new Error(`${file} grew past the largest catalog file`);
    }
    h.update(`\0${size}\0`);
  } finally {
    closeSync(fd);
  }
}

/** The stamp of catalog files, and whether they are still as they were when it was taken. */
export interface CatalogStamp {
  digest: string;
  /**
   * True while no file was written to since the stamp was taken (the same file, size,
   * modification and change times, and the same bytes): asked after an import, so that only
   * the bytes the import read are vouched for.
   */
  unchanged(): boolean;
}

/**
 * The stamp of these files, in this order, under these names; undefined when one cannot be
 * read (the import that follows says why).
 */
export function stampCatalogFiles(files: readonly string[]): CatalogStamp | undefined {
  try {
    // Their identities first: a write while they are hashed shows as a change afterwards.
    const before = files.map(identity);
    const digest = digestOf(files);
    return {
      digest,
      unchanged: () => {
        try {
          // The times first, then the bytes again (a file system's times are coarse, a few ms).
          return files.every((f, i) => identity(f) === before[i]) && digestOf(files) === digest;
        } catch {
          return false;
        }
      },
    };
  } catch {
    return undefined;
  }
}

function digestOf(files: readonly string[]): string {
  const h = createHash("sha256");
  h.update(`nor catalog\0${importerVersion()}\0${files.length}\0`);
  for (const file of files) {
    h.update(file).update("\0");
    hashFile(h, file);
  }
  return h.digest("base64url");
}
