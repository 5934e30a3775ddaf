import { spawnSync } from "node:child_process";
import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import {
  importerFiles,
  importerVersion,
  stampCatalogFiles,
} from "../../src/sources/catalog/stamp.js";
import { ROOT } from "../cli/run-nor.js";

/**
 * The stamp of catalog files: a night skips files whose stamp the store holds, so
 * the stamp must change with anything an import of them depends on.
 */
describe("the stamp of catalog files", () => {
  const dir = mkdtempSync(join(tmpdir(), "nor-stamp-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, text: string) => {
    const f = join(dir, name);
    writeFileSync(f, text);
    return f;
  };

  it("changes with a byte, a name, the files' order or number; not with the time alone", () => {
    const a = write("a.yaml", "governments: []\n");
    const b = write("b.yaml", "sources: []\n");
    const digest = (files: string[]) => stampCatalogFiles(files)?.digest;
    const ab = digest([a, b]);
    expect(ab).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(digest([a, b])).toBe(ab);
    expect(digest([b, a])).not.toBe(ab);
    expect(digest([a])).not.toBe(ab);
    expect(digest([a, b, b])).not.toBe(ab);
    const copy = write("copy.yaml", "governments: []\n");
    expect(digest([copy, b])).not.toBe(ab);
    // Where one file ends and the next begins is part of it.
    const a2 = write("a2.yaml", "governments: []\nsources: []\n");
    const empty = write("empty.yaml", "");
    expect(digest([a2, empty])).not.toBe(digest([a, b]));
    write("a.yaml", "governments: {}\n");
    expect(digest([a, b])).not.toBe(ab);
    write("a.yaml", "governments: []\n");
    expect(digest([a, b])).toBe(ab);
  });

  it("says a file written to since, even with the same bytes; none for a file that is not there", () => {
    const a = write("c.yaml", "governments: []\n");
    const stamp = stampCatalogFiles([a]);
    expect(stamp?.unchanged()).toBe(true);
    write("c.yaml", "governments: {}\n");
    expect(stamp?.unchanged()).toBe(false);
    // The same bytes written again: its modification time (set in the past here, so that the
    // write shows whatever the file system's clock granularity) says so.
    write("c.yaml", "governments: []\n");
    utimesSync(a, 1_000_000, 1_000_000);
    const again = stampCatalogFiles([a]);
    expect(again?.unchanged()).toBe(true);
    write("c.yaml", "governments: []\n");
    expect(again?.unchanged()).toBe(false);
    expect(stampCatalogFiles([join(dir, "missing.yaml")])).toBeUndefined();
    expect(stampCatalogFiles([dir])).toBeUndefined();
  });

  it("holds the importer's version: its code under src/sources hashed, and yaml's and zod's", () => {
    expect(importerVersion()).toMatch(/^\d+:[A-Za-z0-9_-]{43}$/);
    expect(importerVersion()).toBe(importerVersion());
  });

  it("a built importer's version holds the yaml and zod it runs: the bundles in dist/vendor, rebuilt from another version or otherwise, re-import", async () => {
    // `npm run build` bundles yaml and zod into dist/vendor (src/yaml.ts, src/zod.ts): the
    // built loader parses and validates with those files, not with node_modules' packages, so
    // a bundle made from another yaml (an `npm update` built later, or not yet) is another
    // importer. Copies of dist/, one per bundle changed; dist/ is built by test/global-build.ts.
    const version = async (change?: string) => {
      const copy = mkdtempSync(join(dir, "built-"));
      const cp = spawnSync("cp", ["-a", join(ROOT, "dist"), copy]);
      expect(cp.status, cp.stderr?.toString()).toBe(0);
      symlinkSync(join(ROOT, "node_modules"), join(copy, "node_modules"));
      if (change) appendFileSync(join(copy, "dist", "vendor", change), "\n// bundled again\n");
      const stamp = join(copy, "dist", "sources", "catalog", "stamp.js");
      const built = (await import(pathToFileURL(stamp).href)) as { importerVersion(): string };
      return built.importerVersion();
    };
    const asBuilt = await version();
    expect(asBuilt).toMatch(/^\d+:[A-Za-z0-9_-]{43}$/);
    // Another copy of the same build: the same importer (paths are not hashed).
    expect(await version()).toBe(asBuilt);
    expect(await version("yaml.js")).not.toBe(asBuilt);
    expect(await version("zod.js")).not.toBe(asBuilt);
  });
});

/**
 * P7 (the backfill default) and every default or rule the catalog's validation applies: what
 * an import writes is the code it runs, and a night of files stamped unchanged runs the
 * entries an earlier import wrote. So the importer's hash must cover every module the catalog's
 * loading and import reach (their value imports, followed), not only those under src/sources:
 * `backfill.pagesPerNight` defaults to policy/constants.ts's DEFAULT_BACKFILL_PAGES, and a
 * government's timezone is checked by policy/zone.ts.
 */
describe("the importer's hashed code", () => {
  it("P7: covers every module the catalog's loading and import reach (policy/constants' backfill default included)", () => {
    const src = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "src");
    const roots = [
      "sources/catalog/load.ts",
      "sources/catalog/schema.ts",
      "sources/catalog-import.ts",
      "store/catalog-import.ts",
    ].map((p) => join(src, p));
    const reached = new Set<string>();
    const queue = [...roots];
    for (let guard = 0; queue.length > 0 && guard < 10_000; guard++) {
      const file = queue.pop() as string;
      if (reached.has(file)) continue;
      reached.add(file);
      const text = readFileSync(file, "utf8");
      for (const m of text.matchAll(/^(?:import|export)\s+(?!type\s)[^;]*?from\s+"(\.[^"]+)"/gms)) {
        let target = resolve(dirname(file), (m[1] as string).replace(/\.js$/, ".ts"));
        if (!existsSync(target)) target = target.replace(/\.ts$/, ".tsx");
        queue.push(target);
      }
    }
    const hashed = new Set(importerFiles().map((f) => resolve(f)));
    const missing = [...reached].filter((f) => !hashed.has(f)).map((f) => relative(src, f));
    expect(missing).toEqual([]);
  });
});
