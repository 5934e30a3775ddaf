import { describe, expect, it } from "vitest";
import { type NightEnd, summaryRecord } from "../../src/cli/night-report.js";
import { ManualClock } from "../../src/clock.js";
import { runSimulatedNight } from "../../src/night/simulate.js";
import { addDays } from "../../src/policy/night-date.js";
import { nightTotals } from "../../src/store/admin.js";
import { openStore } from "../../src/store/db.js";
import { SqlNightStore } from "../../src/store/night-store.js";
import { storeFactories } from "../store/stores.js";
import { markNotRead } from "./marked-stores.js";
import { recheckNightOpts, redirectToBDown } from "./sim-answers.js";

/**
 * P13, P25: the night's summary says the deadline was reached only when the deadline cut
 * something. A recheck whose page answered with a redirect to a site down tonight is cut short
 * (its hop not sent), and a source of a site down tonight is not reached: neither is the
 * deadline's doing, on a night that ended with hours to spare.
 */
const N0 = "2026-11-05";
const DAY = 24 * 3600_000;

describe.each(storeFactories())("the summary's deadlineReached ($name)", (f) => {
  it("P13, P25, P15: a recheck cut short by its redirect's site down, and a source not asked as its site was down, are not the deadline's: deadlineReached is false; a night the deadline cut says true", async () => {
    const s = await openStore(await f.fresh());
    try {
      const store = new SqlNightStore(s.db);
      const clock = new ManualClock(Date.parse("2026-11-05T23:00:00Z"));
      const { sim, down } = redirectToBDown(clock, 2);
      const opts = recheckNightOpts();
      await runSimulatedNight(clock, sim, store, { ...opts, night: N0 });
      const m = await markNotRead(s.db, "a.org/0", clock.now(), N0, "tester");
      expect(m.kind).toBe("marked");
      const endOf = async (night: string, startedAt: number, deadlineAt: number) => {
        const { outcomes, checked, newRecords, ...counts } = await nightTotals(s.db, night);
        const end: NightEnd = {
          night,
          resumed: false,
          deadlineAt,
          alreadyDone: 0,
          skippedNotRead: 0,
          ...counts,
          outcomes: outcomes as NightEnd["outcomes"],
          planned: checked,
          newRecords,
          startedAt,
          endedAt: clock.now(),
        };
        return end;
      };
      // Night 1 (a recheck night): b.org down all night, hours to spare.
      await clock.advance(DAY);
      down.on = true;
      const n1 = addDays(N0, 1);
      const start1 = clock.now();
      await runSimulatedNight(clock, sim, store, { ...opts, night: n1 });
      const end1 = await endOf(n1, start1, start1 + opts.deadlineMs);
      expect(end1.outcomes, JSON.stringify(end1.outcomes)).toMatchObject({
        "cut-short": 1,
        unreached: 1,
        error: 1,
      });
      expect(end1.endedAt).toBeLessThan(end1.deadlineAt);
      expect(summaryRecord(end1)["deadlineReached"]).toBe(false);
      // Night 2 (a recheck night too), b.org up, and a time limit that cuts: the deadline's.
      await clock.advance(DAY);
      down.on = false;
      const n2 = addDays(N0, 2);
      const start2 = clock.now();
      await runSimulatedNight(clock, sim, store, { ...opts, deadlineMs: 1_000, night: n2 });
      const end2 = await endOf(n2, start2, start2 + 1_000);
      expect((end2.outcomes.unreached ?? 0) + (end2.outcomes["cut-short"] ?? 0)).toBeGreaterThan(0);
      expect(summaryRecord({ ...end2, endedAt: start2 })["deadlineReached"]).toBe(true);
    } finally {
      await s.close();
    }
  }, 60_000);
});
