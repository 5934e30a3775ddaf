import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.js";
import { buildSimulation, runSimulatedNight } from "../../src/night/simulate.js";
import { addDays } from "../../src/policy/night-date.js";
import { markedStores } from "../night/marked-stores.js";
import { recheckNightOpts, withPathDown } from "../night/sim-answers.js";

/**
 * Reviewer (revrecheck), P25: "on up to three nights soon after, then once a week". A weekly
 * recheck owed since night 10 (its site down, night after night: the recheck not asked) and
 * reached on night 16 is followed by the calendar's recheck on night 17: the marked page asked
 * two nights running in the weekly phase.
 */
const N0 = "2026-11-05";
const DAY = 24 * 3600_000;

const makers = markedStores(N0, "revrecheck");

describe.each(makers)(
  "revrecheck: an owed recheck the night before the calendar's ($name)",
  (maker) => {
    it("P25, P13: a weekly recheck owed since night 10 and reached on night 16 is not asked again on night 17: never two nights running after the nights soon after", async () => {
      const { store, mark, close } = await maker.make();
      try {
        const clock = new ManualClock(Date.parse("2026-11-05T23:00:00Z"));
        const base = buildSimulation(clock, [{ site: "c.org", latencyMs: 100, sources: 2 }]);
        const { sim, down } = withPathDown(clock, base, "c.org", "/list/0");
        const opts = recheckNightOpts();
        await runSimulatedNight(clock, sim, store, { ...opts, night: N0 });
        await mark("c.org/1", clock.now());
        const nights: number[] = [];
        for (let k = 1; k <= 24; k++) {
          await clock.advance(DAY);
          // Down from night 10 to 15: the page read there answers 503 ahead of the recheck.
          down.on = k >= 10 && k <= 15;
          const from = sim.observed.length;
          await runSimulatedNight(clock, sim, store, { ...opts, night: addDays(N0, k) });
          if (sim.observed.slice(from).some((r) => new URL(r.url).pathname === "/list/1"))
            nights.push(k);
        }
        const weekly = nights.filter((k) => k > 3);
        for (let i = 1; i < weekly.length; i++)
          expect(
            (weekly[i] as number) - (weekly[i - 1] as number),
            `asked on nights ${nights.join(", ")}`,
          ).toBeGreaterThan(1);
      } finally {
        await close();
      }
    });
  },
);
