import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, sep } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  pageKeyOf,
  READER_POLICY,
  readerFiles,
  readersFingerprint,
} from "../../src/night/page-key.js";
import type { WayIn } from "../../src/sources/catalog/types.js";

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

const way = { url: "http://a.example/list", access: "page", platform: "legistar-html" } as WayIn;
const body = new TextEncoder().encode("<table></table>");

/**
 * P8, P12: a 304 is counted from the page's last full read only while the readers would read
 * the copy the same way. Presets and generic extractors live in code, not in the catalog entry:
 * a change to them must change the key by itself, not only when someone remembers to raise
 * READERS_VERSION.
 */
describe("the page key follows the readers' code (P8, P12)", () => {
  it("P8: a preset's code changing changes the key, with no version raised by hand", () => {
    dir = mkdtempSync(join(tmpdir(), "nor-readers-"));
    mkdirSync(join(dir, "platforms"));
    const preset = join(dir, "platforms", "legistar-html.js");
    writeFileSync(preset, "export const rows = 'tr';\n");
    writeFileSync(join(dir, "record-id.js"), "export const id = 1;\n");
    const before = readersFingerprint([dir]);
    expect(readersFingerprint([dir])).toBe(before);
    writeFileSync(preset, "export const rows = 'tr, li';\n");
    const after = readersFingerprint([dir]);
    expect(after).not.toBe(before);
    expect(pageKeyOf(way, way.url, "text/html", body, after)).not.toBe(
      pageKeyOf(way, way.url, "text/html", body, before),
    );
  });

  it("P8: the night's key covers every preset and extractor and the way reader", () => {
    const files = readerFiles().map((f) => f.split(sep).join("/"));
    expect(files.some((f) => /\/sources\/platforms\/legistar-html\.(ts|js)$/.test(f))).toBe(true);
    expect(files.some((f) => /\/sources\/extract\/page\.(ts|js)$/.test(f))).toBe(true);
    expect(files.some((f) => /\/sources\/record-id\.(ts|js)$/.test(f))).toBe(true);
    expect(files.some((f) => /\/night\/way-reader-of\.(ts|js)$/.test(f))).toBe(true);
    expect(files.some((f) => /\/night\/form-way\.(ts|js)$/.test(f))).toBe(true);
  });

  it("P8: the night's key covers every rule of src/policy the readers import (a charset, a title's text, a zone, …)", () => {
    // The value imports of src/policy made by the readers' files, read from their source.
    const imported = new Set<string>();
    for (const file of readerFiles()) {
      if (!/\.tsx?$/.test(file)) continue;
      const text = readFileSync(file, "utf8");
      for (const m of text.matchAll(
        /import\s+(type\s+)?[^;]*?from\s+"((?:\.\.\/)+policy\/[^"]+)\.js"/g,
      ))
        if (m[1] === undefined) imported.add((m[2] as string).replace(/^(\.\.\/)+policy\//, ""));
    }
    expect(imported.size).toBeGreaterThan(0);
    expect([...imported].sort()).toEqual([...READER_POLICY].sort());
  });
});
