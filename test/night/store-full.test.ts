import { expect, it } from "vitest";
import { ManualClock } from "../../src/clock.js";
import { MemoryJournal } from "../../src/net/memory-ports.js";
import { buildSimulation, MemoryNightStore, runSimulatedNight } from "../../src/night/simulate.js";

/**
 * The journal's row of a request could not be completed (its store's disk full): the night stops
 * there, exit 2 (make room), rather than go on asking sites for what it cannot record. Found by
 * an adversarial review: only a source's result that could not be committed stopped it.
 */
const NIGHT = "2026-11-05";

/** The journal's completion (after the request was sent) hits a full disk; commits still fit. */
class FullJournal extends MemoryJournal {
  override async complete(): Promise<boolean> {
    throw Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" });
  }
}

it("P27, P8: a store whose disk is full when the journal records a request stops the night as configuration (exit 2): nothing more is asked", async () => {
  const clock = new ManualClock();
  const sim = buildSimulation(clock, [{ site: "lane.org", latencyMs: 100, sources: 5 }]);
  const store = new MemoryNightStore();
  const got = await runSimulatedNight(clock, sim, store, {
    night: NIGHT,
    deadlineMs: 60 * 60_000,
    concurrency: 2,
    journal: new FullJournal(),
  }).then(
    (s) => ({ summary: s }),
    (e: unknown) => ({ error: e }),
  );
  expect(got).toHaveProperty("error");
  expect((got as { error: { code: string } }).error.code).toBe("E_CONFIG");
  expect(String((got as { error: unknown }).error)).toMatch(/its disk is full: make room/);
  // One request sent (its row could not be completed), and nothing after it.
  expect(sim.observed.map((r) => new URL(r.url).pathname)).toEqual(["/robots.txt"]);
});
