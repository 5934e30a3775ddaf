import { describe, expect, it } from "vitest";
import { markSource } from "../../src/store/admin.js";
import { openStore } from "../../src/store/db.js";
import { SqlNightStore } from "../../src/store/night-store.js";
import { storeFactories } from "../store/stores.js";

/**
 * revfixa (review of fixa): P25's rechecks count from the night of the first mark of a source's
 * run of "not read" marks; one made again with another reason does not start them over. The
 * night plans from marksInForce (store/marks.ts: the night of the run's first mark, by `at`) and
 * checks again at the source's turn (night-store.ts sourceNowColumns: the least night of the
 * run's marks). Those differ when a later mark of the run carries an earlier night, which fixa
 * made an everyday case: a host whose clock is behind, past New York's midnight on the first
 * host and not yet on its own, marks it not read again with another reason; its mark is now kept
 * after the first (markAt), with its host's night, the day before. The plan and the turn then
 * count the rechecks from two nights (and `--night` given earlier does the same).
 */
const factories = storeFactories();
const T = Date.parse("2026-11-06T05:00:30Z"); // 00:00:30 in New York, 2026-11-06

describe.each(factories)("revfixa: the night rechecks count from ($name)", (f) => {
  it("P24, P25: a mark made again (another reason) after the first of its run, from a host whose clock is behind (its night the day before), leaves the rechecks counted from the first mark's night, at planning and at the source's turn alike", async () => {
    const loc = await f.fresh();
    const right = await openStore(loc);
    const behind = await openStore(loc);
    try {
      const store = new SqlNightStore(right.db);
      await store.syncSources(
        [{ id: "a.gov/0", government: "g", url: "https://a.gov/list", site: "a.gov" }],
        T - 86_400_000,
      );
      expect(
        await markSource(right.db, {
          source: "a.gov/0",
          reading: false,
          reason: "the clerk asked us to stop",
          by: "dana",
          at: T,
          night: "2026-11-06",
        }),
      ).toMatchObject({ kind: "marked" });
      // Twenty seconds later, a minute behind: 23:59:50 on 2026-11-05 there.
      expect(
        await markSource(behind.db, {
          source: "a.gov/0",
          reading: false,
          reason: "the clerk wrote again: stop until March",
          by: "sam",
          at: T + 20_000 - 60_000,
          night: "2026-11-05",
        }),
      ).toMatchObject({ kind: "marked" });
      const night = "2026-11-07";
      const planned = (await store.histories(night, ["a.gov/0"])).get("a.gov/0");
      const turn = await store.sourceNow(night, "a.gov/0");
      expect(planned?.reading).toBe(false);
      expect(planned?.markedNight).toBe("2026-11-06");
      expect(turn.markedNight).toBe(planned?.markedNight);
    } finally {
      await behind.close();
      await right.close();
    }
  });
});
