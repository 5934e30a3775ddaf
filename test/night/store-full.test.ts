import { expect, it } from "vitest";
import { ManualClock } from "../../src/clock.js";
import { CounterIds } from "../../src/ids.js";
import { createFetcher } from "../../src/net/fetcher.js";
import { MemoryJournal, MemoryRobotsCache } from "../../src/net/memory-ports.js";
import { runNight } from "../../src/night/run-night.js";
import { buildSimulation, MemoryNightStore, simReader } from "../../src/night/simulate.js";
import { isRecheckNight } from "../../src/policy/recheck.js";
import { siteOf } from "../../src/policy/site.js";

/**
 * The journal's row of a request could not be completed (its store's disk full): the night stops
 * there, exit 2 (make room), rather than go on asking sites for what it cannot record. Found by
 * an adversarial review: only a source's result that could not be committed stopped it.
 */
const NIGHT = "2026-11-05";

/** The journal's completion (after the request was sent) hits a full disk; commits still fit. */
class FullJournal extends MemoryJournal {
  override async complete(): Promise<void> {
    throw Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" });
  }
}

it("P27, P8: a store whose disk is full when the journal records a request stops the night as configuration (exit 2): nothing more is asked", async () => {
  const clock = new ManualClock();
  const sim = buildSimulation(clock, [{ site: "lane.org", latencyMs: 100, sources: 5 }]);
  const store = new MemoryNightStore();
  let settled = false;
  const run = runNight(
    sim.catalog,
    {
      store,
      clock,
      reader: simReader,
      validators: store,
      siteOf,
      isRecheckNight,
      makeFetcher: async (state) =>
        createFetcher({
          clock,
          ids: new CounterIds(),
          journal: new FullJournal(),
          robotsCache: new MemoryRobotsCache(),
          transport: sim.transport,
          deadline: state.deadlineAt,
          night: NIGHT,
        }),
    },
    { night: NIGHT, deadlineMs: 60 * 60_000, concurrency: 2 },
  ).finally(() => {
    settled = true;
  });
  run.catch(() => {});
  for (let steps = 0; !settled && steps < 1_000_000; steps++) {
    if (!(await clock.step())) await new Promise<void>((r) => setImmediate(r));
  }
  const got = await run.then(
    (s) => ({ summary: s }),
    (e: unknown) => ({ error: e }),
  );
  expect(got).toHaveProperty("error");
  expect((got as { error: { code: string } }).error.code).toBe("E_CONFIG");
  expect(String((got as { error: unknown }).error)).toMatch(/its disk is full: make room/);
  // One request sent (its row could not be completed), and nothing after it.
  expect(sim.observed.map((r) => new URL(r.url).pathname)).toEqual(["/robots.txt"]);
});
