import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { openStore, type StoreLocation } from "../../src/store/db.js";
import { SqlNightStore } from "../../src/store/night-store.js";
import { leftAt, storeFactories } from "./stores.js";

/**
 * A store an older version left at migration 013 (page_reads without ids), its page read kept
 * with its record, opened by this version: migration 014 runs over it (SQLite and PostgreSQL),
 * the old row is never counted (its ids were not kept), and the full read that follows is.
 */
const factories = storeFactories();

async function leftAt013(loc: StoreLocation): Promise<void> {
  await leftAt(loc, "013-page-reads", async (db) => {
    await sql`insert into records (source_id, record_id, title, first_seen_night, first_seen_at)
      values ('s', 'a', 't', '2026-11-04', '2026-11-04T06:00:00Z')`.execute(db);
    await sql`insert into page_reads (source_id, url, key, records, night)
      values ('s', 'u', 'k', 1, '2026-11-04')`.execute(db);
  });
}

describe.each(factories)("a store left at migration 013 ($name)", (f) => {
  it("P8, P12: opened by this version, its page read from before 014 is not counted; the full read that follows is", async () => {
    const loc = await f.fresh();
    await leftAt013(loc);
    const s = await openStore(loc);
    try {
      const store = new SqlNightStore(s.db);
      expect(await store.pageRead("s", "u")).toEqual({
        url: "u",
        key: "k",
        records: 1,
        allStored: false,
      });
      const committed = await store.commit("2026-11-05", {
        sourceId: "s",
        outcome: { kind: "unchanged" },
        records: [{ id: "a", title: "t" }],
        validators: [],
        flags: [],
        startedAt: Date.parse("2026-11-05T06:00:00Z"),
        endedAt: Date.parse("2026-11-05T06:00:01Z"),
        pageRead: { url: "u", key: "k", records: 1, ids: ["a"] },
      });
      expect(committed.newRecords).toBe(0);
      expect(await store.pageRead("s", "u")).toEqual({
        url: "u",
        key: "k",
        records: 1,
        allStored: true,
      });
    } finally {
      await s.close();
    }
  }, 60_000);
});
