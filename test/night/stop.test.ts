import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.js";
import { CounterIds } from "../../src/ids.js";
import { createFetcher } from "../../src/net/fetcher.js";
import { MemoryArchive, MemoryJournal, MemoryRobotsCache } from "../../src/net/memory-ports.js";
import { NotKept } from "../../src/net/pipeline.js";
import type { ArchivePort, Transport } from "../../src/net/types.js";
import { type NightSummary, runNight } from "../../src/night/run-night.js";
import {
  buildSimulation,
  MemoryNightStore,
  type Simulation,
  simReader,
} from "../../src/night/simulate.js";
import type { SourceResult } from "../../src/night/types.js";
import { isRecheckNight } from "../../src/policy/recheck.js";
import { siteOf } from "../../src/policy/site.js";

/**
 * A night stopped by a person (`NightOptions.stop`, the command's SIGTERM) claims no lane after
 * the stop and records no outcome, but what it already decided stands: the sources the
 * checker's own outage failed before the stop are said to be that (P20, P23), not left as the
 * sites' no. The night stays open.
 */
const NIGHT = "2026-11-05";

async function night(
  clock: ManualClock,
  sim: Simulation,
  transport: Transport,
  store: MemoryNightStore,
  stop: AbortSignal | undefined,
  archive?: ArchivePort,
): Promise<NightSummary> {
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
          ...(archive ? { archive } : {}),
        }),
    },
    {
      night: NIGHT,
      deadlineMs: 60 * 60_000,
      concurrency: 2,
      ...(stop ? { stop } : {}),
    },
  ).finally(() => {
    settled = true;
  });
  run.catch(() => {});
  // Bounded: every step wakes one sleeper.
  for (let steps = 0; !settled && steps < 1_000_000; steps++) {
    if (!(await clock.step())) await new Promise<void>((r) => setImmediate(r));
  }
  return run;
}

describe("a night stopped by a person (run-night)", () => {
  it("P20, P23, P13: once stopped, no lane is claimed and nothing recorded; the sources the checker's outage failed before it are relabelled as that; the night stays open", async () => {
    const clock = new ManualClock();
    const dead = Array.from({ length: 12 }, (_, i) => ({
      site: `dead-${i}.org`,
      latencyMs: 10,
      sources: 1,
    }));
    const sim = buildSimulation(clock, [...dead, { site: "live.org", latencyMs: 100, sources: 2 }]);
    // Our side cut off from the dead sites: no name resolves.
    const transport: Transport = async (req) =>
      siteOf(req.url).startsWith("dead-")
        ? { kind: "failure", failure: "dns", message: "getaddrinfo ENOTFOUND" }
        : sim.transport(req);
    const store = new MemoryNightStore();
    const stop = new AbortController();
    // Stopped right after the outage is decided (the source that tipped it is committed as
    // checker-offline by the night itself).
    const commit = store.commit.bind(store);
    const committed: SourceResult[] = [];
    store.commit = async (n: string, r: SourceResult) => {
      committed.push(r);
      const out = await commit(n, r);
      if (r.outcome.kind === "checker-offline") stop.abort(new Error("stopped (SIGTERM)"));
      return out;
    };
    const claims: { site: string; afterStop: boolean }[] = [];
    const claimLane = store.claimLane.bind(store);
    store.claimLane = async (n, site, holder, now) => {
      claims.push({ site, afterStop: stop.signal.aborted });
      return claimLane(n, site, holder, now);
    };

    const summary = await night(clock, sim, transport, store, stop.signal);

    expect(summary.stopped).toBe(true);
    expect(stop.signal.aborted).toBe(true);
    // Nothing claimed, nothing committed after the stop.
    expect(claims.filter((c) => c.afterStop)).toEqual([]);
    const last = committed.findIndex((r) => r.outcome.kind === "checker-offline");
    expect(last).toBe(committed.length - 1);
    // Every dead site's source committed before the stop is the checker's outage, none a
    // site's no.
    const kinds = committed
      .filter((r) => r.sourceId.startsWith("dead-"))
      .map((r) => store.outcomeOf(r.sourceId, NIGHT)?.kind);
    expect(kinds.length).toBeGreaterThan(1);
    expect(new Set(kinds)).toEqual(new Set(["checker-offline"]));
    // Sources not reached before the stop have no outcome tonight (a resume reads them).
    const unreached = sim.catalog.sources.filter(
      (s) => !committed.some((r) => r.sourceId === s.id),
    );
    expect(unreached.length).toBeGreaterThan(0);
    for (const s of unreached) expect(store.outcomeOf(s.id, NIGHT)).toBeUndefined();
  });

  it("P8, P16: an archive that cannot keep answers (a full disk) stops the night: nothing more is asked, the sources unread stay unrecorded for a resume, and robots.txt is not asked again", async () => {
    const clock = new ManualClock();
    const sim = buildSimulation(
      clock,
      Array.from({ length: 6 }, (_, i) => ({ site: `s${i}.org`, latencyMs: 50, sources: 3 })),
    );
    const store = new MemoryNightStore();
    const kept = new MemoryArchive();
    let writes = 0;
    // Keeps four answers, then the disk is full.
    const archive: ArchivePort = {
      write: async (x) => {
        if (++writes > 4)
          throw Object.assign(new Error("ENOSPC: no space left on device, write"), {
            code: "ENOSPC",
          });
        await kept.write(x);
      },
    };
    await expect(
      night(clock, sim, sim.transport, store, undefined, archive),
    ).rejects.toBeInstanceOf(NotKept);
    // Each answer the archive refused was the last its lane asked; nothing is asked once the
    // night stops: at most one refused answer a lane (two lanes), robots.txt never twice.
    expect(writes).toBeLessThanOrEqual(4 + 2);
    const robots = sim.observed.filter((r) => r.url.endsWith("/robots.txt")).map((r) => r.url);
    expect(new Set(robots).size).toBe(robots.length);
    expect(sim.observed.length).toBe(writes);
    // Sources whose answer was not kept, and those never reached, have no outcome tonight.
    const recorded = sim.catalog.sources.filter((s) => store.outcomeOf(s.id, NIGHT) !== undefined);
    expect(recorded.length).toBeLessThan(sim.catalog.sources.length);
    for (const s of recorded) expect(store.outcomeOf(s.id, NIGHT)?.kind).toBe("ok");
  });
});
