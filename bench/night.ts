/**
 * The night's benchmark: the REAL scheduler and fetcher in virtual time (src/night/simulate.ts),
 * so every number but the wall time is exact and repeatable.
 *
 * 1. Makespan where total work / concurrency sets the bound (not one giant lane): 10,000
 *    sources on 3,000 sites (a 60-source vendor host, ~3% medium sites, the rest 1–3),
 *    latencies 50 ms–3 s, at 8 and at 32 lanes at once. Two bounds beside each other:
 *    - gap-inclusive: max(busiest lane, Σ lane time / concurrency), where a lane's time is
 *      its requests' latencies plus the gaps between them (a lane holds its worker through its
 *      gaps, as the scheduler does);
 *    - latency-only: max(busiest lane, Σ latencies / concurrency): what a scheduler that lent a
 *      waiting lane's worker to another lane could at best reach.
 * 2. A night too short for its sources: 30,000 sources / 27,000 sites, 4 lanes, 6 h, three
 *    nights from an empty store: sources reached against the fluid bound (the most any order
 *    can reach, from the sites' specification alone) and the fair bound (the most reachable
 *    when last night's unreached must be reached first, P13); sources unreached two nights
 *    running.
 *
 * Run: `npm run bench -- night`. A benchmark never fails CI on a timing.
 */
import { ManualClock } from "../src/clock.js";
import { MemoryJournal, MemoryRobotsCache } from "../src/net/memory-ports.js";
import {
  buildSimulation,
  fluidBound,
  MemoryNightStore,
  type ObservedRequest,
  runSimulatedNight,
  type Simulation,
  skewedFleet,
} from "../src/night/simulate.js";
import { MIN_GAP_MS } from "../src/policy/constants.js";
import { addDays } from "../src/policy/night-date.js";

const NIGHT = "2026-11-05";
const DAY = 24 * 3600_000;

/** Makespan and its bounds (with the gaps as lane work, and latency only), per lane count. */
export function measure(sim: Simulation, observed: ObservedRequest[], t0: number, lanes: number) {
  const bySite = new Map<string, ObservedRequest[]>();
  for (const o of observed) {
    const l = bySite.get(o.site);
    if (l) l.push(o);
    else bySite.set(o.site, [o]);
  }
  let busiest = 0;
  let work = 0;
  let latency = 0;
  for (const [site, reqs] of bySite) {
    const gap = Math.max(MIN_GAP_MS, (sim.sites.get(site)?.crawlDelayS ?? 0) * 1000);
    const lat = reqs.reduce((s, q) => s + (q.end - q.start), 0);
    const lane = lat + (reqs.length - 1) * gap;
    busiest = Math.max(busiest, lane);
    work += lane;
    latency += lat;
  }
  const makespan = Math.max(...observed.map((o) => o.end)) - t0;
  const withGaps = Math.max(busiest, work / lanes);
  const latencyOnly = Math.max(busiest, latency / lanes);
  return { makespan, busiest, work, latency, withGaps, latencyOnly, requests: observed.length };
}

const s = (ms: number) => `${(ms / 1000).toFixed(0)} s`;

async function makespanRows(): Promise<string[]> {
  const rows: string[] = [];
  for (const lanes of [8, 32]) {
    const clock = new ManualClock();
    const sim = buildSimulation(clock, skewedFleet(10_000, 3_000, 7, 60));
    const t0 = clock.now();
    await runSimulatedNight(clock, sim, new MemoryNightStore(), {
      night: NIGHT,
      deadlineMs: 12 * 3600_000,
      concurrency: lanes,
    });
    const m = measure(sim, sim.observed, t0, lanes);
    rows.push(
      `| 10,000 sources / 3,000 sites, ${lanes} at once | ${m.requests} | ${s(m.makespan)} | ${s(m.busiest)} | ${s(m.work / lanes)} | ${s(m.latency / lanes)} | **${(m.makespan / m.withGaps).toFixed(3)}** | ${(m.makespan / m.latencyOnly).toFixed(2)} |`,
    );
  }
  return rows;
}

async function shortNightRows(): Promise<string[]> {
  const sites = skewedFleet(30_000, 27_000, 7);
  const lanes = 4;
  const deadlineMs = 6 * 3600_000;
  const clock = new ManualClock();
  const sim = buildSimulation(clock, sites);
  const store = new MemoryNightStore();
  const ports = { journal: new MemoryJournal(), robotsCache: new MemoryRobotsCache() };
  const bound = fluidBound(sites, lanes, deadlineMs);
  const rows: string[] = [];
  let last = new Set<string>();
  for (let d = 0; d < 3; d++) {
    if (d > 0) await clock.advance(DAY);
    const night = addDays(NIGHT, d);
    const must = new Map<string, number>();
    for (const id of last) {
      const site = id.split("/")[0] as string;
      must.set(site, (must.get(site) ?? 0) + 1);
    }
    const fair = fluidBound(sites, lanes, deadlineMs, must);
    const t = performance.now();
    await runSimulatedNight(clock, sim, store, { night, deadlineMs, concurrency: lanes, ...ports });
    const wall = (performance.now() - t) / 1000;
    const missed = new Set(
      sim.catalog.sources
        .filter((x) => store.outcomeOf(x.id, night)?.kind === "unreached")
        .map((x) => x.id),
    );
    const twice = [...missed].filter((id) => last.has(id)).length;
    const reached = sites.reduce((n, x) => n + x.sources, 0) - missed.size;
    rows.push(
      `| ${d + 1}${d === 0 ? " (no costs measured yet)" : ""} | ${reached.toLocaleString("en-US")} | ${bound.toFixed(0)} | **${((100 * reached) / bound).toFixed(1)}%** | ${fair.toFixed(0)} | ${((100 * reached) / fair).toFixed(1)}% | ${twice} | ${wall.toFixed(0)} s |`,
    );
    last = missed;
  }
  return rows;
}

export async function run(): Promise<string> {
  const makespan = await makespanRows();
  const short = await shortNightRows();
  return [
    "## The night (simulated: real scheduler and fetcher, virtual time)",
    "",
    "Real scheduler and real fetcher (src/net/fetcher.ts) over a virtual-time transport",
    "(src/night/simulate.ts), 2 s floor, Crawl-delay 3–5 s on 3% of sites, 2% of sites answering",
    "403, 1% with robots.txt 500; the fleet from a fixed seed (`skewedFleet`). Exact and",
    "repeatable: only the wall time depends on the machine.",
    "",
    "### Makespan where total work / concurrency sets the bound",
    "",
    "| run | requests | makespan | busiest lane | Σ lane time / lanes | Σ latency / lanes | makespan / gap-inclusive bound | makespan / latency-only bound |",
    "|---|---|---|---|---|---|---|---|",
    ...makespan,
    "",
    "A lane holds its worker through its 2 s gaps, so the gap-inclusive bound counts them; the",
    "latency-only bound is what a scheduler lending a waiting lane's worker to another lane could",
    "at best reach. The gap between the two columns is the price of holding workers through gaps.",
    "",
    "### A night too short for its sources (30,000 sources / 27,000 sites, 4 lanes, 6 h)",
    "",
    "| night | reached | fluid bound | reached / bound | fair bound | reached / fair bound | unreached two nights running | wall |",
    "|---|---|---|---|---|---|---|---|",
    ...short,
    "",
    "Fluid bound: the most sources any order can reach (lanes cheapest per source first, taken",
    "fractionally into 4 × (6 h + the longest request); no lane is cut, none waits), computed",
    "from the sites' specification, not from the planner (`fluidBound` in src/night/simulate.ts).",
    "Fair bound: the same when last night's unreached must be reached first (P13). The first",
    "night has no measured costs (every source is estimated alike); from the second on, last",
    "nights' measured checks order the plan (src/night/lanes.ts). Before this plan (busiest",
    "lanes first) a night reached 17,796–21,587 sources on this fleet, against 25,631",
    "it counted reachable (69–84%).",
  ].join("\n");
}
