import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.js";
import { buildSimulation, MemoryNightStore, runSimulatedNight } from "../../src/night/simulate.js";
import { addDays } from "../../src/policy/night-date.js";
import { isRecheckNight } from "../../src/policy/recheck.js";
import { recheckNightOpts } from "../night/sim-answers.js";

/**
 * Outside tester (tclock): the recheck calendar (P25) and the night's time limit (P13). A
 * source marked not read is rechecked on nights 1–3 after its marking, then on night 10, 17, …
 * docs/promises.md P25: "One the time limit kept from being reached goes first the next night,
 * as every source not reached does (P13)." A weekly recheck the deadline kept from its page
 * must then be asked the night after, not left for a week more.
 */
const NIGHT = "2026-11-05";
const DAY = 24 * 3600_000;

describe("tclock: a weekly recheck the deadline kept from being reached", () => {
  it("P25, P13: a recheck not reached on its night (night 10 after the marking) goes first the next night, not a week later", async () => {
    const clock = new ManualClock();
    const sim = buildSimulation(clock, [{ site: "back.org", latencyMs: 100, sources: 2 }]);
    const store = new MemoryNightStore();
    const opts = recheckNightOpts();
    const page0 = (from: number) =>
      sim.observed.slice(from).filter((r) => new URL(r.url).pathname === "/list/0").length;
    await runSimulatedNight(clock, sim, store, { ...opts, night: NIGHT });
    store.mark("back.org/0", false, NIGHT, "said no in its rules");
    // Nights 1 … 9: rechecked on 1, 2 and 3 only, as the calendar says.
    for (let d = 1; d <= 9; d++) {
      await clock.advance(DAY);
      const before = sim.observed.length;
      await runSimulatedNight(clock, sim, store, { ...opts, night: addDays(NIGHT, d) });
      expect(page0(before), addDays(NIGHT, d)).toBe(
        isRecheckNight(NIGHT, addDays(NIGHT, d)) ? 1 : 0,
      );
    }
    // Night 10, the weekly recheck: a time limit so short that the site's robots.txt alone is
    // asked (the page read there and the recheck after it are not reached).
    const ten = addDays(NIGHT, 10);
    expect(isRecheckNight(NIGHT, ten)).toBe(true);
    await clock.advance(DAY);
    let before = sim.observed.length;
    await runSimulatedNight(clock, sim, store, { ...opts, deadlineMs: 1_000, night: ten });
    expect(page0(before)).toBe(0);
    const tenth = store.outcomeOf("back.org/0", ten)?.kind;
    expect(tenth, "the recheck is recorded not reached on night 10").toBe("unreached");
    // Night 11, a night of ordinary length: the recheck not reached goes first.
    const eleven = addDays(NIGHT, 11);
    await clock.advance(DAY);
    before = sim.observed.length;
    await runSimulatedNight(clock, sim, store, { ...opts, night: eleven });
    expect(page0(before), "the recheck owed since night 10 is asked on night 11").toBe(1);
  });

  it("P25: a weekly recheck whose night did not run at all (the checker off on night 10) is asked on the next night that runs, not two weeks after the last", async () => {
    const clock = new ManualClock();
    const sim = buildSimulation(clock, [{ site: "off.org", latencyMs: 100, sources: 2 }]);
    const store = new MemoryNightStore();
    const opts = recheckNightOpts();
    const page0 = (from: number) =>
      sim.observed.slice(from).filter((r) => new URL(r.url).pathname === "/list/0").length;
    await runSimulatedNight(clock, sim, store, { ...opts, night: NIGHT });
    store.mark("off.org/0", false, NIGHT, "said no in its rules");
    for (let d = 1; d <= 9; d++) {
      await clock.advance(DAY);
      await runSimulatedNight(clock, sim, store, { ...opts, night: addDays(NIGHT, d) });
    }
    // Night 10 (the weekly recheck) never runs: the machine is off that day.
    await clock.advance(2 * DAY);
    const before = sim.observed.length;
    await runSimulatedNight(clock, sim, store, { ...opts, night: addDays(NIGHT, 11) });
    // Last asked on night 3; on main the next recheck is night 17, two weeks after it.
    expect(page0(before), "the weekly recheck owed since night 10 is asked on night 11").toBe(1);
  });
});
