/**
 * The whole fixture corpus against the whole preset list:
 * - every fixture file is claimed by exactly one preset test (a new fixture without a test
 *   fails here), and has its provenance entry;
 * - no preset throws on any fixture of any platform (robustness: a wrong `platform:` in the
 *   catalog gives zero or more well-formed records, never a crash), and what comes out is
 *   well-formed (ids, clean titles, ISO dates, absolute links).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { getPlatform, platformNames } from "../../../src/sources/platforms/index.js";
import type { PlatformRequest } from "../../../src/sources/platforms/types.js";
import { FIXTURES, fixture, ISO } from "./helpers.js";

const TESTS = fileURLToPath(new URL("./", import.meta.url));

function fixtureFiles(): string[] {
  const out: string[] = [];
  for (const dir of readdirSync(FIXTURES)) {
    if (!statSync(`${FIXTURES}${dir}`).isDirectory()) continue;
    for (const f of readdirSync(`${FIXTURES}${dir}`))
      if (f !== "PROVENANCE.md") out.push(`${dir}/${f}`);
  }
  return out.sort();
}

const files = fixtureFiles();
const tests = readdirSync(TESTS)
  .filter((f) => f.endsWith(".test.ts") && f !== "corpus.test.ts")
  .map((f) => ({ name: f, text: readFileSync(`${TESTS}${f}`, "utf8") }));

describe("fixture corpus", () => {
  it("holds the shared platform fixtures (at least 48 files)", () => {
    expect(files.length).toBeGreaterThanOrEqual(48);
  });

  it.each(files)("%s is claimed by exactly one preset test", (file) => {
    const claimers = tests.filter((t) => t.text.includes(`"${file}"`)).map((t) => t.name);
    expect(claimers).toHaveLength(1);
  });

  it("every fixture has its provenance entry in test/fixtures/platforms/PROVENANCE.md", () => {
    const prov = readFileSync(`${FIXTURES}PROVENANCE.md`, "utf8");
    expect(files.filter((f) => !prov.includes(`#### \`${f}\``))).toEqual([]);
  });

  it("every preset is registered once under its own name", () => {
    expect(new Set(platformNames).size).toBe(platformNames.length);
    for (const n of platformNames) expect(getPlatform(n)?.name).toBe(n);
    expect(getPlatform("no-such-platform")).toBeUndefined();
  });

  // One test per fixture: every preset parses every file, a few seconds of CPU in all, so no
  // single test holds the whole corpus against one time-out on a loaded machine.
  it.each(files)("P6: no preset throws on %s; records are well-formed; links absolute", (file) => {
    const url = "https://records.example.gov/list?page=1";
    const prev: PlatformRequest = { method: "GET", url };
    const bad: string[] = [];
    const body = fixture(file);
    for (const name of platformNames) {
      const p = getPlatform(name)!;
      try {
        const x = p.extract(body, url);
        for (const r of x.records) {
          const ok =
            typeof r.id === "string" &&
            r.id !== "" &&
            typeof r.title === "string" &&
            r.title === r.title.trim() &&
            (r.date === undefined || ISO.test(r.date)) &&
            (r.url === undefined || /^https?:\/\//.test(r.url));
          if (!ok) bad.push(`${name} on ${file}: ${JSON.stringify(r)}`);
        }
        p.nextRequest?.(prev, body, x);
      } catch (e) {
        bad.push(`${name} threw on ${file}: ${(e as Error).message}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it("no preset throws on empty, binary or truncated bodies", () => {
    const bodies = [
      new Uint8Array(0),
      new Uint8Array([0xff, 0xfe, 0x00, 0x01]),
      fixture("boarddocs/OH_akron_public_schools_XML-ActiveMeetings.xml").slice(0, 5000),
    ];
    for (const name of platformNames) {
      for (const b of bodies)
        expect(() => getPlatform(name)!.extract(b, "https://x.example.gov/")).not.toThrow();
    }
  });
});
