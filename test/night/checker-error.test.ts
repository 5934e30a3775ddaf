import { describe, expect, it } from "vitest";
import { exitCodeOf } from "../../src/cli/main.js";
import { ManualClock } from "../../src/clock.js";
import { NorError } from "../../src/errors.js";
import { CounterIds } from "../../src/ids.js";
import { createFetcher } from "../../src/net/fetcher.js";
import { MemoryJournal, MemoryRobotsCache } from "../../src/net/memory-ports.js";
import type { WayReader } from "../../src/night/reader.js";
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
 * A check that throws (a bug in a reader, a store read that fails) is that one source's
 * outcome, not the end of the night: the other sources of its lane, and of every other lane,
 * are still checked. So is a result the store refuses to write (it is recorded bare, as the
 * checker's error). A store that cannot record outcomes at all still stops the night, with
 * an error that says so, after one source (never a loop over the rest).
 */
const NIGHT = "2026-11-05";

/** The simulated reader, except that it throws building the request of one source. */
const throwingFor = (url: string): WayReader => ({
  ...simReader,
  firstRequest: (way, now) => {
    if (way.url === url) throw new TypeError("cannot read properties of undefined (reading 'x')");
    return simReader.firstRequest(way, now);
  },
});

async function night(
  clock: ManualClock,
  sim: Simulation,
  store: MemoryNightStore,
  reader: WayReader,
  errors: { id: string; err: unknown }[],
): Promise<NightSummary> {
  let settled = false;
  const run = runNight(
    sim.catalog,
    {
      store,
      clock,
      reader,
      validators: store,
      siteOf,
      isRecheckNight,
      makeFetcher: async (state) =>
        createFetcher({
          clock,
          ids: new CounterIds(),
          journal: new MemoryJournal(),
          robotsCache: new MemoryRobotsCache(),
          transport: sim.transport,
          deadline: state.deadlineAt,
          night: NIGHT,
        }),
      onSourceError: (id, err) => errors.push({ id, err }),
    },
    { night: NIGHT, deadlineMs: 60 * 60_000, concurrency: 2 },
  ).finally(() => {
    settled = true;
  });
  // Handled by the caller once the loop below ends; not "unhandled" while time is stepped.
  run.catch(() => {});
  // Bounded: every step wakes one sleeper.
  for (let steps = 0; !settled && steps < 1_000_000; steps++) {
    if (!(await clock.step())) await new Promise<void>((r) => setImmediate(r));
  }
  return run;
}

describe("a check that throws (run-night)", () => {
  it("P13, P23: one source whose check throws is recorded as a checker error; the other two of its lane and the other lane are still checked", async () => {
    const clock = new ManualClock();
    const sim = buildSimulation(clock, [
      { site: "lane.org", latencyMs: 100, sources: 3 },
      { site: "other.org", latencyMs: 100, sources: 2 },
    ]);
    const broken = sim.catalog.sources.find((s) => s.id === "lane.org/1")!;
    const store = new MemoryNightStore();
    const errors: { id: string; err: unknown }[] = [];
    const summary = await night(clock, sim, store, throwingFor(broken.url), errors);

    expect(store.outcomeOf("lane.org/0", NIGHT)?.kind).toBe("ok");
    expect(store.outcomeOf("lane.org/2", NIGHT)?.kind).toBe("ok");
    expect(store.outcomeOf("other.org/0", NIGHT)?.kind).toBe("ok");
    expect(store.outcomeOf("other.org/1", NIGHT)?.kind).toBe("ok");
    const failed = store.outcomeOf("lane.org/1", NIGHT);
    expect(failed?.kind).toBe("error");
    expect(failed?.reason).toMatch(/^checker error: TypeError: cannot read properties/);
    // The sources after the broken one were asked for; the broken one never was.
    const asked = sim.observed.map((r) => new URL(r.url).pathname);
    expect(asked.filter((p) => p.startsWith("/list/")).sort()).toEqual([
      "/list/0",
      "/list/0",
      "/list/1",
      "/list/2",
    ]);
    expect(sim.observed.some((r) => r.url === broken.url)).toBe(false);
    expect(summary.outcomes).toEqual({ ok: 4, error: 1 });
    // The log hears the error itself.
    expect(errors.map((e) => e.id)).toEqual(["lane.org/1"]);
    expect(errors[0]?.err).toBeInstanceOf(TypeError);
  });

  it("P8, P23: a result the store refuses is recorded as the checker's error without its records; the night goes on", async () => {
    const clock = new ManualClock();
    const sim = buildSimulation(clock, [{ site: "lane.org", latencyMs: 100, sources: 3 }]);
    const store = new MemoryNightStore();
    const commit = store.commit.bind(store);
    store.commit = async (night: string, r: SourceResult) => {
      if (r.sourceId === "lane.org/1" && r.records.length > 0)
        throw new Error("invalid byte sequence for encoding UTF8: 0x00");
      return commit(night, r);
    };
    const errors: { id: string; err: unknown }[] = [];
    const summary = await night(clock, sim, store, simReader, errors);
    expect(store.outcomeOf("lane.org/0", NIGHT)?.kind).toBe("ok");
    expect(store.outcomeOf("lane.org/2", NIGHT)?.kind).toBe("ok");
    expect(store.outcomeOf("lane.org/1", NIGHT)).toMatchObject({
      kind: "error",
      reason:
        "checker error: its ok result could not be stored: Error: invalid byte sequence for encoding UTF8: 0x00",
    });
    expect(summary.outcomes).toEqual({ ok: 2, error: 1 });
    expect(errors.map((e) => e.id)).toEqual(["lane.org/1"]);
  });

  it("P8, P27: a result the store fails to take once (a dropped connection) is taken on the next try, its records kept", async () => {
    const clock = new ManualClock();
    const sim = buildSimulation(clock, [{ site: "lane.org", latencyMs: 100, sources: 3 }]);
    const store = new MemoryNightStore();
    const commit = store.commit.bind(store);
    let failed = 0;
    store.commit = async (night: string, r: SourceResult) => {
      if (r.sourceId === "lane.org/1" && failed === 0) {
        failed++;
        throw new Error("Connection terminated unexpectedly");
      }
      return commit(night, r);
    };
    const errors: { id: string; err: unknown }[] = [];
    const summary = await night(clock, sim, store, simReader, errors);
    expect(failed).toBe(1);
    for (const id of ["lane.org/0", "lane.org/1", "lane.org/2"])
      expect(store.outcomeOf(id, NIGHT)?.kind).toBe("ok");
    expect(summary.outcomes).toEqual({ ok: 3 });
    expect(errors).toEqual([]);
  });

  it("a store that cannot record an outcome at all stops the night with an error that says so, after one source", async () => {
    const clock = new ManualClock();
    const sim = buildSimulation(clock, [{ site: "lane.org", latencyMs: 100, sources: 3 }]);
    const broken = sim.catalog.sources[0]!;
    const store = new MemoryNightStore();
    const commits: string[] = [];
    store.commit = async (_night: string, r: SourceResult) => {
      commits.push(r.sourceId);
      throw new Error("SQLITE_READONLY: attempt to write a readonly database");
    };
    const errors: { id: string; err: unknown }[] = [];
    const out = night(clock, sim, store, throwingFor(broken.url), errors);
    await expect(out).rejects.toBeInstanceOf(NorError);
    await expect(out).rejects.toMatchObject({
      code: "E_STORE",
      message: expect.stringMatching(
        /could not record the outcome of lane\.org\/0; the night stops: .*SQLITE_READONLY/,
      ),
    });
    // The result, once more (a dropped connection), then the bare error outcome: three tries
    // for one source, never a loop.
    expect(commits).toEqual(["lane.org/0", "lane.org/0", "lane.org/0"]);
    // Nothing more was asked of the site after the store failed.
    expect(sim.observed.filter((r) => new URL(r.url).pathname.startsWith("/list/"))).toEqual([]);
  });

  it("P8: a store whose disk is full stops the night as configuration (exit 2, which the units do not restart on), saying to make room", async () => {
    for (const code of ["SQLITE_FULL", "53100"]) {
      const clock = new ManualClock();
      const sim = buildSimulation(clock, [{ site: "lane.org", latencyMs: 100, sources: 3 }]);
      const store = new MemoryNightStore();
      store.commit = async () => {
        throw Object.assign(new Error("database or disk is full"), { code });
      };
      const out = night(clock, sim, store, simReader, []);
      await expect(out).rejects.toMatchObject({
        code: "E_CONFIG",
        message: expect.stringMatching(
          /could not record the outcome of lane\.org\/0; the night stops \(its disk is full: make room, then run the night again; it resumes\): .*disk is full/,
        ),
      });
      expect(exitCodeOf((await out.catch((e: unknown) => e)) as NorError)).toBe(2);
    }
  });
});
