import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { OHIO_COUNTIES } from "../../src/sources/catalog/counties.js";
import type { CatalogStats } from "../../src/sources/catalog/stats.js";
import { nor } from "./cli-capture.js";

const FIXTURE = ["test/fixtures/catalog/stats/a.yaml", "test/fixtures/catalog/stats/b.yaml"];

/** The fixture's sources are in Portage and Summit: every other Ohio county lacks one. */
const WITHOUT = OHIO_COUNTIES.filter((c) => c !== "Portage" && c !== "Summit");

describe("nor catalog stats, on a small catalog with known counts", () => {
  it("prints counts by kind, county and platform, and what is missing, as plain text", async () => {
    const r = await nor("catalog", "stats", ...FIXTURE);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${FIXTURE.join(", ")}: 7 governments, 6 sources (1 confirmed), 3 leads

by kind
  kind              governments  sources
  county                      3        1
  city                        2        3
  village                     0        0
  township                    0        0
  school-district             1        1
  special-district            0        0
  state-agency                1        1
  other                       0        0

by county
  county       governments  sources  leads
  Lake                   1        0      1
  Portage                3        2      2
  Summit                 2        3      0
  (no county)            1        1      0

by platform
  platform                sources  governments
  (feed)                        2            2
  boarddocs                     2            2
  (page recipe)                 1            1
  civicplus-agendacenter        1            1

missing
  counties without any source (86): ${WITHOUT.join(", ")}
  governments without a website (2):
    portage-county (county, Portage County)
    lake-county (county, Lake County)
  record pages not read yet, as leads (3):
       2  needs a page recipe
       1  one meeting's page, not a list (P6)
`);
  });

  it("--json gives the same counts for machines", async () => {
    const r = await nor("catalog", "stats", "--json", ...FIXTURE);
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout) as CatalogStats;
    expect(s).toMatchObject({ governments: 7, sources: 6, confirmed: 1, leads: 3 });
    expect(s.byKind.filter((k) => k.governments > 0)).toEqual([
      { kind: "county", governments: 3, sources: 1 },
      { kind: "city", governments: 2, sources: 3 },
      { kind: "school-district", governments: 1, sources: 1 },
      { kind: "state-agency", governments: 1, sources: 1 },
    ]);
    expect(s.byCounty).toEqual([
      { county: "Lake", governments: 1, sources: 0, leads: 1 },
      { county: "Portage", governments: 3, sources: 2, leads: 2 },
      { county: "Summit", governments: 2, sources: 3, leads: 0 },
      { county: null, governments: 1, sources: 1, leads: 0 },
    ]);
    expect(s.byPlatform).toEqual([
      { platform: "(feed)", sources: 2, governments: 2 },
      { platform: "boarddocs", sources: 2, governments: 2 },
      { platform: "(page recipe)", sources: 1, governments: 1 },
      { platform: "civicplus-agendacenter", sources: 1, governments: 1 },
    ]);
    expect(s.missing).toEqual({
      countiesWithoutSources: WITHOUT,
      governmentsWithoutWebsite: [
        { id: "portage-county", name: "Portage County", kind: "county", county: "Portage" },
        { id: "lake-county", name: "Lake County", kind: "county", county: "Lake" },
      ],
    });
  });

  it("counts every one of Ohio's 88 counties without a source, not only those the catalog names", async () => {
    const r = await nor("catalog", "stats", "--json", ...FIXTURE);
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout) as CatalogStats;
    // Lake is named (a government with a lead, no source); Adams and Wyandot are named by none.
    expect(s.missing.countiesWithoutSources).toHaveLength(86);
    expect(s.missing.countiesWithoutSources).toEqual(
      expect.arrayContaining(["Adams", "Lake", "Wyandot"]),
    );
    expect(s.missing.countiesWithoutSources).not.toContain("Portage");
    expect(s.missing.countiesWithoutSources).not.toContain("Summit");
    const text = await nor("catalog", "stats", ...FIXTURE);
    expect(text.stdout).toContain("  counties without any source (86): Adams, Allen, ");
  });

  it("a catalog with problems prints them and exits 2, as check does", async () => {
    const r = await nor("catalog", "stats", FIXTURE[1]!);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('sources[0].government: unknown government "city-of-kent"');
  });
});

interface RawGov {
  id: string;
  kind: string;
  county?: string;
  website?: string;
}
interface RawSource {
  government: string;
  platform?: string;
  extract?: unknown;
  access?: string;
  confirmed?: boolean;
}

describe("nor catalog stats, on the bundled catalog", () => {
  it("counts what the files hold (counted here from the YAML itself)", async () => {
    const dir = join(import.meta.dirname, "../../catalog");
    const files = readdirSync(dir).filter((f) => /\.ya?ml$/.test(f));
    const govs: RawGov[] = [];
    const srcs: RawSource[] = [];
    const leads: { government: string }[] = [];
    for (const f of files) {
      const doc = parse(readFileSync(join(dir, f), "utf8")) as {
        governments?: RawGov[];
        sources?: RawSource[];
        leads?: { government: string }[];
      };
      govs.push(...(doc.governments ?? []));
      srcs.push(...(doc.sources ?? []));
      leads.push(...(doc.leads ?? []));
    }
    const gov = new Map(govs.map((g) => [g.id, g]));
    const count = <T>(list: T[], key: (x: T) => string) => {
      const m = new Map<string, number>();
      for (const x of list) m.set(key(x), (m.get(key(x)) ?? 0) + 1);
      return m;
    };
    // Every bundled source names a preset, or is a page read with a recipe.
    for (const s of srcs) expect(s.platform !== undefined || s.extract !== undefined).toBe(true);
    const platformOf = (s: RawSource) => s.platform ?? "(page recipe)";

    const r = await nor("catalog", "stats", "--json");
    expect(r.code).toBe(0);
    const st = JSON.parse(r.stdout) as CatalogStats;
    expect(st.governments).toBe(govs.length);
    expect(st.sources).toBe(srcs.length);
    expect(st.leads).toBe(leads.length);
    expect(st.confirmed).toBe(srcs.filter((s) => s.confirmed === true).length);

    const govKinds = count(govs, (g) => g.kind);
    const srcKinds = count(srcs, (s) => gov.get(s.government)!.kind);
    for (const k of st.byKind) {
      expect(k.governments).toBe(govKinds.get(k.kind) ?? 0);
      expect(k.sources).toBe(srcKinds.get(k.kind) ?? 0);
    }
    expect(st.byKind.reduce((n, k) => n + k.governments, 0)).toBe(govs.length);

    const countyOf = (id: string) => gov.get(id)?.county ?? "(none)";
    const govCounties = count(govs, (g) => g.county ?? "(none)");
    const srcCounties = count(srcs, (s) => countyOf(s.government));
    const leadCounties = count(leads, (l) => countyOf(l.government));
    expect(st.byCounty).toHaveLength(govCounties.size);
    for (const c of st.byCounty) {
      const name = c.county ?? "(none)";
      expect([name, c.governments, c.sources, c.leads]).toEqual([
        name,
        govCounties.get(name),
        srcCounties.get(name) ?? 0,
        leadCounties.get(name) ?? 0,
      ]);
    }

    const platforms = count(srcs, platformOf);
    expect(new Map(st.byPlatform.map((p) => [p.platform, p.sources]))).toEqual(platforms);
    for (const p of st.byPlatform) {
      const on = new Set(srcs.filter((s) => platformOf(s) === p.platform).map((s) => s.government));
      expect(p.governments).toBe(on.size);
    }

    // Every Ohio county without a source, whether the catalog names it or not.
    const withSource = new Set(srcs.map((s) => countyOf(s.government)));
    expect(st.missing.countiesWithoutSources).toEqual(
      OHIO_COUNTIES.filter((c) => !withSource.has(c)).sort(),
    );
    expect(st.missing.governmentsWithoutWebsite.map((g) => g.id)).toEqual(
      govs.filter((g) => !g.website).map((g) => g.id),
    );
    // Ohio's 88 counties are all in the catalog, each as a county government.
    expect(govs.filter((g) => g.kind === "county")).toHaveLength(88);
  });
});
