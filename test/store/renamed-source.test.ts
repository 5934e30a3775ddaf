import { describe, expect, it } from "vitest";
import type { SourceResult } from "../../src/night/types.js";
import { parseCatalog } from "../../src/sources/catalog/load.js";
import {
  diffLine,
  formatDiff,
  type ImportDiff,
  type ImportOutcome,
  importCatalog,
} from "../../src/sources/catalog-import.js";
import { markSource } from "../../src/store/admin.js";
import { openStore, type Store } from "../../src/store/db.js";
import { latestMarks } from "../../src/store/marks.js";
import { SqlNightStore } from "../../src/store/night-store.js";
import { newRecords } from "../../src/store/read/new-records.js";
import { storeFactories } from "./stores.js";

/**
 * P6 (outside tester O10): a source whose id alone the catalog renames is the source it was.
 * The import that retires the old id and adds the new one carries the old one's records, its
 * page's last full read, its backfill and its marks over to the new id, in its own transaction,
 * so the new id's next read says new exactly what is new, as if the id had not changed; the old
 * id's rows stay, its source retired. Only an unambiguous pairing counts. On SQLite and
 * PostgreSQL: the rename is the SQL store's catalog import (the night's store port, and so the
 * memory store, are unchanged).
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

describe.each(factories)("a source renamed in the catalog ($name)", (factory) => {
  it("P6: the new id goes on with the old one's records and reads: its next read says new exactly the one record new; the old id's rows stay, retired", async () => {
    const store = await openStore(await factory.fresh());
    try {
      await importOf(store, feed("old-bids", LIST) + OTHER, T1);
      const ns = new SqlNightStore(store.db);
      const n1 = await night(store, 0, ["old-bids"]);
      // Its first read: what the list shows was there before (P7).
      expect(await ns.commit(n1, read("old-bids", 0, ["1", "2", "3"]))).toMatchObject({
        newRecords: 0,
        alreadyListed: 3,
      });

      // The id renamed; one retired of two is no partial catalog: no --allow-retire asked.
      const d = await importOf(store, feed("new-bids", LIST, ", name: Bids") + OTHER, T1 + DAY / 2);
      expect(d.changes).toEqual([
        { entity: "source", id: "new-bids", change: "renamed", from: "old-bids" },
      ]);
      expect(formatDiff(d)).toContain(
        "sources: 0 added, 0 changed, 0 retired, 0 un-retired, 1 renamed\n",
      );
      expect(formatDiff(d)).toContain("> source old-bids → new-bids renamed");
      expect(diffLine(d)).toBe("sources 1 renamed (sources renamed: old-bids → new-bids)");
      // As catalog_changes keeps it: the old id retired, the new one added.
      const log = await store.db
        .selectFrom("catalog_changes")
        .select(["entity_id", "change"])
        .where("entity", "=", "source")
        .where("entity_id", "in", ["old-bids", "new-bids"])
        .orderBy("id")
        .execute();
      expect(log).toEqual([
        { entity_id: "old-bids", change: "added" },
        { entity_id: "new-bids", change: "added" },
        { entity_id: "old-bids", change: "retired" },
      ]);
      const old = await store.db
        .selectFrom("sources")
        .select("retired_at")
        .where("id", "=", "old-bids")
        .executeTakeFirstOrThrow();
      expect(old.retired_at).not.toBeNull();
      // Copied, not moved: the old id keeps its rows; the new one has the same, as first seen.
      const before = await recordsOf(store, "old-bids");
      expect(before).toHaveLength(3);
      expect(await recordsOf(store, "new-bids")).toEqual(before);
      expect(await ns.pageRead("new-bids", LIST)).toMatchObject({ records: 3, allStored: true });

      // Night 2: the list shows one more.
      const n2 = await night(store, 1, ["new-bids"]);
      const c2 = await ns.commit(n2, read("new-bids", 1, ["1", "2", "3", "4"]));
      expect(c2.newRecords).toBe(1);
      expect(c2.alreadyListed).toBeUndefined();
      const fresh = await newRecords(store.db, { from: n2, to: n2 }, {});
      expect(fresh.items.map((r) => [r.sourceId, r.recordId])).toEqual([["new-bids", `${LIST}#4`]]);
      expect(await recordsOf(store, "old-bids")).toEqual(before);
    } finally {
      await store.close();
    }
  });

  it("P6, P7: two retired sources (or two added) that read one list pair nothing: retired and added as before, the added one's first read new of nothing", async () => {
    const store = await openStore(await factory.fresh());
    try {
      await importOf(store, feed("a1", LIST) + feed("a2", LIST) + OTHER, T1);
      const ns = new SqlNightStore(store.db);
      const n1 = await night(store, 0, ["a1", "a2"]);
      await ns.commit(n1, read("a1", 0, ["1", "2", "3"]));
      await ns.commit(n1, read("a2", 0, ["1", "2", "3"]));

      // Both gone, one added: which it continues is not known.
      const d = await importOf(store, feed("b", LIST) + OTHER, T1 + DAY / 2, true);
      expect(d.changes.map((c) => `${c.id}:${c.change}`)).toEqual([
        "b:added",
        "a1:retired",
        "a2:retired",
      ]);
      expect(formatDiff(d)).not.toContain("renamed");
      expect(await recordsOf(store, "b")).toEqual([]);
      const n2 = await night(store, 1, ["b"]);
      expect(await ns.commit(n2, read("b", 1, ["1", "2", "3", "4"]))).toMatchObject({
        newRecords: 0,
        alreadyListed: 4,
      });

      // One gone, two added that read it: neither is it.
      const d3 = await importOf(
        store,
        feed("c1", LIST) + feed("c2", LIST) + OTHER,
        T1 + 2 * DAY,
        true,
      );
      expect(d3.changes.map((c) => `${c.id}:${c.change}`)).toEqual([
        "c1:added",
        "c2:added",
        "b:retired",
      ]);
      expect(await recordsOf(store, "c1")).toEqual([]);
      expect(await recordsOf(store, "c2")).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it("P6: a list read another way, or of another government or kind, is no rename", async () => {
    const store = await openStore(await factory.fresh());
    try {
      await importOf(store, feed("a", LIST) + OTHER, T1);
      // The same address read as a page: another list (first-read.ts), a source of its own.
      const d = await importOf(
        store,
        `  - { id: b, government: g, records: bids, access: page, url: "${LIST}", extract: { items: "li" } }\n${OTHER}`,
        T1 + DAY,
        true,
      );
      expect(d.changes.map((c) => `${c.id}:${c.change}`)).toEqual(["b:added", "a:retired"]);
      const d2 = await importOf(
        store,
        `  - { id: c, government: g, records: minutes, access: page, url: "${LIST}", extract: { items: "li" } }\n${OTHER}`,
        T1 + 2 * DAY,
        true,
      );
      expect(d2.changes.map((c) => `${c.id}:${c.change}`)).toEqual(["c:added", "b:retired"]);
    } finally {
      await store.close();
    }
  });

  it("P6, P24, P7: renamed twice, it reads its list's nights under both earlier ids; a person's 'not read' and the backfill's place go with it", async () => {
    const store = await openStore(await factory.fresh());
    try {
      await importOf(store, feed("first", LIST) + OTHER, T1);
      const ns = new SqlNightStore(store.db);
      const n1 = await night(store, 0, ["first"]);
      await ns.commit(n1, {
        ...read("first", 0, ["1", "2"]),
        backfill: { done: false, pagesRead: 2, cursor: { url: `${LIST}?page=3` } },
      });
      const marked = await markSource(store.db, {
        source: "first",
        reading: false,
        reason: "the clerk asked us to wait",
        by: "op",
        at: T1 + DAY / 4,
        night: n1,
      });
      expect(marked.kind).toBe("marked");

      await importOf(store, feed("second", LIST) + OTHER, T1 + DAY / 2);
      const d = await importOf(store, feed("third", LIST) + OTHER, T1 + DAY / 2 + 1000);
      expect(d.changes).toEqual([
        { entity: "source", id: "third", change: "renamed", from: "second" },
      ]);
      const mark = (await latestMarks(store.db, ["third"])).get("third");
      expect(mark).toMatchObject({ reading: 0, reason: "the clerk asked us to wait" });
      const h = (await ns.histories(N2, ["third"])).get("third");
      expect(h?.reading).toBe(false);
      expect(h?.recordsKnown).toBe(2);
      expect(h?.backfill).toEqual({
        done: false,
        pagesRead: 2,
        cursor: { url: `${LIST}?page=3` },
      });

      // Read again (a person's mark to read), night 2: only the new record is new.
      await markSource(store.db, {
        source: "third",
        reading: true,
        by: "op",
        at: T1 + DAY - 1000,
        night: n1,
      });
      const n2 = await night(store, 1, ["third"]);
      expect((await ns.commit(n2, read("third", 1, ["1", "2", "5"]))).newRecords).toBe(1);
    } finally {
      await store.close();
    }
  });
});
