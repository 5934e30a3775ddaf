import { describe, expect, it } from "vitest";
import { markSource } from "../../src/store/admin.js";
import { openStore } from "../../src/store/db.js";
import { latestMarks } from "../../src/store/marks.js";
import { SqlNightStore } from "../../src/store/night-store.js";
import { storeFactories } from "../store/stores.js";

/**
 * tdurable (outside tester): P24 says whether a source is read is the latest decision a person
 * made. The store takes "latest" as the mark with the greatest `at`, and `at` is the wall clock
 * of whichever host wrote it (`nor mark` reads systemClock, src/cli/commands/mark.ts; the console
 * its own server's), not the store's order. Two people (or one, at the console and then in a
 * shell on another machine sharing the PostgreSQL store), the second machine's clock a minute
 * behind the first's: the second, later decision is recorded ("marked") and then ignored by every
 * reader (the night, `nor status`, the directory), which go on with the first. The same on one
 * machine when its clock is stepped back (NTP) between two marks. The nights' own clock is the
 * database's on PostgreSQL for exactly this reason (store-clock.ts); marks are not held to it.
 */
const factories = storeFactories();
const T = Date.parse("2026-11-05T15:00:00Z");

describe.each(factories)("tdurable: the order of marks ($name)", (f) => {
  it("P24: a person's later mark made on a host whose clock is a minute behind the first's is the one in force (the night, nor status and the directory read it), not the earlier one", async () => {
    const loc = await f.fresh();
    const console = await openStore(loc);
    const shell = await openStore(loc);
    try {
      const store = new SqlNightStore(console.db);
      await store.syncSources(
        [{ id: "a.gov/0", government: "g", url: "https://a.gov/list", site: "a.gov" }],
        T - 86_400_000,
      );
      // First decision, at the console (its host's clock right): not read.
      expect(
        await markSource(console.db, {
          source: "a.gov/0",
          reading: false,
          reason: "the clerk asked us to stop",
          by: "dana",
          at: T,
          night: "2026-11-05",
        }),
      ).toMatchObject({ kind: "marked", reading: false });
      // Twenty seconds later, the clerk writes again: read it after all. Marked from a shell on
      // a machine whose clock is a minute behind (T + 20 s real time reads T - 40 s there).
      expect(
        await markSource(shell.db, {
          source: "a.gov/0",
          reading: true,
          by: "sam",
          at: T + 20_000 - 60_000,
          night: "2026-11-05",
        }),
      ).toMatchObject({ kind: "marked", reading: true });
      // The later decision is the one in force.
      const latest = (await latestMarks(shell.db, ["a.gov/0"])).get("a.gov/0");
      expect({ reading: Number(latest?.reading), by: latest?.by }).toEqual({
        reading: 1,
        by: "sam",
      });
      const h = (await store.histories("2026-11-06", ["a.gov/0"])).get("a.gov/0");
      expect(h?.reading).toBe(true);
    } finally {
      await shell.close();
      await console.close();
    }
  });
});
