import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.js";
import { CounterIds } from "../../src/ids.js";
import { createFetcher } from "../../src/net/fetcher.js";
import { MemoryJournal, MemoryRobotsCache } from "../../src/net/memory-ports.js";
import type { Transport } from "../../src/net/types.js";
import { runNight } from "../../src/night/run-night.js";
import { buildSimulation, MemoryNightStore, simReader } from "../../src/night/simulate.js";
import type { SourceResult } from "../../src/night/types.js";
import { isRecheckNight } from "../../src/policy/recheck.js";
import { siteOf } from "../../src/policy/site.js";

/**
 * Review (revfixb): the rule (P20) judges the sites last heard from in the night. A night
 * stopped (or killed) before it could decide, its first sites' DNS failures recorded, and then
 * resumed while the outage goes on, judges only what the resumed run hears: its decision
 * relabels its own failures, and the failures recorded before the stop stay as their sites' no
 * (flags counted on them), although the same outage, uninterrupted, would have relabelled them.
 */
const NIGHT = "2026-11-05";

describe("review(revfixb): the offline decision across a resume", () => {
  it("P20, P23: a night stopped before its offline decision and resumed in the same outage leaves none of its sources as its site's DNS failure", async () => {
    const clock = new ManualClock();
    const dead = Array.from({ length: 12 }, (_, i) => ({
      site: `dead-${String(i).padStart(2, "0")}.org`,
      latencyMs: 10,
      sources: 1,
    }));
    const sim = buildSimulation(clock, dead);
    const transport: Transport = async () => ({
      kind: "failure",
      failure: "dns",
      message: "getaddrinfo ENOTFOUND",
    });
    const store = new MemoryNightStore();
    const deps = {
      store,
      clock,
      reader: simReader,
      validators: store,
      siteOf,
      isRecheckNight,
      makeFetcher: async (state: { deadlineAt: number }) =>
        createFetcher({
          clock,
          ids: new CounterIds(),
          journal: new MemoryJournal(),
          robotsCache: new MemoryRobotsCache(),
          transport,
          deadline: state.deadlineAt,
          night: NIGHT,
        }),
    };
    const drive = async <T>(run: Promise<T>): Promise<T> => {
      let settled = false;
      const p = run.finally(() => {
        settled = true;
      });
      p.catch(() => {});
      for (let steps = 0; !settled && steps < 1_000_000; steps++) {
        if (!(await clock.step())) await new Promise<void>((r) => setImmediate(r));
      }
      return p;
    };
    // The first run is stopped once four sites' failures are recorded (fewer than the rule's
    // five: no decision yet).
    const stop = new AbortController();
    const commit = store.commit.bind(store);
    let commits = 0;
    store.commit = async (n: string, r: SourceResult) => {
      const out = await commit(n, r);
      if (++commits === 4) stop.abort(new Error("stopped"));
      return out;
    };
    const first = await drive(
      runNight(sim.catalog, deps, {
        night: NIGHT,
        deadlineMs: 60 * 60_000,
        concurrency: 1,
        stop: stop.signal,
      }),
    );
    expect(first.checkerOffline).toBe(false);
    store.commit = commit;
    const ids = sim.catalog.sources.map((s) => s.id);
    const OUTAGE = new Set(["unreachable", "robots-unavailable"]);
    const before = ids.filter((id) => OUTAGE.has(store.outcomeOf(id, NIGHT)?.kind ?? ""));
    expect(before.length).toBeGreaterThanOrEqual(4);
    // Resumed in the same outage.
    const second = await drive(
      runNight(sim.catalog, deps, { night: NIGHT, deadlineMs: 60 * 60_000, concurrency: 1 }),
    );
    expect(second.checkerOffline).toBe(true);
    const left = ids.filter((id) => OUTAGE.has(store.outcomeOf(id, NIGHT)?.kind ?? ""));
    expect(left).toEqual([]);
  });
});
