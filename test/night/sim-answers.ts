import type { ManualClock } from "../../src/clock.js";
import { MemoryJournal, MemoryRobotsCache } from "../../src/net/memory-ports.js";
import type { Transport, TransportRequest, TransportResult } from "../../src/net/types.js";
import { buildSimulation, type SimSite, type Simulation } from "../../src/night/simulate.js";

const utf8 = new TextEncoder();
async function* once(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  yield bytes;
}

/**
 * A simulated site's answer to `req` other than its usual one: 100 ms on the clock, recorded in
 * `sim.observed` as the site saw it.
 */
export async function simAnswer(
  clock: ManualClock,
  sim: Simulation,
  site: string,
  req: TransportRequest,
  status: number,
  headers: Record<string, string>,
  body = "",
): Promise<TransportResult> {
  const start = clock.now();
  await clock.sleep(100, req.signal);
  sim.observed.push({ site, url: req.url, start, end: clock.now(), status });
  return { kind: "response", status, headers, body: once(utf8.encode(body)) };
}

/** A 503 (Retry-After 0): the site down for maintenance (P15). */
export function simDown(
  clock: ManualClock,
  sim: Simulation,
  site: string,
  req: TransportRequest,
): Promise<TransportResult> {
  return simAnswer(
    clock,
    sim,
    site,
    req,
    503,
    { "retry-after": "0", "content-type": "text/plain" },
    "down for maintenance",
  );
}

/** `base` whose page at `path` on `site` answers 503 while `down.on`. */
export function withPathDown(
  clock: ManualClock,
  base: Simulation,
  site: string,
  path: string,
): { sim: Simulation; down: { on: boolean } } {
  const down = { on: false };
  const sim: Simulation = {
    ...base,
    transport: async (req) =>
      down.on && new URL(req.url).pathname === path
        ? simDown(clock, base, site, req)
        : base.transport(req),
  };
  return { sim, down };
}

/** A recheck test's night options: an hour's time, one lane, the night's own journal and robots.txt copies. */
export function recheckNightOpts() {
  return {
    deadlineMs: 3600_000,
    concurrency: 1,
    journal: new MemoryJournal(),
    robotsCache: new MemoryRobotsCache(),
  };
}

/**
 * `sites` simulated, where a.org's page /list/0 answers a temporary redirect (302) to b.org's
 * https://www.b.org/moved/0?page=0, and `downSite`'s pages (not its robots.txt) answer 503 while
 * `down.on` (before any redirect).
 */
export function redirectAToB(
  clock: ManualClock,
  sites: readonly SimSite[],
  downSite: "a.org" | "b.org",
): { sim: Simulation; down: { on: boolean } } {
  const base = buildSimulation(clock, sites);
  const down = { on: false };
  const transport: Transport = async (req) => {
    const u = new URL(req.url);
    if (down.on && u.hostname === `www.${downSite}` && u.pathname !== "/robots.txt")
      return simDown(clock, base, downSite, req);
    if (u.hostname === "www.a.org" && u.pathname === "/list/0")
      return simAnswer(clock, base, "a.org", req, 302, {
        location: "https://www.b.org/moved/0?page=0",
      });
    return base.transport(req);
  };
  return { sim: { ...base, transport }, down };
}

/** b.org's `bPages` pages read (down while `down.on`), and a.org's one page redirecting (302) there. */
export function redirectToBDown(
  clock: ManualClock,
  bPages: number,
): { sim: Simulation; down: { on: boolean } } {
  return redirectAToB(
    clock,
    [
      { site: "b.org", latencyMs: 100, sources: bPages },
      { site: "a.org", latencyMs: 100, sources: 1 },
    ],
    "b.org",
  );
}

/** a.org's two pages (down while `down.on`), the first redirecting (302) to b.org's one page. */
export function redirectFromADown(clock: ManualClock): { sim: Simulation; down: { on: boolean } } {
  return redirectAToB(
    clock,
    [
      { site: "a.org", latencyMs: 100, sources: 2 },
      { site: "b.org", latencyMs: 100, sources: 1 },
    ],
    "a.org",
  );
}
