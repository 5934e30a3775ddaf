import { describe, expect, it } from "vitest";
import { markSource } from "../../src/store/admin.js";
import { openStore } from "../../src/store/db.js";
import { latestMarks } from "../../src/store/marks.js";
import { SqlNightStore } from "../../src/store/night-store.js";
import { marksOf } from "../../src/store/read/console.js";
import { storeFactories } from "./stores.js";

/**
 * P24: the mark in force is the latest decision. Each mark is written after the source's latest
 * (its own time, or 1 ms after the latest's when its host's clock says no later), in a
 * transaction that reads the latest: two marks of one source sent at once from two processes
 * (the console and a shell, two hosts on one PostgreSQL store) are both kept, one after the
 * other, and the second is the one in force.
 */
const factories = storeFactories();
const T = Date.parse("2026-11-05T15:00:00Z");

describe.each(factories)("marks in decision order ($name)", (f) => {
  it("P24: two marks of one source sent at once from two processes, with the same clock reading, are both kept one after the other; a later mark from a right clock keeps its own time", async () => {
    const loc = await f.fresh();
    const a = await openStore(loc);
    const b = await openStore(loc);
    try {
      await new SqlNightStore(a.db).syncSources(
        [{ id: "a.gov/0", government: "g", url: "https://a.gov/list", site: "a.gov" }],
        T - 86_400_000,
      );
      const night = "2026-11-05";
      const both = await Promise.all([
        markSource(a.db, {
          source: "a.gov/0",
          reading: false,
          reason: "r1",
          by: "dana",
          at: T,
          night,
        }),
        markSource(b.db, {
          source: "a.gov/0",
          reading: false,
          reason: "r2",
          by: "sam",
          at: T,
          night,
        }),
      ]);
      // Each read the other's or none: both changed the reason, both recorded.
      expect(both.map((o) => o.kind)).toEqual(["marked", "marked"]);
      const kept = await marksOf(a.db, "a.gov/0");
      expect(kept.map((m) => m.at)).toEqual([toIso(T + 1), toIso(T)]);
      // The one written second (at T + 1 ms) is in force for every reader.
      const latest = (await latestMarks(b.db, ["a.gov/0"])).get("a.gov/0");
      expect(latest?.at).toBe(toIso(T + 1));
      expect(latest?.reason).toBe(kept[0]?.reason);
      // A later decision from a host whose clock is right keeps the time it was made.
      expect(
        await markSource(a.db, {
          source: "a.gov/0",
          reading: true,
          by: "dana",
          at: T + 60_000,
          night,
        }),
      ).toMatchObject({ kind: "marked", reading: true });
      expect((await latestMarks(b.db, ["a.gov/0"])).get("a.gov/0")?.at).toBe(toIso(T + 60_000));
    } finally {
      await b.close();
      await a.close();
    }
  });
});

function toIso(ms: number): string {
  return new Date(ms).toISOString();
}
