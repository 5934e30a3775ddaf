import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.js";
import { buildSimulation, runSimulatedNight } from "../../src/night/simulate.js";
import { addDays } from "../../src/policy/night-date.js";
import { isRecheckNight } from "../../src/policy/recheck.js";
import { markedStores } from "../night/marked-stores.js";
import { recheckNightOpts, redirectToBDown, withPathDown } from "../night/sim-answers.js";

/**
 * Reviewer (revrecheck), P25 from the marked site's side: a page marked not read whose catalog
 * URL (on a.org) answers with a temporary redirect to another site (b.org). b.org is down for a
 * fortnight (its page that is read answers 503 after its retries, ahead of the recheck in b.org's
 * lane), so each recheck asks a.org's page, which answers (302), and its hop to b.org is not
 * sent: the recheck is recorded `unreached` (its site down). a.org's page was asked all the
 * same: that night's recheck happened. It must not be "owed" the next night, and the next, and
 * the next: P25 is up to three nights soon after, then once a week.
 */
const N0 = "2026-11-05";
const DAY = 24 * 3600_000;

const makers = markedStores(N0, "revrecheck");

describe.each(makers)("revrecheck: a recheck redirected to a site down ($name)", (maker) => {
  it("P25, P15, P13: a recheck whose page answered (a redirect to a site down tonight) is not owed again: a.org's marked page is asked on the calendar's nights only, not every night b.org is down", async () => {
    const { store, mark, close } = await maker.make();
    try {
      const clock = new ManualClock(Date.parse("2026-11-05T23:00:00Z"));
      const { sim, down } = redirectToBDown(clock, 1);
      const opts = recheckNightOpts();
      // Night 0: a.org's page is read (it redirects to b.org, which answers), then marked.
      const s0 = await runSimulatedNight(clock, sim, store, { ...opts, night: N0 });
      expect(s0.outcomes.ok, JSON.stringify(s0.outcomes)).toBe(2);
      await mark("a.org/0", clock.now());
      const asks: string[] = [];
      const outcomes: string[] = [];
      for (let k = 1; k <= 16; k++) {
        await clock.advance(DAY);
        // b.org down from night 4 on (maintenance for a fortnight).
        down.on = k >= 4;
        const from = sim.observed.length;
        const s = await runSimulatedNight(clock, sim, store, { ...opts, night: addDays(N0, k) });
        const n = sim.observed
          .slice(from)
          .filter((r) => r.site === "a.org" && new URL(r.url).pathname === "/list/0").length;
        if (n > 0) asks.push(`${k}:${n}`);
        outcomes.push(`${k}:${JSON.stringify(s.outcomes)}`);
      }
      const calendar = Array.from({ length: 16 }, (_, i) => i + 1).filter((k) =>
        isRecheckNight(N0, addDays(N0, k)),
      );
      expect(calendar).toEqual([1, 2, 3, 10]);
      // The calendar's nights only: the recheck of night 10 asked a.org's page (it answered).
      expect(asks, outcomes.join("\n")).toEqual(["1:1", "2:1", "3:1", "10:1"]);
    } finally {
      await close();
    }
  });
});

describe.each(makers)("revrecheck: a recheck its own site's outage kept from ($name)", (maker) => {
  it("P25, P13, P15: a recheck not asked (its own site down tonight) is owed the next night, its catalog URL written in another form than the one asked (WWW, :443) too", async () => {
    const { store, mark, close } = await maker.make();
    try {
      const clock = new ManualClock(Date.parse("2026-11-05T23:00:00Z"));
      const base = buildSimulation(clock, [{ site: "c.org", latencyMs: 100, sources: 2 }]);
      const marked = base.catalog.sources[1];
      if (marked === undefined) throw new Error("no source");
      marked.url = "https://WWW.c.org:443/list/1?page=0";
      const { sim, down } = withPathDown(clock, base, "c.org", "/list/0");
      const opts = recheckNightOpts();
      await runSimulatedNight(clock, sim, store, { ...opts, night: N0 });
      await mark("c.org/1", clock.now());
      const asks: string[] = [];
      for (let k = 1; k <= 12; k++) {
        await clock.advance(DAY);
        down.on = k === 10;
        const from = sim.observed.length;
        await runSimulatedNight(clock, sim, store, { ...opts, night: addDays(N0, k) });
        const n = sim.observed
          .slice(from)
          .filter((r) => new URL(r.url).pathname === "/list/1").length;
        if (n > 0) asks.push(`${k}:${n}`);
      }
      // Night 10's recheck not asked (its site down): owed, and asked on night 11.
      expect(asks).toEqual(["1:1", "2:1", "3:1", "11:1"]);
    } finally {
      await close();
    }
  });
});
