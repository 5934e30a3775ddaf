import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { coverageTable, presetCoverage } from "../../scripts/preset-coverage.js";
import { platformNames } from "../../src/sources/platforms/index.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

describe("the preset coverage table in docs/catalog.md", () => {
  const rows = presetCoverage(ROOT);

  it("is what scripts/preset-coverage.ts prints (regenerate: npm run catalog:coverage)", () => {
    const doc = readFileSync(`${ROOT}docs/catalog.md`, "utf8");
    const table = /<!-- preset-coverage:start -->\n([\s\S]*?)<!-- preset-coverage:end -->/.exec(
      doc,
    );
    expect(table?.[1]).toBe(coverageTable(rows));
  });

  it("has a row for every preset, and every preset has a fixture it reads records from", () => {
    expect(rows.map((r) => r.platform)).toEqual(platformNames);
    for (const r of rows) {
      expect(r.fixtures.length).toBeGreaterThan(0);
      // civicplus-bids's only fixture is a page with no open bids (it says so).
      if (r.platform !== "civicplus-bids")
        expect(Math.max(...r.fixtures.map((f) => f.records))).toBeGreaterThan(0);
    }
  });
});
