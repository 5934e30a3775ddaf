/**
 * The night in virtual time: the REAL scheduler and the REAL fetcher, with a Transport that
 * answers for simulated sites after sleeping each site's latency on a ManualClock. Every
 * request the "servers" see is recorded (start, end, site) so tests and the benchmark judge
 * politeness from the outside (P9, P10, P13), the way a site owner's logs would.
 */
import type { ManualClock } from "../clock.js";
import { CounterIds, type IdSource } from "../ids.js";
import { createFetcher } from "../net/fetcher.js";
import type { JournalPort } from "../net/journal.js";
import { MemoryJournal, MemoryRobotsCache } from "../net/memory-ports.js";
import type { RobotsCachePort, Transport, TransportResult } from "../net/types.js";
import { decodeBody } from "../policy/body-text.js";
import { MIN_GAP_MS } from "../policy/constants.js";
import { isRecheckNight } from "../policy/recheck.js";
import { siteOf } from "../policy/site.js";
import type { Catalog, Source } from "../sources/catalog/types.js";
import type { Extraction } from "../sources/record.js";
import { MemoryNightStore } from "./memory-store.js";
import type { NightStore } from "./ports.js";
import type { ValidatorStore, WayReader } from "./reader.js";
import { type NightOptions, type NightSummary, runNight } from "./run-night.js";

export interface SimSite {
  /** Registrable domain, e.g. "s17.org"; hosts default to www.<site>. */
  site: string;
  hosts?: string[];
  latencyMs: number;
  sources: number;
  /** robots.txt: 404 allows all; 500 keeps the checker off for the night (P20). */
  robotsStatus?: number;
  /** robots.txt answers 200 with this text (a test may change it between nights). */
  robotsTxt?: string;
  crawlDelayS?: number;
  /** Every page answers 403 (a no, P21). */
  saysNo?: boolean;
  /** Pages answer 200 with no records (the "opens but shows no records" flag, P24). */
  noRecords?: boolean;
  /** Older pages per list beyond page 1 (P7 backfill). */
  olderPages?: number;
}

export interface ObservedRequest {
  site: string;
  url: string;
  start: number;
  end: number;
  status: number;
}

export interface Simulation {
  catalog: Catalog;
  transport: Transport;
  observed: ObservedRequest[];
  sites: Map<string, SimSite>;
}

const utf8 = new TextEncoder();

async function* once(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  yield bytes;
}

function respond(status: number, body: string, contentType = "application/json"): TransportResult {
  return {
    kind: "response",
    status,
    headers: { "content-type": contentType },
    body: once(utf8.encode(body)),
  };
}

/** Builds the catalog and the virtual-time transport for a list of simulated sites. */
export function buildSimulation(clock: ManualClock, sites: readonly SimSite[]): Simulation {
  const bySite = new Map<string, SimSite>();
  const sources: Source[] = [];
  for (const s of sites) {
    bySite.set(s.site, s);
    const hosts = s.hosts ?? [`www.${s.site}`];
    for (let i = 0; i < s.sources; i++) {
      const host = hosts[i % hosts.length] as string;
      sources.push({
        id: `${s.site}/${i}`,
        government: `gov-${s.site}`,
        records: "agendas",
        access: "feed",
        url: `https://${host}/list/${i}?page=0`,
        alternates: [],
        backfill: { pagesPerNight: 3 },
        confirmed: true,
      });
    }
  }
  const observed: ObservedRequest[] = [];
  const transport: Transport = async (req) => {
    const u = new URL(req.url);
    const site = siteOf(req.url);
    const spec = bySite.get(site);
    const start = clock.now();
    await clock.sleep(spec?.latencyMs ?? 100, req.signal);
    let result: TransportResult;
    let status: number;
    if (!spec) {
      status = 404;
      result = respond(404, "{}");
    } else if (u.pathname === "/robots.txt") {
      status = spec.robotsStatus ?? (spec.crawlDelayS || spec.robotsTxt ? 200 : 404);
      const body =
        spec.robotsTxt ??
        (spec.crawlDelayS ? `User-agent: *\nCrawl-delay: ${spec.crawlDelayS}\n` : "");
      result = respond(status, body, "text/plain");
    } else if (spec.saysNo) {
      status = 403;
      result = respond(403, "Forbidden", "text/plain");
    } else {
      const page = Number(u.searchParams.get("page") ?? "0");
      const older = spec.olderPages ?? 0;
      const records = (spec.noRecords ? [] : [0, 1]).map((j) => ({
        id: `${u.pathname}#${page}.${j}`,
        title: `item ${page}.${j}`,
      }));
      const next = page < older ? `${u.origin}${u.pathname}?page=${page + 1}` : undefined;
      status = 200;
      result = respond(200, JSON.stringify(next ? { records, next } : { records }));
    }
    observed.push({ site, url: req.url, start, end: clock.now(), status });
    return result;
  };
  return { catalog: { governments: [], sources, leads: [] }, transport, observed, sites: bySite };
}

/** The simulated sites' list format: JSON `{records, next?}`. */
export const simReader: WayReader = {
  firstRequest: (way) => ({ url: way.url }),
  extract: (_way, body) => JSON.parse(decodeBody(body)) as Extraction,
  nextRequest: (_way, _prev, _body, ext) => (ext.next ? { url: ext.next } : undefined),
};

export interface SimNightOptions {
  night: string;
  deadlineMs: number;
  concurrency: number;
  /**
   * Shared across nights: robots cache (P16) and site last-end (P10) persist like the store.
   * Any implementation of the ports: the memory ones, or the SQL ones of the real store.
   */
  journal?: JournalPort;
  robotsCache?: RobotsCachePort;
  /** Lease holders' names (default: counted, so a simulated night is the same every run). */
  ids?: IdSource;
  /** The night as the store opened it (NightOptions.onOpened). */
  onOpened?: NightOptions["onOpened"];
  /** The gap between a site's requests (default the fetcher's). */
  gapMs?: number;
  /** What every request goes through (default the simulation's own): to watch or wrap it. */
  transport?: Transport;
}

/** Turns of the event loop runSimulatedNight looks again at once when nobody sleeps. */
const IDLE_TURNS = 8;

/** Runs one night of the real scheduler and fetcher, moving the ManualClock as tasks sleep. */
export async function runSimulatedNight(
  clock: ManualClock,
  sim: Simulation,
  store: NightStore & ValidatorStore,
  opts: SimNightOptions,
): Promise<NightSummary> {
  const journal = opts.journal ?? new MemoryJournal();
  const robotsCache = opts.robotsCache ?? new MemoryRobotsCache();
  const ids = opts.ids ?? new CounterIds();
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
          ids,
          journal,
          robotsCache,
          transport: opts.transport ?? sim.transport,
          deadline: state.deadlineAt,
          night: opts.night,
          ...(opts.gapMs !== undefined ? { gapMs: opts.gapMs } : {}),
        }),
    },
    {
      night: opts.night,
      deadlineMs: opts.deadlineMs,
      concurrency: opts.concurrency,
      ...(opts.onOpened !== undefined ? { onOpened: opts.onOpened } : {}),
    },
  ).finally(() => {
    settled = true;
  });
  // A night that fails is the caller's to hear (returned below), not an unhandled rejection
  // while the clock is still being stepped.
  run.catch(() => {});
  // Bounded: every step wakes one sleeper; a night of N requests needs a few steps each.
  // Nobody asleep: the night's tasks wait on something real (a store's I/O, a PostgreSQL round
  // trip, an fsync). Looked at again on the event loop's next turn, a few times; then after a
  // millisecond of real time, not on every turn: spinning on setImmediate while PostgreSQL
  // answered burned a core (virtual time does not move while nobody sleeps, either way).
  // A night stuck (nobody asleep and nothing answering) fails after some 30 s of real time
  // idle (30,000 waits of a millisecond or more), not after the steps' bound (some 14 hours of
  // them).
  let idle = 0;
  for (let steps = 0; !settled; steps++) {
    if (steps > 50_000_000 || idle > IDLE_TURNS + 30_000)
      throw new Error("simulation did not settle");
    if (await clock.step()) idle = 0;
    else if (++idle <= IDLE_TURNS) await new Promise<void>((r) => setImmediate(r));
    else await new Promise<void>((r) => setTimeout(r, 1));
  }
  return run;
}

export { MemoryNightStore };

/** Deterministic PRNG (mulberry32), so every run simulates the same fleet. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A fleet shaped like the catalog, from a fixed seed (the benchmark's and the tests'):
 * `sources` over `sites`, one vendor host with `vendorSources` (default 600), ~3% medium
 * sites (5–40 sources), the rest 1–3; latencies 50 ms–3 s skewed low; 2% of sites answer
 * 403, 1% robots.txt 500, 3% a Crawl-delay of 3–5 s.
 */
export function skewedFleet(
  sources: number,
  sites: number,
  seed = 7,
  vendorSources = 600,
): SimSite[] {
  const r = rng(seed);
  const latency = () => Math.round(50 + r() ** 2 * 2_950); // 50 ms–3 s, most sites quick
  const out: SimSite[] = [{ site: "vendor-0.com", latencyMs: 400, sources: vendorSources }];
  const sizes: number[] = [];
  for (let i = 1; i < sites; i++)
    sizes.push(r() < 0.03 ? 5 + Math.floor(r() * 36) : 1 + Math.floor(r() * 3));
  // Nudge random sites by one until the total is exact (each site stays within 1–40).
  let total = vendorSources + sizes.reduce((a, b) => a + b, 0);
  for (let guard = 0; total !== sources && guard < 10_000_000; guard++) {
    const i = Math.floor(r() * sizes.length);
    const n = sizes[i] as number;
    if (total < sources && n < 40) {
      sizes[i] = n + 1;
      total++;
    } else if (total > sources && n > 1) {
      sizes[i] = n - 1;
      total--;
    }
  }
  sizes.forEach((n, i) => {
    const s: SimSite = { site: `site-${i + 1}.org`, latencyMs: latency(), sources: n };
    const kind = r();
    if (kind < 0.02) s.saysNo = true;
    else if (kind < 0.03) s.robotsStatus = 500;
    else if (kind < 0.06) s.crawlDelayS = 3 + Math.floor(r() * 3);
    out.push(s);
  });
  return out;
}

interface LaneSpec {
  site: string;
  /** Time the lane holds a worker to settle all its sources, at the least. */
  cost: number;
  n: number;
  /** The time one more source adds once the lane is under way (its gap and its page). */
  each: number;
  /** The first request settles every source (a no, robots.txt 500). */
  settlesAll: boolean;
}

function laneSpecs(sites: readonly SimSite[]): LaneSpec[] {
  return sites.map((s) => {
    const gap = Math.max(MIN_GAP_MS, (s.crawlDelayS ?? 0) * 1000);
    const L = s.latencyMs;
    if (s.robotsStatus !== undefined && s.robotsStatus >= 500)
      return { site: s.site, cost: L, n: s.sources, each: 0, settlesAll: true };
    if (s.saysNo)
      return { site: s.site, cost: L + gap + L, n: s.sources, each: 0, settlesAll: true };
    return {
      site: s.site,
      cost: L + s.sources * (gap + L),
      n: s.sources,
      each: gap + L,
      settlesAll: false,
    };
  });
}

/**
 * The most sources a night of `concurrency` workers and `deadlineMs` can reach, computed from
 * the sites' specification alone (never from the planner, which the tests and the benchmark
 * judge against it): the fluid bound. A lane holds its
 * worker for at least robots.txt, then per source the gap and the page (a 403 site: robots.txt,
 * one gap, the no, and its other sources are settled without a request; a robots.txt 500
 * site: one request settles all). Items are taken cheapest per source first, the last one
 * fractionally, into concurrency × (deadline + the longest request, which may end after it).
 * Every relaxation errs upwards (no lane is cut at the deadline, none waits for a worker), so
 * no schedule reaches more.
 *
 * `mustReach` (per site, how many of its sources were unreached last night) gives the fair
 * bound: those sources are reached first, whatever they cost (P13), then the rest as above,
 * a must-reach lane's other sources at their marginal cost.
 */
export function fluidBound(
  sites: readonly SimSite[],
  concurrency: number,
  deadlineMs: number,
  mustReach = new Map<string, number>(),
): number {
  const longest = Math.max(...sites.map((s) => s.latencyMs));
  let left = concurrency * (deadlineMs + longest);
  let reached = 0;
  const items: { cost: number; n: number }[] = [];
  for (const l of laneSpecs(sites)) {
    const m = Math.min(mustReach.get(l.site) ?? 0, l.n);
    if (m === 0) {
      items.push({ cost: l.cost, n: l.n });
      continue;
    }
    const first = l.settlesAll ? l.cost : l.cost - (l.n - m) * l.each;
    const gets = l.settlesAll ? l.n : m;
    if (first > left) return reached + (gets * left) / first;
    left -= first;
    reached += gets;
    for (let i = gets; i < l.n; i++) items.push({ cost: l.each, n: 1 });
  }
  items.sort((a, b) => a.cost / a.n - b.cost / b.n);
  for (const it of items) {
    if (it.cost <= left) {
      left -= it.cost;
      reached += it.n;
    } else {
      reached += (it.n * left) / it.cost;
      break;
    }
  }
  return reached;
}
