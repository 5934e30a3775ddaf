/**
 * Writes a synthetic catalog of N sources for measuring the catalog import (docs/benchmarks.md):
 * the shape of the bundled catalog (presets, page recipes, feeds, evidence and notes of the
 * same length), ids and hosts made up, nothing real. Deterministic: the same N gives the same
 * file.
 *
 *   npm run scripts:build && node dist-scripts/scripts/generate-catalog.js 20000 /tmp/cat-20k.yaml
 */
import { writeFileSync } from "node:fs";
import { stringify } from "yaml";
import { OHIO_COUNTIES } from "../src/sources/catalog/counties.js";

const KINDS = ["county", "city", "village", "township", "school-district", "special-district"];
const RECORDS = ["agendas", "minutes", "meetings", "bids", "permits", "notices"];
const NOTE =
  "CivicPlus Agenda Center (vendor host); years 2012-2020 in list compiled 2020; bodies: ['City Council', 'Planning Commission', 'Zoning Appeals']";
const EVIDENCE =
  "example-owner/example-repo/data/sites.csv@0123456789abcdef0123456789abcdef01234567";

export function syntheticCatalog(sources: number): string {
  const govCount = Math.max(1, Math.ceil(sources / 10));
  const governments = Array.from({ length: govCount }, (_, i) => ({
    id: `gov-${i}`,
    name: `Government ${i}`,
    kind: KINDS[i % KINDS.length],
    county: OHIO_COUNTIES[i % OHIO_COUNTIES.length],
    website: `https://gov-${i}.example.gov/`,
    evidence: EVIDENCE,
    notes: `registered .gov domain(s): gov-${i}.example.gov; ${NOTE}`,
  }));
  const list = Array.from({ length: sources }, (_, i) => {
    const gov = `gov-${i % govCount}`;
    const base = {
      id: `src-${i}`,
      government: gov,
      records: RECORDS[i % RECORDS.length],
      url: `https://${gov}.example.gov/records/${i}`,
    };
    const way =
      i % 4 === 0
        ? { url: `https://go.boarddocs.com/oh/${gov}/Board.nsf/Public`, platform: "boarddocs" }
        : i % 4 === 1
          ? { platform: "civicplus-agendacenter" }
          : i % 4 === 2
            ? { access: "page", extract: { items: "table tbody tr", title: "td a", date: "td" } }
            : { access: "feed" };
    return { ...base, ...way, confirmed: false, evidence: EVIDENCE, notes: NOTE };
  });
  return `${stringify({ governments }, { lineWidth: 0 })}${stringify({ sources: list }, { lineWidth: 0 })}`;
}

const [n = "20000", out = "catalog-synthetic.yaml"] = process.argv.slice(2);
if (process.argv[1]?.endsWith("generate-catalog.js")) {
  writeFileSync(out, syntheticCatalog(Number(n)));
  process.stdout.write(`wrote ${out}: ${n} sources\n`);
}
