import { describe, expect, it } from "vitest";
import { importCatalog } from "../../src/sources/catalog-import.js";
import { markSource } from "../../src/store/admin.js";
import { openStore } from "../../src/store/db.js";
import { latestMarks } from "../../src/store/marks.js";
import { SqlNightStore } from "../../src/store/night-store.js";
import { search, searchTerms } from "../../src/store/read/search.js";
import { createApp } from "../../src/web/app.js";
import { itemId } from "../../src/web/public/feeds.js";
import {
  cat,
  DAY,
  factories,
  feed,
  imported,
  LIST,
  N,
  night,
  OTHER,
  read,
  T1,
} from "./renamed-support.js";

/**
 * P6 after a rename (review-o10c M1, D1, W1): what the new id kept of its own never outlives the
 * move, a source put back beside the one its history moved to names its records apart, and the
 * old id's answers send the reader to the new one. SQLite + PostgreSQL.
 */
const docs = (...n: number[]) => n.map((i) => `https://x.gov/files/bid-${i}.pdf`);

describe.each(factories)("P6: what is left after a rename ($name)", (factory) => {
  it("P6, P24: a new id with a 'not read' mark of its own (from an earlier life, on another list) is not taken for a rename: nothing moved, the list read under the old id is not silently stopped", async () => {
    const store = await openStore(await factory.migrated());
    try {
      // b once pointed at another list; a person marked it not read before any night read it
      // ("wrong list"), and it left the catalog.
      await imported(store, feed("b", "https://x.gov/wrong.rss") + OTHER, T1 - 3 * DAY);
      const m = await markSource(store.db, {
        source: "b",
        reading: false,
        reason: "wrong list, fix the entry",
        by: "op",
        at: T1 - 3 * DAY + 3600_000,
        night: "2026-11-02",
      });
      expect(m.kind).toBe("marked");
      await imported(store, feed("a") + OTHER, T1 - 2 * DAY, true);
      // a is read every night: no mark of its own.
      const ns = new SqlNightStore(store.db);
      await ns.commit(await night(store, 0, ["a"]), read("a", 0, docs(1, 2)));
      await ns.commit(await night(store, 1, ["a"]), read("a", 1, docs(1, 2, 3)));
      expect((await latestMarks(store.db, ["a"])).get("a")).toBeUndefined();
      // The operator renames a to b (b, un-retired, has no records, nights or page reads, but a
      // mark of its own): not taken for a rename. a is retired as any source (the guard asks for
      // --allow-retire), b put back with its own mark, and the operator is told.
      const refused = await importCatalog(
        store.db,
        cat(feed("b") + OTHER),
        {
          governments: new Map([["g", "t.yaml"]]),
          sources: new Map([
            ["b", "t.yaml"],
            ["other", "t.yaml"],
          ]),
        },
        T1 + DAY + 3600_000,
      );
      expect(refused.kind).toBe("too-many-retired");
      const d = await imported(store, feed("b") + OTHER, T1 + DAY + 3600_000, true);
      expect(d.changes).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ entity: "source", id: "a", change: "retired" }),
          expect.objectContaining({ entity: "source", id: "b", change: "unretired" }),
        ]),
      );
      expect(d.changes.some((c) => c.change === "renamed")).toBe(false);
      expect(d.sameAddress).toEqual([{ retired: "a", added: "b", url: LIST, unretired: true }]);
      // Nothing moved: a keeps its records and nights; b's own mark is b's, said as before.
      const h = (await ns.histories(N[2]!, ["a", "b"])).get("a");
      expect(h?.reading).toBe(true);
      const mark = (await latestMarks(store.db, ["b"])).get("b");
      expect(Number(mark?.reading)).toBe(0);
      const under = await store.db
        .selectFrom("records")
        .select(["source_id"])
        .where("source_id", "in", ["a", "b"])
        .execute();
      expect(under.map((r) => r.source_id)).toEqual(["a", "a", "a"]);
    } finally {
      await store.close();
    }
  });

  it("P6: a -> b, then a put back beside b and read: every record has its own feed entry id (b's moved records are named by b from then on)", async () => {
    const store = await openStore(await factory.migrated());
    try {
      await imported(store, feed("a") + OTHER, T1);
      const ns = new SqlNightStore(store.db);
      await ns.commit(await night(store, 0, ["a"]), read("a", 0, docs(1, 2, 3)));
      await imported(store, feed("b") + OTHER, T1 + 3600_000);
      await ns.commit(await night(store, 1, ["b"]), read("b", 1, docs(1, 2, 3)));
      const renamed = async () =>
        (
          await store.db
            .selectFrom("sources")
            .select(["id", "renamed_to"])
            .where("id", "in", ["a", "b"])
            .orderBy("id")
            .execute()
        ).map((r) => [r.id, r.renamed_to]);
      expect(await renamed()).toEqual([
        ["a", "b"],
        ["b", null],
      ]);
      // a put back beside b (a has no history now: un-retired, no rename), then read.
      await imported(store, feed("a") + feed("b") + OTHER, T1 + DAY + 3600_000);
      expect(await renamed()).toEqual([
        ["a", null],
        ["b", null],
      ]);
      const key = await night(store, 2, ["a", "b"]);
      await ns.commit(key, read("a", 2, docs(1, 2, 3)));
      await ns.commit(key, read("b", 2, docs(1, 2, 3)));
      const found = await search(
        store.db,
        searchTerms("bid"),
        {},
        { page: 1, perPage: 100, others: 10 },
      );
      const ids = found.records.map((r) => itemId(r));
      // 6 records (two sources on one list, the operator's choice), but each must have its own
      // entry id / calendar UID: a feed or calendar with duplicate ids is malformed.
      expect({ records: ids.length, distinct: new Set(ids).size }).toEqual({
        records: 6,
        distinct: 6,
      });
    } finally {
      await store.close();
    }
  });

  it("P6: the renamed old id's per-source feed and pages say it was renamed and link the new id's page, where its records are", async () => {
    const store = await openStore(await factory.migrated());
    try {
      await imported(store, feed("a") + OTHER, T1);
      const ns = new SqlNightStore(store.db);
      await ns.commit(await night(store, 0, ["a"]), read("a", 0, docs(1, 2, 3)));
      await imported(store, feed("b") + OTHER, T1 + 3600_000);
      const app = createApp({ db: store.db, now: () => T1 + DAY, origin: "https://x.test" });
      const f = (await (await app.request("/new.json?source=a")).json()) as {
        items: { content_text?: string; url?: string; title?: string }[];
      };
      const notice = JSON.stringify(f.items);
      const page = (await (await app.request("/api/sources/a")).json()) as {
        newestRecords?: unknown[];
      };
      // The notice promises the records on a's page; the page must then list them (or the
      // notice must send the reader to b, where they went).
      const promises = notice.includes("records are kept and listed on its own page");
      const listed = (page.newestRecords ?? []).length;
      expect({ promises, listed, namesB: notice.includes("/sources/b") }).toEqual({
        promises: false,
        listed: 0,
        namesB: true,
      });
      expect(notice).toContain("was renamed on");
      expect(f.items[0]?.url).toBe("https://x.test/sources/b");
      expect((page as { renamedTo?: string }).renamedTo).toBe("b");
      const api = (await (await app.request("/api/new?source=a")).json()) as {
        retired: { renamedTo: string | null; page: string } | null;
      };
      expect(api.retired).toMatchObject({ renamedTo: "b", page: "/sources/b" });
      const html = await (await app.request("/sources/a")).text();
      expect(html).toContain('data-renamed-to="b"');
      expect(html).toContain('href="/sources/b"');
      const newPage = await (await app.request("/new?source=a")).text();
      expect(newPage).toContain('href="/sources/b"');
      expect(newPage).toContain("was renamed on");
    } finally {
      await store.close();
    }
  });
});
