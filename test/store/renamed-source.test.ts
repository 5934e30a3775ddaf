import { describe, expect, it } from "vitest";
import { diffLine, formatDiff, type ImportDiff } from "../../src/sources/catalog-import.js";
import { markSource } from "../../src/store/admin.js";
import { openStore, type Store } from "../../src/store/db.js";
import { latestMarks } from "../../src/store/marks.js";
import { SqlNightStore } from "../../src/store/night-store.js";
import { directoryCounts, newestRecords } from "../../src/store/read/directory.js";
import { newRecords } from "../../src/store/read/new-records.js";
import { search, searchTerms } from "../../src/store/read/search.js";
import { lastOutcomeRows, outcomeRowsSince } from "../../src/store/read/source-state.js";
import { itemId } from "../../src/web/public/feeds.js";
import {
  DAY,
  factories,
  feed,
  imported,
  importOf,
  LIST,
  N,
  night,
  OTHER,
  read,
  T1,
} from "./renamed-support.js";

/**
 * P6 (outside tester O10, third design): a source whose id alone the catalog renames has its
 * history MOVED to the new id in the import's transaction — records, nights, page read,
 * backfill, marks, flags — never copied, so no record is ever listed under two ids. Adapted
 * from the reviews of the two copying designs (review-o10 F1–F5, review-o10b R1–R5), on SQLite
 * and PostgreSQL.
 */
const doc = (scheme: string, n: number) => `${scheme}://x.gov/files/bid-${n}.pdf`;
const docs = (scheme: string, ...n: number[]) => n.map((i) => doc(scheme, i));

/** Rows each table holds under a source id. */
async function rowsOf(store: Store, id: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of ["records", "night_sources", "page_reads", "marks", "backfill"] as const) {
    const r = await store.db
      .selectFrom(t)
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .where("source_id", "=", id)
      .executeTakeFirstOrThrow();
    out[t] = Number(r.n);
  }
  return out;
}

/** Every public listing of records, each as its feed entry id. */
async function publicIds(store: Store) {
  const fresh = await newRecords(store.db, { from: N[0]!, to: N[3]! }, {});
  const found = await search(
    store.db,
    searchTerms("bid"),
    {},
    { page: 1, perPage: 100, others: 10 },
  );
  return {
    fresh: fresh.items.map((x) => itemId(x)),
    search: found.records.map((x) => itemId(x)),
    records: (await directoryCounts(store.db)).records,
  };
}

describe.each(factories)("a source renamed: its history moved ($name)", (factory) => {
  it("P6, P7: a → b moves a's history to b: b's next read says new exactly the one record the list added; a keeps no rows; feed entry ids as they were; each record listed once", async () => {
    const store = await openStore(await factory.migrated());
    try {
      await imported(store, feed("a") + OTHER, T1);
      const ns = new SqlNightStore(store.db);
      await ns.commit(await night(store, 0, ["a"]), read("a", 0, docs("http", 1, 2)));
      await ns.commit(await night(store, 1, ["a"]), read("a", 1, docs("http", 1, 2, 3)));
      const before = (await newestRecords(store.db, "a", 50)).map((r) => itemId(r)).sort();
      const d = await imported(store, feed("b") + OTHER, T1 + DAY + 3600_000);
      expect(d.changes).toEqual([{ entity: "source", id: "b", change: "renamed", from: "a" }]);
      expect(formatDiff(d)).toContain("> source a → b renamed (history moved)");
      expect(d.sameAddress).toBeUndefined();
      expect(await rowsOf(store, "a")).toEqual({
        records: 0,
        night_sources: 0,
        page_reads: 0,
        marks: 0,
        backfill: 0,
      });
      expect((await rowsOf(store, "b")).records).toBe(3);
      const after = (await newestRecords(store.db, "b", 50)).map((r) => itemId(r)).sort();
      expect(after).toEqual(before);
      // catalog_changes: a retired, b added, as for any import.
      const log = await store.db
        .selectFrom("catalog_changes")
        .select(["entity_id", "change"])
        .where("at", "=", new Date(T1 + DAY + 3600_000).toISOString())
        .orderBy("entity_id")
        .execute();
      expect(log).toEqual([
        { entity_id: "a", change: "retired" },
        { entity_id: "b", change: "added" },
      ]);
      // Night 3: one more. Exactly it is new.
      const c = await ns.commit(
        await night(store, 2, ["b"]),
        read("b", 2, docs("http", 1, 2, 3, 4)),
      );
      expect(c).toEqual({ newRecords: 1 });
      const pub = await publicIds(store);
      expect(pub.records).toBe(4);
      // New on record: 3 (under a, on N2) and 4 (under b, on N3), each once.
      expect(pub.fresh.length).toBe(2);
      expect(pub.fresh.length).toBe(new Set(pub.fresh).size);
      expect(pub.search.length).toBe(4);
      expect(new Set(pub.search).size).toBe(4);
      // The records never renamed keep ids named by the old id; the one new under b, by b.
      expect(pub.fresh.filter((i) => i.includes(":record:b:")).length).toBe(1);
      expect(pub.fresh.filter((i) => i.includes(":record:a:")).length).toBe(1);
      // Its strip and last outcome go on (P23).
      expect([...(await outcomeRowsSince(store.db, "b", N[0]!)).keys()].sort()).toEqual([
        N[0],
        N[1],
        N[2],
      ]);
    } finally {
      await store.close();
    }
  });

  it("P6, P7: renamed back (a → b → a) nothing is new twice; the names are as they were; the retired b keeps no nights, and a's last outcome is the list's latest", async () => {
    const store = await openStore(await factory.migrated());
    try {
      await imported(store, feed("a") + OTHER, T1);
      const ns = new SqlNightStore(store.db);
      await ns.commit(await night(store, 0, ["a"]), read("a", 0, docs("http", 1, 2, 3)));
      const names0 = (await newestRecords(store.db, "a", 50)).map((r) => itemId(r)).sort();
      await imported(store, feed("b") + OTHER, T1 + 3600_000);
      expect(
        await ns.commit(await night(store, 1, ["b"]), read("b", 1, docs("http", 1, 2, 3, 4))),
      ).toEqual({ newRecords: 1 });
      // Back, without --allow-retire (1 of 2 sources is more than a tenth: a rename is none).
      const back = await imported(store, feed("a") + OTHER, T1 + DAY + 3600_000);
      expect(back.changes).toEqual([{ entity: "source", id: "a", change: "renamed", from: "b" }]);
      expect(
        await ns.commit(await night(store, 2, ["a"]), read("a", 2, docs("http", 1, 2, 3, 4))),
      ).toEqual({ newRecords: 0 });
      const names = (await newestRecords(store.db, "a", 50)).map((r) => itemId(r)).sort();
      expect(names.slice(0, 3).every((n) => names0.includes(n))).toBe(true);
      // Records back under the id they were first listed under: named as never renamed.
      const firsts = await store.db
        .selectFrom("records")
        .select(["record_id", "first_source_id"])
        .where("source_id", "=", "a")
        .orderBy("record_id")
        .execute();
      expect(firsts.map((r) => r.first_source_id)).toEqual([null, null, null, "b"]);
      const fresh = await newRecords(store.db, { from: N[0]!, to: N[2]! }, {});
      expect(fresh.items.map((r) => [r.sourceId, r.recordId, r.firstSeenNight])).toEqual([
        ["a", doc("http", 4), N[1]],
      ]);
      // review-o10b R2, R3: b was never read on N3 and keeps no nights; a's last is N3.
      expect([...(await outcomeRowsSince(store.db, "b", N[0]!)).keys()]).toEqual([]);
      expect((await lastOutcomeRows(store.db, ["a"])).get("a")?.night).toBe(N[2]);
    } finally {
      await store.close();
    }
  });

  it("P6 (review-o10b R1): renamed back after the site moved to https under the new id: each record once on the source's page, in the counts and by feed entry id", async () => {
    const store = await openStore(await factory.migrated());
    try {
      await imported(store, feed("a") + OTHER, T1);
      const ns = new SqlNightStore(store.db);
      await ns.commit(await night(store, 0, ["a"]), read("a", 0, docs("http", 1, 2, 3)));
      await imported(store, feed("b") + OTHER, T1 + 3600_000);
      expect(
        await ns.commit(await night(store, 1, ["b"]), read("b", 1, docs("https", 1, 2, 3))),
      ).toMatchObject({ newRecords: 0 });
      await imported(store, feed("a") + OTHER, T1 + DAY + 3600_000);
      expect(
        await ns.commit(await night(store, 2, ["a"]), read("a", 2, docs("https", 1, 2, 3))),
      ).toEqual({ newRecords: 0 });
      const onPage = await newestRecords(store.db, "a", 50);
      const ids = onPage.map((x) => itemId(x));
      expect({
        page: onPage.length,
        records: (await directoryCounts(store.db)).records,
        feedIds: new Set(ids).size,
        b: (await newestRecords(store.db, "b", 50)).length,
      }).toEqual({ page: 3, records: 3, feedIds: 3, b: 0 });
    } finally {
      await store.close();
    }
  });

  it("P24, P6: a person's 'not read' on a holds under b, and back under a", async () => {
    const store = await openStore(await factory.migrated());
    try {
      await imported(store, feed("a") + OTHER, T1);
      const ns = new SqlNightStore(store.db);
      await ns.commit(await night(store, 0, ["a"]), read("a", 0, docs("http", 1)));
      const m = await markSource(store.db, {
        source: "a",
        reading: false,
        reason: "the site asked us to stop",
        by: "op",
        at: T1 + 3600_000,
        night: N[0]!,
      });
      expect(m.kind).toBe("marked");
      await imported(store, feed("b") + OTHER, T1 + 7200_000);
      const marks = await latestMarks(store.db, ["a", "b"]);
      expect([...marks.keys()]).toEqual(["b"]);
      expect(Number(marks.get("b")?.reading)).toBe(0);
      await imported(store, feed("a") + OTHER, T1 + 3 * 3600_000);
      const back = await latestMarks(store.db, ["a", "b"]);
      expect([...back.keys()]).toEqual(["a"]);
      expect(back.get("a")?.reason).toBe("the site asked us to stop");
    } finally {
      await store.close();
    }
  });

  it("P6 (review-o10b R4): a → b, then a put back beside b: nothing moves, and no record is listed twice", async () => {
    const store = await openStore(await factory.migrated());
    try {
      await imported(store, feed("a") + OTHER, T1);
      const ns = new SqlNightStore(store.db);
      await ns.commit(await night(store, 0, ["a"]), read("a", 0, docs("https", 1, 2)));
      await ns.commit(await night(store, 1, ["a"]), read("a", 1, docs("https", 1, 2, 3)));
      await imported(store, feed("b") + OTHER, T1 + DAY + 3600_000);
      const both = await imported(store, feed("a") + feed("b") + OTHER, T1 + DAY + 7200_000);
      expect(both.changes).toEqual([{ entity: "source", id: "a", change: "unretired" }]);
      const pub = await publicIds(store);
      expect(pub.fresh.length).toBe(1);
      expect(pub.fresh.length).toBe(new Set(pub.fresh).size);
      expect(pub.records).toBe(3);
    } finally {
      await store.close();
    }
  });

  it("P6, P7: ambiguous imports pair nothing: two retired, two added, an added and an un-retired, another source reading the address, or a new id with a history of its own", async () => {
    const store = await openStore(await factory.migrated());
    try {
      const ns = new SqlNightStore(store.db);
      const renamedIn = (d: ImportDiff) => d.changes.filter((c) => c.change === "renamed");
      // Two retired, one added.
      await imported(store, feed("a1") + feed("a2") + OTHER, T1);
      await ns.commit(await night(store, 0, ["a1", "a2"]), read("a1", 0, docs("http", 1)));
      await ns.commit(N[0]!, read("a2", 0, docs("http", 1)));
      let d = await imported(store, feed("b") + OTHER, T1 + 3600_000, true);
      expect(renamedIn(d)).toEqual([]);
      expect((await rowsOf(store, "a1")).records).toBe(1);
      expect((await rowsOf(store, "b")).records).toBe(0);
      // One retired (b), two added.
      d = await imported(store, feed("c1") + feed("c2") + OTHER, T1 + 2 * 3600_000, true);
      expect(renamedIn(d)).toEqual([]);
      // One retired (c1, c2 both go: two) — reset: c1 alone in use, then c1 goes while an
      // added d and an un-retired b both read the list.
      await imported(store, feed("c1") + OTHER, T1 + 3 * 3600_000, true);
      await ns.commit(await night(store, 1, ["c1"]), read("c1", 1, docs("http", 1)));
      d = await imported(store, feed("d") + feed("b") + OTHER, T1 + 4 * 3600_000, true);
      expect(renamedIn(d)).toEqual([]);
      expect((await rowsOf(store, "c1")).records).toBe(1);
      // Another source in use reading the address (as a page: another list).
      await imported(store, feed("e") + OTHER, T1 + 5 * 3600_000, true);
      await ns.commit(await night(store, 2, ["e"]), read("e", 2, docs("http", 1)));
      const page = `  - { id: p, government: g, records: bids, access: page, url: "${LIST}", extract: { items: li } }\n`;
      await imported(store, feed("e") + page + OTHER, T1 + 6 * 3600_000, true);
      d = await imported(store, feed("f") + page + OTHER, T1 + 7 * 3600_000, true);
      expect(renamedIn(d)).toEqual([]);
      expect((await rowsOf(store, "e")).records).toBe(1);
      // A new id with a history of its own: a1 (retired, one record) taken back as f goes.
      d = await imported(store, feed("a1") + page + OTHER, T1 + 8 * 3600_000, true);
      expect(renamedIn(d)).toEqual([]);
      expect(d.changes.map((c) => `${c.id}:${c.change}`)).toEqual(["a1:unretired", "f:retired"]);
      // Said, as the warning of an id added at a retired one's address is (2a5d4a7).
      expect(d.sameAddress).toEqual([{ retired: "f", added: "a1", url: LIST, unretired: true }]);
      expect(formatDiff(d)).toContain("! source a1 is back at the address of f, retired");
      expect(diffLine(d)).toContain("(back at a retired source's address");
    } finally {
      await store.close();
    }
  });

  it("P6: a rename needs no --allow-retire; a rename beside more retired than a tenth is refused", async () => {
    const store = await openStore(await factory.migrated());
    try {
      await imported(store, feed("a") + OTHER, T1);
      expect((await importOf(store, feed("b") + OTHER, T1 + 3600_000)).kind).toBe("imported");
      // b renamed and other retired: two retired, no rename; refused without --allow-retire.
      expect((await importOf(store, feed("c"), T1 + 7200_000)).kind).toBe("too-many-retired");
    } finally {
      await store.close();
    }
  });
});
