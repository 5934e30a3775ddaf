import { describe, expect, it } from "vitest";
import { markSource } from "../../src/store/admin.js";
import { withCatalogImport } from "../../src/store/catalog-import.js";
import { openStore } from "../../src/store/db.js";
import { latestMarks } from "../../src/store/marks.js";
import { SqlNightStore } from "../../src/store/night-store.js";
import { storeFactories } from "../store/stores.js";

/**
 * revfixa (review of fixa, marks written by an import): a source put back in the catalog at the
 * address of one an import retires takes the retired one's marks when that one is not read
 * (CatalogImportTx.carryNotRead), "the later of both ids' in force" (sources/catalog-import.ts).
 * A source put back keeps its own marks: when its own latest decision (read) is later than the
 * retired one's "not read", that decision stays in force, yet carryNotRead answers true and the
 * import says "… is marked so with it (`nor mark … --read` undoes it)": a mark it did not make.
 */
const factories = storeFactories();
const T = Date.parse("2026-11-05T15:00:00Z");
const night = "2026-11-05";

describe.each(factories)("revfixa: marks carried by an import ($name)", (f) => {
  it("P24: a source put back at a retired one's address, whose own later decision is read, is not said to be marked not read with it (its own mark stays in force)", async () => {
    const loc = await f.fresh();
    const store = await openStore(loc);
    try {
      await new SqlNightStore(store.db).syncSources(
        [
          { id: "a.gov/back", government: "g", url: "https://a.gov/list", site: "a.gov" },
          { id: "a.gov/gone", government: "g", url: "https://a.gov/list", site: "a.gov" },
        ],
        T - 86_400_000,
      );
      const mark = (source: string, reading: boolean, at: number) =>
        markSource(store.db, {
          source,
          reading,
          ...(reading ? {} : { reason: "the clerk asked us to stop" }),
          by: "dana",
          at,
          night,
        });
      expect(await mark("a.gov/back", false, T)).toMatchObject({ kind: "marked" });
      expect(await mark("a.gov/gone", false, T + 60_000)).toMatchObject({ kind: "marked" });
      expect(await mark("a.gov/back", true, T + 120_000)).toMatchObject({ kind: "marked" });
      const carried = await withCatalogImport(store.db, new Date(T + 180_000).toISOString(), (tx) =>
        tx.carryNotRead("a.gov/gone", "a.gov/back"),
      );
      const latest = (await latestMarks(store.db, ["a.gov/back"])).get("a.gov/back");
      // Its own later decision is in force ...
      expect(Number(latest?.reading)).toBe(1);
      // ... so the import does not say it was marked not read with the retired one.
      expect(carried).toBe(false);
    } finally {
      await store.close();
    }
  });
});
