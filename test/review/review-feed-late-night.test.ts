import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCatalog } from "../../src/sources/catalog/load.js";
import { importCatalog } from "../../src/sources/catalog-import.js";
import { openStore, type Store } from "../../src/store/db.js";
import { changedRecords } from "../../src/store/read/new-records.js";
import { type StoreFactory, storeFactories } from "../store/stores.js";

/**
 * Review (feeds' updated entries): a night asked for by a past date (`nor night --night`, begun
 * more than an hour into a later date than its own: docs/operations.md) begins after nights of
 * later dates. Its `night=` page and feeds read the changes made from its start to the start of
 * the first night of a later date, which began before it: an empty span, so whatever that night
 * retitled is said on no `night=` page of it, though its own new records are (first_seen_night).
 */
const at = (night: string, hour = 6, min = 0) =>
  `${night}T${String(hour).padStart(2, "0")}:${String(min).padStart(2, "0")}:00.000Z`;

describe.each(storeFactories())("a night run late, by its past date ($name)", (f: StoreFactory) => {
  let store: Store;
  beforeAll(async () => {
    store = await openStore(await f.fresh());
    const cat = parseCatalog(
      `governments:\n  - { id: g1, name: G 1, kind: city, county: Franklin }\nsources:\n  - { id: s1, government: g1, records: bids, access: feed, url: "https://a.example/f.rss" }\n`,
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
    const night = (n: string, started: string, finished: string) => ({
      night: n,
      started_at: started,
      deadline_at: finished,
      finished_at: finished,
      runs: 1,
    });
    await store.db
      .insertInto("nights")
      .values([
        night("2026-11-20", at("2026-11-20"), at("2026-11-20", 7)),
        night("2026-11-21", at("2026-11-21"), at("2026-11-21", 7)),
        night("2026-11-23", at("2026-11-23"), at("2026-11-23", 7)),
        night("2026-11-24", at("2026-11-24"), at("2026-11-24", 7)),
        // The night of Nov 22 never ran on its date: the operator ran it on Nov 24, at noon.
        night("2026-11-22", at("2026-11-24", 12), at("2026-11-24", 13)),
      ])
      .execute();
    const rec = (id: string, night: string, changed: string | null) => ({
      source_id: "s1",
      record_id: id,
      title: `T ${id}`,
      date: null,
      url: null,
      kind: null,
      first_seen_night: night,
      first_seen_at: at(night),
      already_listed: 0,
      changed_at: changed,
    });
    await store.db
      .insertInto("records")
      .values([
        // New on Nov 20, retitled by the night of Nov 22 (run on Nov 24 at noon).
        rec("late", "2026-11-20", at("2026-11-24", 12, 30)),
        // New on Nov 20, retitled by the night of Nov 23.
        rec("on23", "2026-11-20", at("2026-11-23", 6, 30)),
      ])
      .execute();
  }, 60_000);
  afterAll(async () => {
    await store?.close();
  });

  it("P6: the night=… of a night run late by its past date holds what that night retitled", async () => {
    const on22 = await changedRecords(store.db, { from: "2026-11-22", to: "2026-11-22" }, {});
    expect(on22.items.map((r) => r.recordId)).toEqual(["late"]);
    // The nights of their own dates read as before.
    const on23 = await changedRecords(store.db, { from: "2026-11-23", to: "2026-11-23" }, {});
    expect(on23.items.map((r) => r.recordId)).toEqual(["on23"]);
    // And "since yesterday" (the feed readers follow) still carries it.
    const since = await changedRecords(store.db, { from: "2026-11-23", to: "2026-11-24" }, {});
    expect(since.items.map((r) => r.recordId)).toEqual(["late", "on23"]);
  });
});
