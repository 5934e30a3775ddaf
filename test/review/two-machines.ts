/**
 * Two machines over one PostgreSQL store, each with a data directory (archive) of its own, as
 * docs/operations.md allows: the setup the tdurable and revmachines two-machine tests share.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { systemClock } from "../../src/clock.js";
import { randomIds } from "../../src/ids.js";
import { createFetcher, type FetcherOptions, type PoliteFetcher } from "../../src/net/fetcher.js";
import type { FetchOutcome } from "../../src/net/types.js";
import { WarcArchive } from "../../src/store/archive/warc-archive.js";
import { openStore, type Store } from "../../src/store/db.js";
import { SqlJournal } from "../../src/store/journal.js";
import { SqlRobotsCache } from "../../src/store/robots-cache.js";
import { type Fleet, type FleetServer, startFleet } from "../fleet/fleet.js";
import type { StoreFactory } from "../store/stores.js";

export interface TwoMachines {
  fleet: Fleet;
  machineA: Store;
  machineB: Store;
  dirA: string;
  dirB: string;
}

/**
 * Starts a fleet, opens one fresh store twice (machine A and B) and makes each a data directory
 * (pushed on `dirs` for the file's afterAll to remove); runs `body`, then closes both stores and
 * the fleet, whatever `body` did.
 */
export async function withTwoMachines(
  factory: StoreFactory,
  dirs: string[],
  body: (m: TwoMachines) => Promise<void>,
): Promise<void> {
  const fleet = await startFleet();
  const loc = await factory.fresh();
  const machineA = await openStore(loc);
  const machineB = await openStore(loc);
  const dirA = mkdtempSync(join(tmpdir(), "nor-tdurable-a-"));
  const dirB = mkdtempSync(join(tmpdir(), "nor-tdurable-b-"));
  dirs.push(dirA, dirB);
  try {
    await body({ fleet, machineA, machineB, dirA, dirB });
  } finally {
    await machineA.close();
    await machineB.close();
    await fleet.close();
  }
}

/**
 * One machine's fetcher: the real system clock, its store's journal and robots cache, its own
 * archive in `dir`, loopback allowed, a 100 ms floor gap (`more` overrides any of these).
 */
export async function machineFetcher(
  store: Store,
  dir: string,
  holder: string,
  more: Partial<FetcherOptions> = {},
): Promise<PoliteFetcher> {
  return createFetcher({
    clock: systemClock,
    ids: randomIds,
    holder,
    journal: new SqlJournal(store.db),
    robotsCache: new SqlRobotsCache(store.db),
    archive: await WarcArchive.open(dir, {
      db: store.db,
      clock: systemClock,
      ids: randomIds,
    }),
    transportOptions: { allowPrivateAddresses: true },
    gapMs: 100,
    ...more,
  });
}

/**
 * Routes `site`'s /robots.txt to answer `body` (text/plain, 200) 400 ms after it is asked, so
 * the other machine asks meanwhile; the promise resolves when the request arrives.
 */
export function slowRobots(site: FleetServer, body: string): Promise<void> {
  let robotsArrived!: () => void;
  const arrived = new Promise<void>((r) => {
    robotsArrived = r;
  });
  site.route("/robots.txt", (_req, res) => {
    robotsArrived();
    setTimeout(() => void res.writeHead(200, { "content-type": "text/plain" }).end(body), 400);
  });
  return arrived;
}

/**
 * Machine A (host-a) asks `site`'s /a for source gov-a; once the robots.txt request has
 * `arrived`, machine B (host-b) asks /b for gov-b. Both fetchers are closed before returning
 * the two outcomes.
 */
export async function raceTwoMachines(
  m: TwoMachines,
  site: FleetServer,
  arrived: Promise<void>,
): Promise<[FetchOutcome, FetchOutcome]> {
  const a = await machineFetcher(m.machineA, m.dirA, "host-a:101:aaaa");
  const b = await machineFetcher(m.machineB, m.dirB, "host-b:202:bbbb");
  const first = a.fetch({ url: site.url("/a"), purpose: "page", source: "gov-a" });
  await arrived;
  const second = b.fetch({ url: site.url("/b"), purpose: "page", source: "gov-b" });
  const outcomes = await Promise.all([first, second]);
  await a.close();
  await b.close();
  return outcomes;
}
