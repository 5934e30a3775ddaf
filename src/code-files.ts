/**
 * The project's own code as data: the files under a directory, and their hash. What a stored
 * result depends on in code (the readers behind a page's key, src/night/page-key.ts; the
 * importer behind a catalog's stamp, src/sources/catalog/stamp.ts) changes the hash when any
 * of its files does.
 */
import type { Hash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

/** The code files under `dir`, at any depth (sources or built: .ts, .js, .json; no .d.ts). */
export function codeFilesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...codeFilesUnder(p));
    else if (/\.(js|ts|mjs|cjs|json)$/.test(e.name) && !e.name.endsWith(".d.ts")) out.push(p);
  }
  return out;
}

/** Adds the files to `h`, each once, in name order: its path from `base`, then its bytes. */
export function hashCodeFiles(h: Hash, files: readonly string[], base: string): void {
  for (const f of [...new Set(files)].sort()) {
    h.update(relative(base, f)).update("\0").update(readFileSync(f)).update("\0");
  }
}
