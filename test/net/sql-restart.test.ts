import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.js";
import { randomIds } from "../../src/ids.js";
import { createFetcher } from "../../src/net/fetcher.js";
import { openStore } from "../../src/store/db.js";
import { SqlJournal } from "../../src/store/journal.js";
import { SqlRequestLog } from "../../src/store/request-log.js";
import { SqlRobotsCache } from "../../src/store/robots-cache.js";
import { type Fleet, startFleet } from "../fleet/fleet.js";
import { gaps } from "../fleet/gaps.js";
import { fetchStepped } from "../fleet/harness.js";
import { html, robots, status } from "../fleet/routes.js";

let fleet: Fleet | undefined;
let dir: string | undefined;
afterEach(async () => {
  await fleet?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** One "process": a fresh store connection and a fresh fetcher over the same SQLite file. */
async function processRun(clock: ManualClock, storeDir: string, url: string, night?: string) {
  const store = await openStore({ kind: "sqlite", dir: storeDir });
  const f = createFetcher({
    clock,
    ids: randomIds,
    journal: new SqlJournal(store.db),
    robotsCache: new SqlRobotsCache(store.db),
    transportOptions: { allowPrivateAddresses: true },
    ...(night !== undefined ? { night } : {}),
  });
  // The gap's waits are the only sleeps here (up to the admission, then to the planned start):
  // let virtual time pass them.
  const out = await fetchStepped(clock, f, url);
  const log = await new SqlRequestLog(store.db).query({});
  await store.close();
  return { out, log };
}

it("P10, P16, P27: with the SQL store, the gap and the robots.txt cache survive a restart", async () => {
  const clock = new ManualClock();
  fleet = await startFleet({ now: () => clock.now() });
  dir = await mkdtemp(join(tmpdir(), "nor-restart-"));
  const s = await fleet.server();
  s.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
  s.route("/list", html("list"));
  const first = await processRun(clock, dir, s.url("/list"));
  expect(first.out.kind).toBe("ok");
  const second = await processRun(clock, dir, s.url("/list"));
  expect(second.out.kind).toBe("ok");
  // robots.txt once (cached in SQLite), and the second process waited the full 2 s.
  expect(s.requests.map((r) => r.path)).toEqual(["/robots.txt", "/list", "/list"]);
  expect(gaps(s.requests)[1]).toBeGreaterThanOrEqual(2000);
  expect(second.log.map((e) => [e.purpose, e.outcome])).toEqual([
    ["robots", "rules"],
    ["page", "ok"],
    ["page", "ok"],
  ]);
});

it("P20: with the SQL store, an unreachable robots.txt keeps the checker off for the rest of the night across a restart, and is asked again the next night", async () => {
  const clock = new ManualClock();
  fleet = await startFleet({ now: () => clock.now() });
  dir = await mkdtemp(join(tmpdir(), "nor-restart-"));
  const s = await fleet.server();
  s.route("/robots.txt", status(503));
  s.route("/list", html("list"));
  const first = await processRun(clock, dir, s.url("/list"), "2026-11-05");
  expect(first.out.kind).toBe("robots-unavailable");
  // A restart the same night: no second robots.txt request, and still no page request.
  const again = await processRun(clock, dir, s.url("/list"), "2026-11-05");
  expect(again.out.kind).toBe("robots-unavailable");
  expect(s.requests.map((r) => r.path)).toEqual(["/robots.txt"]);
  // The next night asks again.
  await clock.advance(60_000);
  const next = await processRun(clock, dir, s.url("/list"), "2026-11-06");
  expect(next.out.kind).toBe("robots-unavailable");
  expect(s.requests.map((r) => r.path)).toEqual(["/robots.txt", "/robots.txt"]);
});
