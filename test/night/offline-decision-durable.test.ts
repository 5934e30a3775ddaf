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
 * P20, P23 across a kill at any moment: once the store holds any trace of the night's decision
 * that the checker is offline (a source recorded `checker-offline`), none of the sources that
 * decision rests on is still recorded as its site's failure, even one whose commit was under
 * way while the decision was made (another lane's). A kill can come between any two writes, and
 * a resumed night neither asks nor relabels a source that has an outcome
 * (test/review/tdurable-offline-kill.test.ts is the same with the real CLI and a `kill -9`).
 */
const NIGHT = "2026-11-05";
const OUTAGE = new Set(["unreachable", "robots-unavailable", "recheck-still-no"]);

describe("the checker-offline decision, durable with its relabel (run-night)", () => {
  it("P20, P23: after every write of the night, a source recorded checker-offline means no source the decision rests on is left as its site's failure, a commit under way when it was made included", async () => {
    const clock = new ManualClock();
    const dead = Array.from({ length: 12 }, (_, i) => ({
      site: `dead-${i}.org`,
      latencyMs: 10,
      sources: 1,
    }));
    const sim = buildSimulation(clock, [...dead, { site: "live.org", latencyMs: 100, sources: 2 }]);
    const transport: Transport = async (req) =>
      siteOf(req.url).startsWith("dead-")
        ? { kind: "failure", failure: "dns", message: "getaddrinfo ENOTFOUND" }
        : sim.transport(req);
    const store = new MemoryNightStore();
    const ids = sim.catalog.sources.map((s) => s.id);
    const broken: string[] = [];
    let writes = 0;
    let offlineSeen = false;
    /** What a kill right now would leave. */
    const look = (after: string) => {
      writes++;
      const kinds = ids.map((id) => [id, store.outcomeOf(id, NIGHT)?.kind] as const);
      if (!kinds.some(([, k]) => k === "checker-offline")) return;
      offlineSeen = true;
      const left = kinds.filter(([, k]) => k !== undefined && OUTAGE.has(k)).map(([id]) => id);
      if (left.length > 0)
        broken.push(`after ${after}: ${left.join(", ")} still the sites' failure`);
    };
    // Each commit lands a little late (a group commit's batch), so one lane's is under way while
    // another lane's source makes the decision.
    const commit = store.commit.bind(store);
    store.commit = async (n: string, r: SourceResult) => {
      for (let i = 0; i < 5; i++) await new Promise<void>((res) => setImmediate(res));
      const out = await commit(n, r);
      look(`${r.sourceId}'s commit (${r.outcome.kind})`);
      return out;
    };
    const relabel = store.relabelCheckerOffline.bind(store);
    store.relabelCheckerOffline = async (n, some, note) => {
      await relabel(n, some, note);
      look(`the relabel of ${some.join(", ")}`);
    };
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
            journal: new MemoryJournal(),
            robotsCache: new MemoryRobotsCache(),
            transport,
            deadline: state.deadlineAt,
            night: NIGHT,
          }),
      },
      { night: NIGHT, deadlineMs: 60 * 60_000, concurrency: 3 },
    ).finally(() => {
      settled = true;
    });
    run.catch(() => {});
    for (let steps = 0; !settled && steps < 1_000_000; steps++) {
      if (!(await clock.step())) await new Promise<void>((r) => setImmediate(r));
    }
    const summary = await run;
    expect(summary.checkerOffline).toBe(true);
    expect(offlineSeen).toBe(true);
    expect(writes).toBeGreaterThan(3);
    expect(broken).toEqual([]);
  });
});
