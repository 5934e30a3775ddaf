import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.js";
import { buildSimulation, runSimulatedNight, type Simulation } from "../../src/night/simulate.js";
import { addDays } from "../../src/policy/night-date.js";
import { isRecheckNight } from "../../src/policy/recheck.js";
import { markedStores } from "./marked-stores.js";
import { recheckNightOpts } from "./sim-answers.js";

/**
 * P25, P13: a recheck night whose recheck was not reached (the deadline, or the checker did not
 * run that night) owes one recheck, asked on the next night that runs; never more than that
 * (a recheck reached owes nothing until the calendar's next night, a night run again asks it
 * once), read from the store's nights: the same over memory, SQLite and PostgreSQL.
 */
const N0 = "2026-11-05";
const DAY = 24 * 3600_000;

const makers = markedStores(N0, "tester");

/** Requests of the marked page (`/list/0`) since `from`. */
const asksOf = (sim: Simulation, from: number) =>
  sim.observed.slice(from).filter((r) => new URL(r.url).pathname === "/list/0").length;

describe.each(makers)("a recheck owed ($name)", (maker) => {
  it("P25, P13: one not reached (the deadline, twice) is asked the next night it can be, once; then the calendar's nights only; one whose night did not run is asked the next night that runs", async () => {
    const { store, mark, close } = await maker.make();
    try {
      const clock = new ManualClock(Date.parse("2026-11-05T23:00:00Z"));
      const sim = buildSimulation(clock, [{ site: "owed.org", latencyMs: 100, sources: 2 }]);
      const opts = recheckNightOpts();
      await runSimulatedNight(clock, sim, store, { ...opts, night: N0 });
      await mark("owed.org/0", clock.now());
      // Night by night: the time limit (short: robots.txt alone fits), and whether the night
      // runs at all (24: the checker off). Night 12 runs twice (a second command).
      const short = new Set([10, 11]);
      const off = new Set([24]);
      const asks: number[] = [];
      let again = -1;
      for (let k = 1; k <= 26; k++) {
        await clock.advance(DAY);
        if (off.has(k)) {
          asks.push(0);
          continue;
        }
        const night = addDays(N0, k);
        const from = sim.observed.length;
        const deadlineMs = short.has(k) ? 1_000 : opts.deadlineMs;
        await runSimulatedNight(clock, sim, store, { ...opts, deadlineMs, night });
        if (k === 12) {
          const more = sim.observed.length;
          await runSimulatedNight(clock, sim, store, { ...opts, night });
          again = asksOf(sim, more);
        }
        asks.push(asksOf(sim, from));
      }
      const calendar = asks.map((_, i) => (isRecheckNight(N0, addDays(N0, i + 1)) ? 1 : 0));
      // The calendar: 1, 2, 3, 10, 17, 24.
      expect(calendar.flatMap((c, i) => (c === 1 ? [i + 1] : []))).toEqual([1, 2, 3, 10, 17, 24]);
      // Asked: 1, 2, 3; not on 10 nor 11 (not reached), on 12 (owed), 17; 25 (24 owed).
      expect(asks.flatMap((c, i) => (c > 0 ? [`${i + 1}:${c}`] : []))).toEqual([
        "1:1",
        "2:1",
        "3:1",
        "12:1",
        "17:1",
        "25:1",
      ]);
      expect(again, "night 12 run again asks nothing more").toBe(0);
      const hs = await store.histories(addDays(N0, 27), ["owed.org/0", "owed.org/1"]);
      expect(hs.get("owed.org/0")).toMatchObject({ reading: false, markedNight: N0 });
      expect(hs.get("owed.org/0")?.lastReachedNight).toBe(addDays(N0, 25));
      // Read for a source read every night too (a mark made while a night runs finds it).
      expect(hs.get("owed.org/1")?.lastReachedNight).toBe(addDays(N0, 26));
      // Not reached on night 11 (the time limit), night 10's and 11's outcomes say so.
      const h12 = (await store.histories(addDays(N0, 12), ["owed.org/0"])).get("owed.org/0");
      expect(h12?.lastReachedNight).toBe(addDays(N0, 3));
    } finally {
      await close();
    }
  }, 120_000);

  it("P25, P18: a recheck robots.txt disallows is not asked, and that is its night's answer: nothing is owed, so no night between the calendar's asks its site anything for it", async () => {
    const { store, mark, close } = await maker.make();
    try {
      const clock = new ManualClock(Date.parse("2026-11-05T23:00:00Z"));
      // Only the marked page's site (its one source): robots.txt is read on recheck nights only.
      const sim = buildSimulation(clock, [
        {
          site: "shut.org",
          latencyMs: 100,
          sources: 1,
          robotsTxt: "User-agent: *\nDisallow: /list/\n",
        },
      ]);
      const opts = recheckNightOpts();
      await runSimulatedNight(clock, sim, store, { ...opts, night: N0 });
      await mark("shut.org/0", clock.now());
      const nightsAsked: number[] = [];
      for (let k = 1; k <= 18; k++) {
        await clock.advance(DAY);
        const from = sim.observed.length;
        await runSimulatedNight(clock, sim, store, { ...opts, night: addDays(N0, k) });
        if (sim.observed.length > from) nightsAsked.push(k);
        expect(asksOf(sim, from), `night ${k}: the page itself never`).toBe(0);
      }
      expect(nightsAsked).toEqual([1, 2, 3, 10, 17]);
    } finally {
      await close();
    }
  }, 120_000);

  it("P25, P21, P13: a recheck last night's time limit cut (its site's page read) comes after that page the next night: a no it meets does not cost the page its night", async () => {
    const { store, mark, close } = await maker.make();
    try {
      const clock = new ManualClock(Date.parse("2026-11-05T23:00:00Z"));
      const spec = { site: "order.org", latencyMs: 100, sources: 2, saysNo: false };
      const sim = buildSimulation(clock, [spec]);
      const opts = recheckNightOpts();
      await runSimulatedNight(clock, sim, store, { ...opts, night: N0 });
      await mark("order.org/0", clock.now());
      const pathsOf = (from: number) =>
        sim.observed
          .slice(from)
          .map((r) => new URL(r.url).pathname)
          .filter((p) => p !== "/robots.txt");
      for (let k = 1; k <= 10; k++) {
        await clock.advance(DAY);
        const from = sim.observed.length;
        // Night 10, a recheck night: time for robots.txt and the page read, not the recheck.
        const deadlineMs = k === 10 ? 3_000 : opts.deadlineMs;
        await runSimulatedNight(clock, sim, store, { ...opts, deadlineMs, night: addDays(N0, k) });
        if (k === 10) expect(pathsOf(from), "night 10").toEqual(["/list/1"]);
      }
      // Night 11: the recheck is owed; the site now says no to every page.
      spec.saysNo = true;
      await clock.advance(DAY);
      const from = sim.observed.length;
      await runSimulatedNight(clock, sim, store, { ...opts, night: addDays(N0, 11) });
      expect(pathsOf(from)[0], "the page read is asked first").toBe("/list/1");
    } finally {
      await close();
    }
  }, 120_000);
});
