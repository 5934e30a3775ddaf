import { describe, expect, it } from "vitest";
import { nightOf } from "../../src/policy/night-date.js";
import { markSource } from "../../src/store/admin.js";
import { openStore } from "../../src/store/db.js";
import { latestMarks } from "../../src/store/marks.js";
import { SqlNightStore } from "../../src/store/night-store.js";
import { marksOf } from "../../src/store/read/console.js";
import { readStatuses } from "../../src/web/public/state.js";
import { storeFactories } from "./stores.js";

/**
 * P24, P26: a mark written on a host whose clock runs far ahead (a year, here) stays the latest
 * decision until a later one is made, and each later mark must still be in force. Before, a
 * later mark was ordered after it by its time itself (1 ms after the far one), so the directory
 * said "since" a year ahead for a decision made today, and the console's history showed it so.
 * Each mark now keeps the time its host gave it, to be shown, apart from its place in the order.
 */
const factories = storeFactories();
const T = Date.parse("2026-11-05T15:00:00Z");
const YEAR = 365 * 86_400_000;

describe.each(factories)("the time a mark shows ($name)", (f) => {
  it("P24, P26: a mark made after one from a host a year ahead is in force and shows its own host's time, on the public page and in the console's history", async () => {
    const loc = await f.fresh();
    const s = await openStore(loc);
    try {
      const store = new SqlNightStore(s.db);
      await store.syncSources(
        [{ id: "a.gov/0", government: "g", url: "https://a.gov/list", site: "a.gov" }],
        T - 86_400_000,
      );
      // A shell on a machine whose clock is a year ahead: not read.
      expect(
        await markSource(s.db, {
          source: "a.gov/0",
          reading: false,
          reason: "the clerk asked us to stop",
          by: "dana",
          at: T + YEAR,
          night: "2027-11-05",
        }),
      ).toMatchObject({ kind: "marked", reading: false });
      // Ten minutes later, at the console (its clock right): read it again; then not read again.
      expect(
        await markSource(s.db, {
          source: "a.gov/0",
          reading: true,
          by: "sam",
          at: T + 600_000,
          night: "2026-11-05",
        }),
      ).toMatchObject({ kind: "marked", reading: true });
      expect(
        await markSource(s.db, {
          source: "a.gov/0",
          reading: false,
          reason: "the page moved behind a login",
          by: "sam",
          at: T + 1_200_000,
          night: "2026-11-05",
        }),
      ).toMatchObject({ kind: "marked", reading: false });

      // The order: the last decision is in force.
      const latest = (await latestMarks(s.db, ["a.gov/0"])).get("a.gov/0");
      expect({ reading: Number(latest?.reading), reason: latest?.reason }).toEqual({
        reading: 0,
        reason: "the page moved behind a login",
      });
      // The directory: not read since the console's own time, not a year ahead.
      const status = (
        await readStatuses(s.db, [{ id: "a.gov/0", url: "https://a.gov/list" }], T + 1_300_000)
      ).get("a.gov/0");
      expect(status).toEqual({
        reading: false,
        reason: "the page moved behind a login",
        since: new Date(T + 1_200_000).toISOString(),
      });
      // The console's history, newest first, each at the time its host gave it.
      const history = (await marksOf(s.db, "a.gov/0")).map((m) => ({
        by: m.by,
        reading: Number(m.reading),
        shown: m.made_at ?? m.at,
      }));
      expect(history).toEqual([
        { by: "sam", reading: 0, shown: new Date(T + 1_200_000).toISOString() },
        { by: "sam", reading: 1, shown: new Date(T + 600_000).toISOString() },
        { by: "dana", reading: 0, shown: new Date(T + YEAR).toISOString() },
      ]);
      // Marked again for the same reason: "already", since the console's own time.
      expect(
        await markSource(s.db, {
          source: "a.gov/0",
          reading: false,
          reason: "the page moved behind a login",
          by: "sam",
          at: T + 1_800_000,
          night: "2026-11-05",
        }),
      ).toMatchObject({ kind: "already", since: new Date(T + 1_200_000).toISOString() });
    } finally {
      await s.close();
    }
  });

  it.runIf(f.name === "postgres")(
    "P25 (PostgreSQL): a mark from a host whose clock runs a year ahead counts its rechecks from the database server's tonight, not from a night a year away",
    async () => {
      const s = await openStore(await f.fresh());
      try {
        const store = new SqlNightStore(s.db);
        const before = nightOf(Date.now());
        await store.syncSources(
          [{ id: "b.gov/0", government: "g", url: "https://b.gov/list", site: "b.gov" }],
          Date.now() - 86_400_000,
        );
        const ahead = Date.now() + YEAR;
        expect(
          await markSource(s.db, {
            source: "b.gov/0",
            reading: false,
            reason: "the clerk asked us to stop",
            by: "dana",
            at: ahead,
            night: nightOf(ahead),
          }),
        ).toMatchObject({ kind: "marked", reading: false });
        const after = nightOf(Date.now());
        const night = (await latestMarks(s.db, ["b.gov/0"])).get("b.gov/0")?.night;
        expect([before, after]).toContain(night);
      } finally {
        await s.close();
      }
    },
  );
});
