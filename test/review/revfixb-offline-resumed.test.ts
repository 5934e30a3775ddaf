import { afterAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.js";
import { CounterIds } from "../../src/ids.js";
import { createFetcher } from "../../src/net/fetcher.js";
import { MemoryJournal, MemoryRobotsCache } from "../../src/net/memory-ports.js";
import type { Transport } from "../../src/net/types.js";
import type { NightStore } from "../../src/night/ports.js";
import type { ValidatorStore } from "../../src/night/reader.js";
import { runNight } from "../../src/night/run-night.js";
import { buildSimulation, MemoryNightStore, simReader } from "../../src/night/simulate.js";
import type { SourceResult } from "../../src/night/types.js";
import { isRecheckNight } from "../../src/policy/recheck.js";
import { siteOf } from "../../src/policy/site.js";
import { openStore } from "../../src/store/db.js";
import { SqlNightStore } from "../../src/store/night-store.js";
import { storeFactories } from "../store/stores.js";

/**
 * Review (revfixb): the rule (P20) judges the sites last heard from in the night. A night
 * stopped (or killed) before it could decide, its first sites' DNS failures recorded, and then
 * resumed while the outage goes on, judged only what the resumed run heard: its decision
 * relabelled its own failures, and the failures recorded before the stop stayed as their sites'
 * no (flags counted on them), although the same outage, uninterrupted, would have relabelled
 * them.
 */
const NIGHT = "2026-11-05";
const OUTAGE = new Set(["unreachable", "robots-unavailable"]);
const factories = storeFactories();
afterAll(async () => {
  for (const f of factories) await f.cleanup();
});

type Store = NightStore & ValidatorStore;

async function stoppedThenResumed(
  store: Store,
  kindOf: (id: string) => Promise<string | undefined>,
): Promise<void> {
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
  const failures = async () => {
    const out: string[] = [];
    for (const id of ids) if (OUTAGE.has((await kindOf(id)) ?? "")) out.push(id);
    return out;
  };
  expect((await failures()).length).toBeGreaterThanOrEqual(4);
  // Resumed in the same outage.
  const second = await drive(
    runNight(sim.catalog, deps, { night: NIGHT, deadlineMs: 60 * 60_000, concurrency: 1 }),
  );
  expect(second.checkerOffline).toBe(true);
  expect(await failures()).toEqual([]);
}

describe("review(revfixb): the offline decision across a resume", () => {
  it("P20, P23: a night stopped before its offline decision and resumed in the same outage leaves none of its sources as its site's DNS failure (memory store)", async () => {
    const store = new MemoryNightStore();
    await stoppedThenResumed(store, async (id) => store.outcomeOf(id, NIGHT)?.kind);
  });

  it.each(factories)(
    "P20, P23: the same on the store ($name): the night's outcomes before the resume are judged with its own",
    async (f) => {
      const s = await openStore(await f.migrated());
      try {
        const store = new SqlNightStore(s.db);
        await stoppedThenResumed(store, async (id) => {
          const r = await s.db
            .selectFrom("night_sources")
            .select("outcome")
            .where("night", "=", NIGHT)
            .where("source_id", "=", id)
            .executeTakeFirst();
          return r?.outcome;
        });
      } finally {
        await s.close();
      }
    },
  );
});
