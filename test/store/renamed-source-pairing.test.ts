import { describe, expect, it } from "vitest";
import type { SourceResult } from "../../src/night/types.js";
import { parseCatalog } from "../../src/sources/catalog/load.js";
import {
  type ImportDiff,
  type ImportOutcome,
  importCatalog,
} from "../../src/sources/catalog-import.js";
import { markSource, nightTotals } from "../../src/store/admin.js";
import { openStore, type Store } from "../../src/store/db.js";
import { latestMarks } from "../../src/store/marks.js";
import { SqlNightStore } from "../../src/store/night-store.js";
import { newRecords } from "../../src/store/read/new-records.js";
import { storeFactories } from "./stores.js";

/**
 * P6 (review of O10): only a pairing that cannot be anything else is a rename — a source
 * un-retired that reads the retired one's list takes it, or nothing does — and a night's
 * totals count each record once, under the source it was first listed under, whatever rename
 * copied it since. On SQLite and PostgreSQL.
 */
const factories = storeFactories();

const T1 = Date.parse("2026-11-05T08:00:00Z");
const DAY = 86_400_000;
const N1 = "2026-11-05";
const N2 = "2026-11-06";
const N3 = "2026-11-07";
const LIST = "https://x.gov/bids.rss";

const cat = (sources: string) =>
  parseCatalog(
    `governments:\n  - { id: g, name: G, kind: city, county: Franklin }\nsources:\n${sources}`,
    "t.yaml",
  );
const feed = (id: string, url: string, more = "") =>
  `  - { id: ${id}, government: g, records: bids, access: feed, url: "${url}"${more} }\n`;
/** A source no import here touches: one retired id of two is a rename, or half retired. */
const OTHER = feed("other", "https://x.gov/other.rss");

function diffOf(o: ImportOutcome): ImportDiff {
  if (o.kind !== "imported") throw new Error(`expected an import, got ${JSON.stringify(o)}`);
  return o.diff;
}

/** The catalog of these sources imported; a retirement beyond the guard's only when `allowRetire`. */
async function importOf(
  store: Store,
  sources: string,
  at: number,
  allowRetire = false,
): Promise<ImportDiff> {
  const c = cat(sources);
  const origins = {
    governments: new Map(c.governments.map((g) => [g.id, "t.yaml"])),
    sources: new Map(c.sources.map((s) => [s.id, "t.yaml"])),
  };
  return diffOf(await importCatalog(store.db, c, origins, at, { allowRetire }));
}

/** The feed read in full on night `n`: these items, its page read kept with them. */
function read(sourceId: string, n: number, items: readonly string[]): SourceResult {
  const at = T1 + n * DAY;
  const ids = items.map((id) => `${LIST}#${id}`);
  return {
    sourceId,
    outcome: { kind: "ok", url: LIST, status: 200 },
    way: { used: { access: "feed", url: LIST }, skipped: [] },
    records: ids.map((id) => ({ id, title: `Bid ${id}`, date: "2026-11-01" })),
    pageRead: { url: LIST, key: `k${items.length}`, records: items.length, ids },
    validators: [],
    flags: [],
    startedAt: at,
    endedAt: at + 500,
  };
}

async function night(store: Store, n: number, ids: readonly string[]): Promise<string> {
  const ns = new SqlNightStore(store.db);
  const key = [N1, N2, N3][n] as string;
  await ns.openNight(key, T1 + n * DAY, T1 + n * DAY + 6 * 3600_000);
  await ns.syncSources(
    ids.map((id) => ({ id, government: "g", url: LIST, site: "x.gov" })),
    T1 + n * DAY,
  );
  return key;
}

const recordsOf = (store: Store, sourceId: string) =>
  store.db
    .selectFrom("records")
    .select(["record_id", "first_seen_night", "already_listed"])
    .where("source_id", "=", sourceId)
    .orderBy("record_id")
    .execute();

describe.each(factories)("a source renamed: pairing and totals ($name)", (factory) => {
  it("P6: a source un-retired that reads a retired one's list, and one added that reads it too: no rename (which continues it is not known)", async () => {
    const store = await openStore(await factory.fresh());
    try {
      await importOf(store, feed("a", LIST) + feed("c", LIST) + OTHER, T1);
      await importOf(store, feed("a", LIST) + OTHER, T1 + 1000, true); // c retired
      const d = await importOf(store, feed("c", LIST) + feed("b", LIST) + OTHER, T1 + 2000, true);
      // Two sources may continue a's list (c, back with its own history, and b): which is it?
      expect(d.changes.map((x) => x.change)).not.toContain("renamed");
      expect(d.changes).toContainEqual({ entity: "source", id: "c", change: "unretired" });
      expect(d.changes).toContainEqual({ entity: "source", id: "b", change: "added" });
      expect(d.changes).toContainEqual({ entity: "source", id: "a", change: "retired" });
    } finally {
      await store.close();
    }
  });

  it("P6, P7, P24: renamed back (a → b → a, no --allow-retire), a takes up what b saw: nothing new twice, b's mark in force", async () => {
    const store = await openStore(await factory.fresh());
    try {
      await importOf(store, feed("a", LIST) + OTHER, T1);
      const ns = new SqlNightStore(store.db);
      await ns.commit(await night(store, 0, ["a"]), read("a", 0, ["1", "2", "3"]));
      const there = await importOf(store, feed("b", LIST) + OTHER, T1 + 3600_000);
      expect(there.changes).toEqual([{ entity: "source", id: "b", change: "renamed", from: "a" }]);
      await ns.commit(await night(store, 1, ["b"]), read("b", 1, ["1", "2", "3", "4"]));
      const marked = await markSource(store.db, {
        source: "b",
        reading: false,
        reason: "asked to stop",
        by: "op",
        at: T1 + DAY + 7200_000,
        night: N2,
      });
      expect(marked.kind).toBe("marked");
      const back = await importOf(store, feed("a", LIST) + OTHER, T1 + DAY + 9000_000);
      expect(back.changes).toEqual([{ entity: "source", id: "a", change: "renamed", from: "b" }]);
      expect(await recordsOf(store, "a")).toEqual([
        { record_id: `${LIST}#1`, first_seen_night: N1, already_listed: 1 },
        { record_id: `${LIST}#2`, first_seen_night: N1, already_listed: 1 },
        { record_id: `${LIST}#3`, first_seen_night: N1, already_listed: 1 },
        { record_id: `${LIST}#4`, first_seen_night: N2, already_listed: 0 },
      ]);
      expect((await latestMarks(store.db, ["a"])).get("a")?.reading).toBe(0);
      // The same list read under a again: nothing on it is new.
      const n3 = await night(store, 2, ["a"]);
      await ns.commit(n3, read("a", 2, ["1", "2", "3", "4"]));
      const fresh = await newRecords(store.db, { from: N1, to: N3 }, {});
      expect(fresh.items.map((r) => [r.sourceId, r.recordId, r.firstSeenNight])).toEqual([
        ["a", `${LIST}#4`, N2],
      ]);
    } finally {
      await store.close();
    }
  });

  it("P6, P7: a night's totals after a rename count its already-listed records once, not once an id", async () => {
    const store = await openStore(await factory.fresh());
    try {
      await importOf(store, feed("old-bids", LIST) + OTHER, T1);
      const ns = new SqlNightStore(store.db);
      const n1 = await night(store, 0, ["old-bids"]);
      await ns.commit(n1, read("old-bids", 0, ["1", "2", "3"]));
      const t0 = await nightTotals(store.db, n1);
      expect(t0.alreadyListed).toBe(3);
      await importOf(store, feed("new-bids", LIST) + OTHER, T1 + 3600_000);
      const t1 = await nightTotals(store.db, n1);
      expect(t1.alreadyListed).toBe(3);
    } finally {
      await store.close();
    }
  });
});
