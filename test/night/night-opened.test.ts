import { expect, it } from "vitest";
import { ManualClock } from "../../src/clock.js";
import { buildSimulation, MemoryNightStore, runSimulatedNight } from "../../src/night/simulate.js";

/**
 * P13: a command that joins a night another process opened a moment before (both read no night
 * under way, one inserted it first) is told the night as the store keeps it: resumed, under
 * that night's deadline, not the one it asked for. An outside tester's two `nor night`s started
 * together on PostgreSQL each said "starting" with its own deadline.
 */
const NIGHT = "2026-11-05";

it("P13: the night as the store opened it is said to the command: joined, with the stored deadline", async () => {
  const clock = new ManualClock();
  const sim = buildSimulation(clock, [{ site: "lane.org", latencyMs: 100, sources: 1 }]);
  const store = new MemoryNightStore();
  // Another process opened tonight first, with a 2 h time limit.
  const theirs = clock.now() + 2 * 60 * 60_000;
  await store.openNight(NIGHT, clock.now(), theirs);
  const opened: { resumed: boolean; deadlineAt: number }[] = [];
  await runSimulatedNight(clock, sim, store, {
    night: NIGHT,
    deadlineMs: 20_000,
    concurrency: 1,
    onOpened: (s) => opened.push(s),
  });
  expect(opened).toEqual([{ resumed: true, deadlineAt: theirs }]);
});
