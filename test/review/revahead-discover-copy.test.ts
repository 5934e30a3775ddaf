import { afterEach, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.js";
import { randomIds } from "../../src/ids.js";
import { createFetcher } from "../../src/net/fetcher.js";
import { MemoryArchive, MemoryJournal, MemoryRobotsCache } from "../../src/net/memory-ports.js";
import { type Fleet, startFleet } from "../fleet/fleet.js";
import { fetchStepped } from "../fleet/harness.js";
import { html, robots } from "../fleet/routes.js";

/**
 * P8 (migration 038): a stored copy is a night's own answer only when that night's request
 * saved it. A copy saved outside any night (`nor discover`) is saved by no night: it names none,
 * though the journal names its requests by the day's date (the night of that name, when it
 * runs, must not take a copy discover saved for its own answer, never asking the page).
 */
let fleet: Fleet | undefined;
afterEach(async () => {
  await fleet?.close();
  fleet = undefined;
});

async function fetchOnce(clock: ManualClock, url: string, archive: MemoryArchive, night?: string) {
  const f = createFetcher({
    clock,
    ids: randomIds,
    journal: new MemoryJournal(),
    robotsCache: new MemoryRobotsCache(),
    archive,
    transportOptions: { allowPrivateAddresses: true },
    ...(night !== undefined ? { night } : {}),
  });
  const out = await fetchStepped(clock, f, url);
  return out;
}

it("P8: a copy saved outside any night (nor discover) names no night; one a night saved names it", async () => {
  const clock = new ManualClock();
  fleet = await startFleet({ now: () => clock.now() });
  const s = await fleet.server();
  s.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
  s.route("/list", html("list"));
  const outside = new MemoryArchive();
  expect((await fetchOnce(clock, s.url("/list"), outside)).kind).toBe("ok");
  const page = outside.exchanges.find((e) => e.request.url.endsWith("/list"));
  expect(page).toBeDefined();
  expect(page?.night).toBeUndefined();
  const inNight = new MemoryArchive();
  expect((await fetchOnce(clock, s.url("/list"), inNight, "2026-11-05")).kind).toBe("ok");
  expect(inNight.exchanges.find((e) => e.request.url.endsWith("/list"))?.night).toBe("2026-11-05");
});
