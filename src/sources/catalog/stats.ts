/**
 * `nor catalog stats`: what the catalog covers and what it lacks, counted piece by piece as
 * the files are read (load.ts), so a catalog of any size is counted in the memory of its
 * governments' ids, never of its sources.
 *
 * A source counts for its government's kind and county. Its platform is its preset's name,
 * or, without one, how it is read: `(page recipe)`, `(feed)`, `(api mapping)`,
 * `(download mapping)`, `(form)`. The counties counted by county are those some government
 * names; the counties "without any source" are every one of Ohio's 88 counties (counties.ts)
 * where no source belongs to a government in it, those the catalog names no government in
 * included: a catalog of two counties lacks the other 86. Leads (record pages not read yet)
 * are counted by their reason.
 */
import { OHIO_COUNTIES } from "./counties.js";
import { type CatalogInput, checkCatalog, completePart, type RawPart } from "./load.js";
import { governmentKind } from "./schema.js";
import type { Source } from "./types.js";

export interface KindCount {
  kind: string;
  governments: number;
  sources: number;
}

export interface CountyCount {
  /** The county's name, or null for governments that name none. */
  county: string | null;
  governments: number;
  sources: number;
  leads: number;
}

export interface PlatformCount {
  platform: string;
  sources: number;
  /** Governments with at least one source on it. */
  governments: number;
}

export interface GovernmentRef {
  id: string;
  name: string;
  kind: string;
  county: string | null;
}

export interface CatalogStats {
  files: string[];
  governments: number;
  sources: number;
  confirmed: number;
  leads: number;
  byKind: KindCount[];
  byCounty: CountyCount[];
  byPlatform: PlatformCount[];
  leadsByReason: { why: string; leads: number }[];
  missing: {
    /** Ohio's counties (all 88, counties.ts) with no source of a government in them. */
    countiesWithoutSources: string[];
    governmentsWithoutWebsite: GovernmentRef[];
  };
}

/** A source's platform as the stats name it. */
export function platformOf(s: Pick<Source, "platform" | "access">): string {
  if (s.platform) return s.platform;
  const how: Record<Source["access"], string> = {
    page: "(page recipe)",
    feed: "(feed)",
    api: "(api mapping)",
    download: "(download mapping)",
    form: "(form)",
  };
  return how[s.access];
}

const NO_ZONES: ReadonlyMap<string, string> = new Map();

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

class Tally {
  private readonly govs = new Map<string, GovernmentRef & { website: boolean }>();
  /** Per government: its sources' count and leads' count. */
  private readonly perGov = new Map<string, { sources: number; leads: number }>();
  /** Per platform: sources, and the governments with one. */
  private readonly platforms = new Map<string, { sources: number; govs: Set<string> }>();
  private readonly reasons = new Map<string, number>();
  sources = 0;
  confirmed = 0;
  leads = 0;

  private of(gov: string) {
    const c = this.perGov.get(gov) ?? { sources: 0, leads: 0 };
    this.perGov.set(gov, c);
    return c;
  }

  part(data: RawPart): void {
    // Zones do not change a count: the ways are completed for their access alone.
    const p = completePart(data, NO_ZONES);
    for (const g of p.governments) {
      this.govs.set(g.id, {
        id: g.id,
        name: g.name,
        kind: g.kind,
        county: g.county ?? null,
        website: g.website !== undefined,
      });
    }
    for (const s of p.sources) {
      this.sources++;
      if (s.confirmed) this.confirmed++;
      this.of(s.government).sources++;
      const name = platformOf(s);
      const pl = this.platforms.get(name) ?? { sources: 0, govs: new Set<string>() };
      this.platforms.set(name, pl);
      pl.sources++;
      pl.govs.add(s.government);
    }
    for (const l of p.leads) {
      this.leads++;
      this.of(l.government).leads++;
      this.reasons.set(l.why, (this.reasons.get(l.why) ?? 0) + 1);
    }
  }

  finish(files: string[]): CatalogStats {
    const kinds = new Map<string, KindCount>(
      governmentKind.options.map((k) => [k, { kind: k, governments: 0, sources: 0 }]),
    );
    const counties = new Map<string | null, CountyCount>();
    const county = (name: string | null) => {
      const c = counties.get(name) ?? { county: name, governments: 0, sources: 0, leads: 0 };
      counties.set(name, c);
      return c;
    };
    for (const g of this.govs.values()) {
      const n = this.perGov.get(g.id) ?? { sources: 0, leads: 0 };
      const k = kinds.get(g.kind)!;
      k.governments++;
      k.sources += n.sources;
      const c = county(g.county);
      c.governments++;
      c.sources += n.sources;
      c.leads += n.leads;
    }
    const byCounty = [...counties.values()].sort((a, b) =>
      a.county === null ? 1 : b.county === null ? -1 : byName(a.county, b.county),
    );
    return {
      files,
      governments: this.govs.size,
      sources: this.sources,
      confirmed: this.confirmed,
      leads: this.leads,
      byKind: [...kinds.values()],
      byCounty,
      byPlatform: [...this.platforms.entries()]
        .map(([platform, p]) => ({ platform, sources: p.sources, governments: p.govs.size }))
        .sort((a, b) => b.sources - a.sources || byName(a.platform, b.platform)),
      leadsByReason: [...this.reasons.entries()]
        .map(([why, leads]) => ({ why, leads }))
        .sort((a, b) => b.leads - a.leads || byName(a.why, b.why)),
      missing: {
        // Every Ohio county, not only those the catalog names (the catalog names no other:
        // a government's county is one of the 88, load.ts).
        countiesWithoutSources: OHIO_COUNTIES.filter(
          (name) => (counties.get(name)?.sources ?? 0) === 0,
        ).sort(byName),
        governmentsWithoutWebsite: [...this.govs.values()]
          .filter((g) => !g.website)
          .map(({ website: _w, ...g }) => g),
      },
    };
  }
}

/** The catalog's counts; a catalog with problems throws CatalogError, as `check` does. */
export function catalogStats(inputs: readonly CatalogInput[]): CatalogStats {
  const { sink } = checkCatalog(inputs, () => new Tally());
  return sink.finish(inputs.map((i) => i.file));
}
