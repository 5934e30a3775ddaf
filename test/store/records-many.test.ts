import { describe, expect, it } from "vitest";
import type { SourceResult } from "../../src/night/types.js";
import { openStore } from "../../src/store/db.js";
import { SqlNightStore } from "../../src/store/night-store.js";
import { storeFactories } from "./stores.js";

/**
 * Review of cd5ae26 (the records insert prepared once per row count): no records, one chunk
 * short, a chunk exactly, several chunks and a short one, duplicates in one answer, records
 * known from an earlier night; each record stored once and counted new once, on both stores.
 */
const factories = storeFactories();

const T0 = Date.parse("2026-11-05T06:00:00Z");

function result(ids: number[]): SourceResult {
  return {
    sourceId: "a.gov/0",
    // At one address every night: the list read before, so what it shows that is not stored is new.
    outcome: { kind: "ok", url: "https://a.gov/" },
    records: ids.map((i) => ({
      id: `r${i}`,
      title: `item ${i}`,
      ...(i % 2 === 0 ? { date: "2026-11-05", url: `https://a.gov/${i}` } : {}),
      ...(i % 3 === 0 ? { kind: "agenda" } : {}),
    })),
    validators: [],
    flags: [],
    startedAt: T0,
    endedAt: T0 + 500,
  };
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

describe.each(factories)("records of one source, any number ($name)", (factory) => {
  it("P6: 0, 1, 199, 200, 450 (with duplicates) and 1,000 records: each new one counted once", async () => {
    const s = await openStore(await factory.migrated());
    try {
      const store = new SqlNightStore(s.db);
      await store.syncSources(
        [{ id: "a.gov/0", government: "g", url: "https://a.gov/", site: "a.gov" }],
        T0,
      );
      const nights: [number[], number][] = [
        [[], 0],
        [[0], 1],
        [range(0, 199), 198],
        [range(0, 200), 1],
        [[...range(0, 450), ...range(100, 300)], 250],
        [range(0, 1000), 550],
        [range(0, 1000), 0],
      ];
      for (const [i, [ids, expected]] of nights.entries()) {
        const night = `2026-11-${String(5 + i).padStart(2, "0")}`;
        await store.openNight(night, T0, T0 + 3600_000);
        expect(await store.commit(night, result(ids))).toEqual({ newRecords: expected });
      }
      const h = (await store.histories("2026-11-12", ["a.gov/0"])).get("a.gov/0");
      expect(h?.recordsKnown).toBe(1000);
    } finally {
      await s.close();
    }
  });
});
