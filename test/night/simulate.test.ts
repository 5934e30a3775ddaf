import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.js";
import { MemoryJournal, MemoryRobotsCache } from "../../src/net/memory-ports.js";
import { SITE_CLOSED_REASON } from "../../src/night/outcome.js";
import {
  buildSimulation,
  MemoryNightStore,
  type ObservedRequest,
  runSimulatedNight,
  type SimSite,
  type Simulation,
} from "../../src/night/simulate.js";
import { MIN_GAP_MS } from "../../src/policy/constants.js";
import { addDays } from "../../src/policy/night-date.js";
import { isRecheckNight } from "../../src/policy/recheck.js";

const NIGHT = "2026-11-05";
const DAY = 24 * 3600_000;

function mixedSites(): SimSite[] {
  const sites: SimSite[] = [
    { site: "busy.org", latencyMs: 300, sources: 12, hosts: ["www.busy.org", "docs.busy.org"] },
    { site: "slow.org", latencyMs: 3_000, sources: 4 },
    { site: "fast.org", latencyMs: 50, sources: 5 },
    { site: "delay.org", latencyMs: 200, sources: 4, crawlDelayS: 7 },
    { site: "no.org", latencyMs: 150, sources: 5, saysNo: true },
    { site: "down.org", latencyMs: 100, sources: 3, robotsStatus: 500 },
  ];
  for (let i = 0; i < 14; i++)
    sites.push({ site: `s${i}.net`, latencyMs: 50 + i * 200, sources: 1 + (i % 3) });
  return sites;
}

/** Checks P9 and P10 from what the servers saw; returns the violations as text. */
function politenessViolations(sim: Simulation, observed: ObservedRequest[]): string[] {
  const bySite = new Map<string, ObservedRequest[]>();
  for (const r of observed) bySite.set(r.site, [...(bySite.get(r.site) ?? []), r]);
  const bad: string[] = [];
  for (const [site, reqs] of bySite) {
    reqs.sort((a, b) => a.start - b.start);
    const gap = Math.max(MIN_GAP_MS, (sim.sites.get(site)?.crawlDelayS ?? 0) * 1000);
    for (let i = 1; i < reqs.length; i++) {
      const prev = reqs[i - 1] as ObservedRequest;
      const cur = reqs[i] as ObservedRequest;
      if (cur.start < prev.end) bad.push(`${site}: two in flight at ${cur.start}`);
      else if (cur.start - prev.end < gap)
        bad.push(`${site}: gap ${cur.start - prev.end} ms < ${gap} ms`);
    }
  }
  return bad;
}

describe("the night, simulated (real scheduler, real fetcher, virtual time)", () => {
  it("P9, P10: per site never two requests in flight, and gaps of at least max(2 s, Crawl-delay) across sources, hostnames and robots.txt", async () => {
    const clock = new ManualClock();
    const sim = buildSimulation(clock, mixedSites());
    const store = new MemoryNightStore();
    const summary = await runSimulatedNight(clock, sim, store, {
      night: NIGHT,
      deadlineMs: 6 * 3600_000,
      concurrency: 4,
    });
    expect(summary.planned).toBe(sim.catalog.sources.length);
    expect(sim.observed.length).toBeGreaterThan(sim.catalog.sources.length);
    expect(politenessViolations(sim, sim.observed)).toEqual([]);
    // Both hostnames of busy.org were used, and they shared one lane (checked above).
    const busyHosts = new Set(
      sim.observed.filter((r) => r.site === "busy.org").map((r) => new URL(r.url).host),
    );
    expect(busyHosts.size).toBe(2);
    // The Crawl-delay site really was spaced 7 s apart.
    const delay = sim.observed
      .filter((r) => r.site === "delay.org")
      .sort((a, b) => a.start - b.start);
    expect(delay.length).toBeGreaterThan(2);
    for (let i = 1; i < delay.length; i++) {
      expect(
        (delay[i] as ObservedRequest).start - (delay[i - 1] as ObservedRequest).end,
      ).toBeGreaterThanOrEqual(7_000);
    }
  });

  it("P9: the busiest lanes start first, and the makespan is the longest lane's", async () => {
    const clock = new ManualClock();
    const sites: SimSite[] = [{ site: "big.org", latencyMs: 500, sources: 30 }];
    for (let i = 0; i < 40; i++) sites.push({ site: `t${i}.net`, latencyMs: 500, sources: 1 });
    const sim = buildSimulation(clock, sites);
    const t0 = clock.now();
    await runSimulatedNight(clock, sim, new MemoryNightStore(), {
      night: NIGHT,
      deadlineMs: 6 * 3600_000,
      concurrency: 4,
    });
    const big = sim.observed.filter((r) => r.site === "big.org");
    expect(Math.min(...big.map((r) => r.start))).toBe(t0);
    // 31 requests (robots + 30) at 0.5 s each with 30 gaps of 2 s (and the millisecond that
    // keeps each gap over the floor, policy/admission.ts earliestAfter): the lane's own time.
    const bound = 31 * 500 + 30 * (MIN_GAP_MS + 1);
    const makespan = Math.max(...sim.observed.map((r) => r.end)) - t0;
    expect(makespan).toBe(bound);
  });

  it("P13: no request starts after the deadline, nothing is hurried, and the unreached go first the next night", async () => {
    const clock = new ManualClock();
    const sites: SimSite[] = [];
    for (let i = 0; i < 6; i++) sites.push({ site: `l${i}.org`, latencyMs: 1_000, sources: 8 });
    const sim = buildSimulation(clock, sites);
    const store = new MemoryNightStore();
    const opts = {
      deadlineMs: 40_000,
      concurrency: 3,
      journal: new MemoryJournal(),
      robotsCache: new MemoryRobotsCache(),
    };
    const s1 = await runSimulatedNight(clock, sim, store, { ...opts, night: NIGHT });
    const deadline1 = s1.deadlineAt;
    expect(sim.observed.every((r) => r.start <= deadline1)).toBe(true);
    expect(politenessViolations(sim, sim.observed)).toEqual([]);
    const unreached = sim.catalog.sources
      .filter((s) => store.outcomeOf(s.id, NIGHT)?.kind === "unreached")
      .map((s) => s.id);
    expect(unreached.length).toBeGreaterThan(5);
    const seen1 = sim.observed.length;

    await clock.advance(DAY);
    const night2 = addDays(NIGHT, 1);
    const s2 = await runSimulatedNight(clock, sim, store, { ...opts, night: night2 });
    const tonight = sim.observed.slice(seen1);
    expect(tonight.every((r) => r.start <= s2.deadlineAt)).toBe(true);
    // What waited goes first: every source unreached last night is reached tonight, and in
    // each lane it is checked before any source that was reached last night.
    for (const id of unreached) expect(store.outcomeOf(id, night2)?.kind).not.toBe("unreached");
    const firstStart = (id: string) => {
      const path = `/list/${id.split("/")[1]}`;
      const site = id.split("/")[0] as string;
      return Math.min(
        ...tonight
          .filter((r) => r.site === site && new URL(r.url).pathname === path)
          .map((r) => r.start),
      );
    };
    for (const site of sites) {
      const ids = sim.catalog.sources
        .filter((s) => s.id.startsWith(`${site.site}/`))
        .map((s) => s.id);
      const waited = ids.filter((id) => unreached.includes(id));
      const others = ids.filter(
        (id) => !unreached.includes(id) && store.outcomeOf(id, night2)?.kind !== "unreached",
      );
      if (waited.length === 0 || others.length === 0) continue;
      expect(Math.max(...waited.map(firstStart))).toBeLessThan(Math.min(...others.map(firstStart)));
    }
  });

  it("P21, P23: a no closes that site's lane for the night; the rest there are refused, and the next night it is asked again at the same pace", async () => {
    const clock = new ManualClock();
    const sim = buildSimulation(clock, [
      { site: "no.org", latencyMs: 100, sources: 5, saysNo: true },
      { site: "ok.org", latencyMs: 100, sources: 3 },
    ]);
    const store = new MemoryNightStore();
    const opts = {
      deadlineMs: 3600_000,
      concurrency: 2,
      journal: new MemoryJournal(),
      robotsCache: new MemoryRobotsCache(),
    };
    await runSimulatedNight(clock, sim, store, { ...opts, night: NIGHT });
    const toNo = sim.observed.filter((r) => r.site === "no.org");
    expect(toNo.map((r) => new URL(r.url).pathname)).toEqual(["/robots.txt", "/list/0"]);
    const outcomes = sim.catalog.sources
      .filter((s) => s.id.startsWith("no.org/"))
      .map((s) => store.outcomeOf(s.id, NIGHT));
    expect(outcomes[0]?.kind).toBe("refused");
    expect(outcomes[0]?.status).toBe(403);
    for (const o of outcomes.slice(1))
      expect(o).toMatchObject({
        kind: "refused",
        reason: `${SITE_CLOSED_REASON}: http block: status 403`,
      });
    expect(
      sim.catalog.sources
        .filter((s) => s.id.startsWith("ok.org/"))
        .every((s) => store.outcomeOf(s.id, NIGHT)?.kind === "ok"),
    ).toBe(true);

    await clock.advance(DAY);
    const before = sim.observed.length;
    await runSimulatedNight(clock, sim, store, { ...opts, night: addDays(NIGHT, 1) });
    const again = sim.observed
      .slice(before)
      .filter((r) => r.site === "no.org" && r.url.includes("/list/"));
    expect(again).toHaveLength(1);
  });

  it("P20: robots.txt answering 500 keeps the checker off the origin for the night, and every source there gets that night's no", async () => {
    const clock = new ManualClock();
    const sim = buildSimulation(clock, [
      { site: "down.org", latencyMs: 100, sources: 4, robotsStatus: 500 },
    ]);
    const store = new MemoryNightStore();
    await runSimulatedNight(clock, sim, store, {
      night: NIGHT,
      deadlineMs: 3600_000,
      concurrency: 2,
    });
    expect(sim.observed.every((r) => new URL(r.url).pathname === "/robots.txt")).toBe(true);
    for (const s of sim.catalog.sources)
      expect(store.outcomeOf(s.id, NIGHT)?.kind).toBe("robots-unavailable");
  });

  it("P24, P25: a source marked not read gets one recheck request only on recheck nights, keeps no records, and is flagged when it answers again", async () => {
    const clock = new ManualClock();
    const sim = buildSimulation(clock, [{ site: "back.org", latencyMs: 100, sources: 2 }]);
    const store = new MemoryNightStore();
    const opts = {
      deadlineMs: 3600_000,
      concurrency: 1,
      journal: new MemoryJournal(),
      robotsCache: new MemoryRobotsCache(),
    };
    await runSimulatedNight(clock, sim, store, { ...opts, night: NIGHT });
    const known = store.records.get("back.org/0")?.size ?? 0;
    store.mark("back.org/0", false, NIGHT, "said no in its rules");
    for (let d = 1; d <= 15; d++) {
      await clock.advance(DAY);
      const night = addDays(NIGHT, d);
      const before = sim.observed.length;
      await runSimulatedNight(clock, sim, store, { ...opts, night });
      const pages = sim.observed.slice(before).filter((r) => new URL(r.url).pathname === "/list/0");
      expect(pages.length, night).toBe(isRecheckNight(NIGHT, night) ? 1 : 0);
      expect(store.outcomeOf("back.org/0", night)?.kind).toBe(
        isRecheckNight(NIGHT, night) ? "recheck-answers" : undefined,
      );
      expect(store.outcomeOf("back.org/1", night)?.kind).not.toBe("recheck-answers");
    }
    expect(store.records.get("back.org/0")?.size).toBe(known);
    const flags = store.flags.filter((f) => f.source === "back.org/0");
    expect(flags.map((f) => f.kind)).toEqual(["answers-again"]);
  });

  it("P7: a new source reads page 1 and up to 3 older pages a night until the list ends, then only page 1; records are deduped", async () => {
    const clock = new ManualClock();
    const sim = buildSimulation(clock, [
      { site: "deep.org", latencyMs: 100, sources: 1, olderPages: 5 },
    ]);
    const store = new MemoryNightStore();
    const opts = {
      deadlineMs: 3600_000,
      concurrency: 1,
      journal: new MemoryJournal(),
      robotsCache: new MemoryRobotsCache(),
    };
    const pagesOf = (from: number) =>
      sim.observed
        .slice(from)
        .filter((r) => r.url.includes("/list/"))
        .map((r) => new URL(r.url).searchParams.get("page"));
    const news: number[] = [];
    const listed: number[] = [];
    const pages: (string | null)[][] = [];
    for (let d = 0; d < 3; d++) {
      if (d > 0) await clock.advance(DAY);
      const before = sim.observed.length;
      const s = await runSimulatedNight(clock, sim, store, { ...opts, night: addDays(NIGHT, d) });
      pages.push(pagesOf(before));
      news.push(s.newRecords);
      listed.push(s.alreadyListed);
    }
    expect(pages).toEqual([["0", "1", "2", "3"], ["0", "4", "5"], ["0"]]);
    // Its first read and the older pages list what was there before: already listed, not new.
    expect(listed).toEqual([8, 4, 0]);
    expect(news).toEqual([0, 0, 0]);
    expect(store.records.get("deep.org/0")?.size).toBe(12);
  });
});
