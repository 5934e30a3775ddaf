/**
 * Prints the preset coverage table of docs/catalog.md: per platform preset, its fixtures
 * (saved real answers in test/fixtures/platforms/<platform>/), the governments (and sources)
 * of the bundled catalog that use it, and the records the preset's own `extract` finds in
 * each fixture, read with the address it was saved from (its PROVENANCE.md entry).
 *
 *   npm run catalog:coverage
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { catalogStats } from "../src/sources/catalog/stats.js";
import { getPlatform, platformNames } from "../src/sources/platforms/index.js";

/** Fixture folders named otherwise than their preset. */
const FOLDER: Record<string, string> = { icompass: "icompass-diligent" };

export interface CoverageRow {
  platform: string;
  fixtures: { file: string; records: number; note?: string }[];
  governments: number;
  sources: number;
}

/** The page each fixture was saved from, as its provenance entry gives it. */
function savedFrom(provenance: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of provenance.split(/^#### /m).slice(1)) {
    const file = /^`([^`]+)`/.exec(entry)?.[1];
    const page = /^- \*\*Government \/ page:\*\*.*?(https?:\/\/[^\s`)<>]+)/m.exec(entry)?.[1];
    if (file && page) out.set(file, page);
  }
  return out;
}

export function presetCoverage(root: string): CoverageRow[] {
  const fixtures = join(root, "test/fixtures/platforms");
  const pages = savedFrom(readFileSync(join(fixtures, "PROVENANCE.md"), "utf8"));
  const catalogDir = join(root, "catalog");
  const files = readdirSync(catalogDir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .map((f) => ({ file: join(catalogDir, f) }));
  const byPlatform = new Map(catalogStats(files).byPlatform.map((p) => [p.platform, p]));
  return platformNames.map((name) => {
    const preset = getPlatform(name)!;
    const folder = FOLDER[name] ?? name;
    const dir = join(fixtures, folder);
    const names = existsSync(dir)
      ? readdirSync(dir)
          .filter((f) => f !== "PROVENANCE.md")
          .sort()
      : [];
    const rows = names.map((file) => {
      const url = pages.get(`${folder}/${file}`) ?? "https://records.example.gov/";
      const x = preset.extract(new Uint8Array(readFileSync(join(dir, file))), url);
      return { file, records: x.records.length, ...(x.note ? { note: x.note } : {}) };
    });
    const use = byPlatform.get(name);
    return {
      platform: name,
      fixtures: rows,
      governments: use?.governments ?? 0,
      sources: use?.sources ?? 0,
    };
  });
}

export function coverageTable(rows: CoverageRow[]): string {
  const lines = [
    "| platform | fixtures | governments (sources) in the bundled catalog | records per fixture |",
    "| --- | --- | --- | --- |",
  ];
  for (const r of rows) {
    const per = r.fixtures
      .map((f) => `\`${f.file}\`: ${f.records}${f.records === 0 && f.note ? ` (${f.note})` : ""}`)
      .join("<br>");
    lines.push(
      `| ${r.platform} | ${r.fixtures.length} | ${r.governments} (${r.sources}) | ${per || "none"} |`,
    );
  }
  return `${lines.join("\n")}\n`;
}

if (process.argv[1]?.endsWith("preset-coverage.js")) {
  const root = fileURLToPath(new URL("../../", import.meta.url));
  process.stdout.write(coverageTable(presetCoverage(root)));
}
