import type { SourceResult } from "../../src/night/types.js";
import { parseCatalog } from "../../src/sources/catalog/load.js";
import {
  type ImportDiff,
  type ImportOutcome,
  importCatalog,
} from "../../src/sources/catalog-import.js";
import type { Store } from "../../src/store/db.js";
import { SqlNightStore } from "../../src/store/night-store.js";
import { storeFactories } from "./stores.js";

/**
 * What the rename tests share (renamed-source*.test.ts): a one-government catalog of feeds and
 * its import, a feed read in full on night `n`, and night `n` opened, on each store (SQLite,
 * PostgreSQL).
 */
export const factories = storeFactories();
export const T1 = Date.parse("2026-11-05T08:00:00Z");
export const DAY = 86_400_000;
export const N = ["2026-11-05", "2026-11-06", "2026-11-07", "2026-11-08"];
export const LIST = "https://x.gov/bids.rss";
export const cat = (sources: string) =>
  parseCatalog(
    `governments:\n  - { id: g, name: G, kind: city, county: Franklin }\nsources:\n${sources}`,
    "t.yaml",
  );
export const feed = (id: string, url = LIST, records = "bids") =>
  `  - { id: ${id}, government: g, records: ${records}, access: feed, url: "${url}" }\n`;
export const OTHER = feed("other", "https://x.gov/other.rss");

export function diffOf(o: ImportOutcome): ImportDiff {
  if (o.kind !== "imported") throw new Error(`expected an import, got ${JSON.stringify(o)}`);
  return o.diff;
}
export async function importOf(store: Store, sources: string, at: number, allowRetire = false) {
  const c = cat(sources);
  const origins = {
    governments: new Map(c.governments.map((g) => [g.id, "t.yaml"])),
    sources: new Map(c.sources.map((s) => [s.id, "t.yaml"])),
  };
  return importCatalog(store.db, c, origins, at, { allowRetire });
}
export const imported = async (store: Store, sources: string, at: number, allowRetire = false) =>
  diffOf(await importOf(store, sources, at, allowRetire));

/** The feed read in full on night `n`; `ids` are the records' ids (links) as listed. */
export function read(sourceId: string, n: number, ids: readonly string[]): SourceResult {
  const at = T1 + n * DAY;
  return {
    sourceId,
    outcome: { kind: "ok", url: LIST, status: 200 },
    way: { used: { access: "feed", url: LIST }, skipped: [] },
    records: ids.map((id) => ({ id, title: `Bid ${id.slice(-5)}`, date: "2026-11-01" })),
    pageRead: { url: LIST, key: `k${n}${ids.join()}`, records: ids.length, ids: [...ids] },
    validators: [],
    flags: [],
    startedAt: at,
    endedAt: at + 500,
  };
}
/** Night `n` opened, with these sources (reading `url`) in its catalog: its key. */
export async function night(store: Store, n: number, ids: readonly string[], url = LIST) {
  const ns = new SqlNightStore(store.db);
  const key = N[n] as string;
  await ns.openNight(key, T1 + n * DAY, T1 + n * DAY + 6 * 3600_000);
  await ns.syncSources(
    ids.map((id) => ({ id, government: "g", url, site: "x.gov" })),
    T1 + n * DAY,
  );
  return key;
}
