/**
 * `nor catalog stats` as plain text for a terminal: the totals, then tables by kind, county
 * and platform, then what is missing. `--json` prints the CatalogStats object instead.
 */
import type { CatalogStats } from "../sources/catalog/stats.js";
import { countOf } from "./count-of.js";

function table(head: string[], rows: (string | number)[][]): string[] {
  const cells = [head, ...rows.map((r) => r.map(String))];
  const width = head.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? "").length)));
  // The first column is a name (left), the others counts (right).
  return cells.map((r) =>
    `  ${r.map((c, i) => (i === 0 ? c.padEnd(width[i]!) : c.padStart(width[i]!))).join("  ")}`.trimEnd(),
  );
}

export function formatStats(s: CatalogStats): string {
  const out: string[] = [
    `${s.files.join(", ")}: ${countOf(s.governments, "government")}, ${countOf(s.sources, "source")} (${s.confirmed} confirmed), ${countOf(s.leads, "lead")}`,
    "",
    "by kind",
    ...table(
      ["kind", "governments", "sources"],
      s.byKind.map((k) => [k.kind, k.governments, k.sources]),
    ),
    "",
    "by county",
    ...table(
      ["county", "governments", "sources", "leads"],
      s.byCounty.map((c) => [c.county ?? "(no county)", c.governments, c.sources, c.leads]),
    ),
    "",
    "by platform",
    ...table(
      ["platform", "sources", "governments"],
      s.byPlatform.map((p) => [p.platform, p.sources, p.governments]),
    ),
    "",
    "missing",
  ];
  const counties = s.missing.countiesWithoutSources;
  out.push(
    `  counties without any source (${counties.length})${counties.length ? `: ${counties.join(", ")}` : ""}`,
  );
  const noSite = s.missing.governmentsWithoutWebsite;
  out.push(`  governments without a website (${noSite.length})${noSite.length ? ":" : ""}`);
  for (const g of noSite)
    out.push(`    ${g.id} (${g.kind}${g.county === null ? "" : `, ${g.county} County`})`);
  out.push(`  record pages not read yet, as leads (${s.leads})${s.leads ? ":" : ""}`);
  for (const r of s.leadsByReason) out.push(`    ${String(r.leads).padStart(4)}  ${r.why}`);
  return `${out.join("\n")}\n`;
}
