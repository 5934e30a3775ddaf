import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCatalog } from "../../src/sources/catalog/load.js";
import { importCatalog } from "../../src/sources/catalog-import.js";
import { openStore, type Store } from "../../src/store/db.js";
import { changedRecords, newCounts, newRecords } from "../../src/store/read/new-records.js";
import { type StoreFactory, storeFactories } from "./stores.js";

/**
 * P6 (docs/api.md, Feeds): a record new on record in the 30 nights before a window that a night
 * of the window brought up to date (retitled, redated, of another kind: `changed_at`) is read
 * apart from what is new, so the feeds carry it as an updated entry; never counted as new. The
 * same on SQLite and PostgreSQL.
 */
const at = (night: string, hour = 6) => `${night}T${String(hour).padStart(2, "0")}:00:00.000Z`;

describe.each(storeFactories())(
  "records brought up to date in a window ($name)",
  (f: StoreFactory) => {
    let store: Store;
    beforeAll(async () => {
      store = await openStore(await f.fresh());
      const cat = parseCatalog(
        `governments:\n  - { id: g1, name: G 1, kind: city, county: Franklin }\n  - { id: g2, name: G 2, kind: city, county: Summit }\nsources:\n  - { id: s1, government: g1, records: bids, access: feed, url: "https://a.example/f.rss" }\n  - { id: s2, government: g2, records: minutes, access: feed, url: "https://b.example/f.rss" }\n`,
        "catalog.yaml",
      );
      await importCatalog(
        store.db,
        cat,
        {
          governments: new Map(cat.governments.map((g) => [g.id, "catalog.yaml"])),
          sources: new Map(cat.sources.map((s) => [s.id, "catalog.yaml"])),
        },
        Date.parse("2026-09-01T00:00:00Z"),
      );
      // Nights of Nov 20–24, each begun at 01:00 New York time (06:00Z).
      for (const n of ["2026-11-20", "2026-11-21", "2026-11-22", "2026-11-23", "2026-11-24"])
        await store.db
          .insertInto("nights")
          .values({
            night: n,
            started_at: at(n),
            deadline_at: at(n, 12),
            finished_at: at(n, 7),
            runs: 1,
          })
          .execute();
      const rec = (
        source: string,
        id: string,
        night: string,
        changed: string | null,
        already = 0,
      ) => ({
        source_id: source,
        record_id: id,
        title: `T ${id}`,
        date: null,
        url: null,
        kind: null,
        first_seen_night: night,
        first_seen_at: at(night, 6),
        already_listed: already,
        changed_at: changed,
      });
      await store.db
        .insertInto("records")
        .values([
          // New on Nov 21, cancelled on Nov 24: brought up to date in "since yesterday".
          rec("s1", "salt", "2026-11-21", at("2026-11-24", 6).replace("06:00:00", "06:30:00")),
          // New on Nov 21, changed on Nov 22: before the window.
          rec("s1", "early", "2026-11-21", at("2026-11-22", 7)),
          // New on Nov 23 (in the window) and changed on Nov 24: listed as new, not twice.
          rec("s1", "fresh", "2026-11-23", at("2026-11-24", 7)),
          // Already listed when first seen: never new, so never an update of a new record.
          rec("s1", "listed", "2026-11-20", at("2026-11-24", 7), 1),
          // First seen 60 nights before: past the look-back.
          rec("s1", "ancient", "2026-09-20", at("2026-11-24", 7)),
          // Another county's, changed on Nov 23.
          rec("s2", "minutes", "2026-11-20", at("2026-11-23", 8)),
        ])
        .execute();
    }, 60_000);
    afterAll(async () => {
      await store?.close();
    });

    it("P6: since yesterday it holds the records new in the look-back that changed in the window, the latest change first, and counts none of them new", async () => {
      const range = { from: "2026-11-23", to: "2026-11-24" };
      const changed = await changedRecords(store.db, range, {});
      expect(changed.items.map((r) => r.recordId)).toEqual(["salt", "minutes"]);
      expect(changed.items[0]?.changedAt).toBe("2026-11-24T06:30:00.000Z");
      expect(changed.capped).toBe(false);
      const fresh = await newRecords(store.db, range, {});
      expect(fresh.items.map((r) => r.recordId)).toEqual(["fresh"]);
      expect((await newCounts(store.db, range, {})).total).toBe(1);
      // Filtered as the list is.
      const franklin = await changedRecords(store.db, range, { county: "Franklin" });
      expect(franklin.items.map((r) => r.recordId)).toEqual(["salt"]);
      // Capped: the latest change kept, and said cut.
      const one = await changedRecords(store.db, range, {}, 1);
      expect(one).toMatchObject({ capped: true, items: [{ recordId: "salt" }] });
    });

    it("P6: one past night holds only what that night changed, up to the next night's start", async () => {
      const on23 = await changedRecords(store.db, { from: "2026-11-23", to: "2026-11-23" }, {});
      expect(on23.items.map((r) => r.recordId)).toEqual(["minutes"]);
      const on22 = await changedRecords(store.db, { from: "2026-11-22", to: "2026-11-22" }, {});
      expect(on22.items.map((r) => r.recordId)).toEqual(["early"]);
      // A window no night has begun in yet holds nothing.
      const later = await changedRecords(store.db, { from: "2026-11-25", to: "2026-11-26" }, {});
      expect(later.items).toEqual([]);
    });
  },
);
