/**
 * Review 8: clock differences between hosts sharing one PostgreSQL store.
 *
 * The night aligns its clock to the database server's (store-clock.ts), because the journal
 * decides from instants other processes wrote: a site's last end (P10), a lease's expiry
 * (P9). Every other process that sends through the same journal must use the same time, or
 * the host that runs ahead sends early. `nor discover` does not: it decides on its host's own
 * clock (night/discover.ts passes `opts.clock` to the fetcher and the archive).
 *
 * Here the night runs on "night-host" (its holder names that host, so this process cannot ask
 * whether it is alive) with the database-aligned clock; the operator runs `nor discover` on a
 * laptop whose clock is ahead of the database's. The servers' view is the judge.
 *
 * Failed on main at f6eaf40, ea58685, before the fix (it passes now):
 * - 3 min ahead: discover takes the night's in-flight lease as expired and sends alongside it
 *   (two requests in flight at one site, P9), marking the night's row interrupted.
 * - 10 s ahead: discover sends right after the night's request ended (gap ≪ 2 s, P10).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Clock, systemClock } from "../../src/clock.js";
import { randomIds } from "../../src/ids.js";
import type { SendIntent } from "../../src/net/journal.js";
import { discover } from "../../src/night/discover.js";
import { storeFetcher } from "../../src/night/store-fetcher.js";
import { MIN_GAP_MS } from "../../src/policy/constants.js";
import { openStore, type Store } from "../../src/store/db.js";
import { SqlJournal } from "../../src/store/journal.js";
import { sql } from "../../src/store/kysely.js";
import { storeClock } from "../../src/store/store-clock.js";
import { type Fleet, type FleetServer, startFleet } from "../fleet/fleet.js";
import { robots } from "../fleet/routes.js";
import { postgresFactory, postgresUrl } from "../store/stores.js";

const factory = postgresUrl ? postgresFactory(postgresUrl) : undefined;

/** A host whose clock runs `aheadMs` ahead of the database server's (and of this machine's). */
function hostClock(aheadMs: number): Clock {
  return { now: () => Date.now() + aheadMs, sleep: (ms, s) => systemClock.sleep(ms, s) };
}

const HOME = `<html><body><a href="/agendas">Agendas</a></body></html>`;

/**
 * The gap between requests to a site, on both sides: the floor (P10) shortened, as only a
 * loopback address with private addresses allowed may have it (net/options.ts). The clocks
 * differ by far more (10 s, 3 min), so the proof is the same as with the 2 s floor.
 */
const GAP_MS = 200;

describe.skipIf(!factory)("review 8: nor discover on PostgreSQL with another host's clock", () => {
  let fleet: Fleet;
  let store: Store;

  beforeAll(async () => {
    fleet = await startFleet();
    store = await openStore(await (factory as NonNullable<typeof factory>).migrated());
  });
  afterAll(async () => {
    await store?.close();
    await fleet?.close();
    await factory?.cleanup();
  });

  async function nightSide(holder: string) {
    const clock = await storeClock(store.db, systemClock);
    return storeFetcher({
      db: store.db,
      clock,
      ids: randomIds,
      net: { allowPrivateAddresses: true, gapMs: GAP_MS },
      night: "2026-11-05",
      holder,
    });
  }

  function siteWith(slow: Promise<void> | undefined): Promise<FleetServer> {
    return fleet.server().then((s) => {
      s.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
      s.route("/", (_q, res) => void res.writeHead(200, { "content-type": "text/html" }).end(HOME));
      s.route("/agendas", async (_q, res) => {
        if (slow) await slow;
        res.writeHead(200, { "content-type": "text/html" }).end(HOME);
      });
      return s;
    });
  }

  it("P9: a discover host 3 minutes ahead never sends while the night's request is in flight", async () => {
    let release!: () => void;
    const slow = new Promise<void>((r) => {
      release = r;
    });
    const site = await siteWith(slow);
    const night = await nightSide("night-host:4242:abcd1234");
    try {
      const inFlight = night.fetch({ url: site.url("/agendas"), purpose: "page" });
      for (let i = 0; i < 500 && site.hits("/agendas").length === 0; i++)
        await new Promise((r) => setTimeout(r, 10));
      expect(site.hits("/agendas")).toHaveLength(1);
      // The night's request is in flight (its server holds the answer) while discover runs.
      const found = discover(store, site.url("/"), {
        clock: hostClock(180_000),
        ids: randomIds,
        allowPrivateAddresses: true,
        gapMs: GAP_MS,
      });
      // Bounded: long enough for discover's admissions to go (its robots.txt, then the gap),
      // then let the night's request end so neither side waits forever.
      await Promise.race([found, new Promise((r) => setTimeout(r, 2 * GAP_MS + 1_000))]);
      const homeWhileInFlight = site.hits("/").length;
      release();
      await inFlight;
      await found;
      expect(
        homeWhileInFlight,
        "discover's GET / reached the site while /agendas was in flight",
      ).toBe(0);
    } finally {
      release();
      await night.close();
    }
  }, 30_000);

  it("P10: a discover host 10 s ahead waits the gap after the night's request ended", async () => {
    const site = await siteWith(undefined);
    const night = await nightSide("night-host:4243:abcd5678");
    try {
      const o = await night.fetch({ url: site.url("/agendas"), purpose: "page" });
      expect(o.kind).toBe("ok");
      await discover(store, site.url("/"), {
        clock: hostClock(10_000),
        ids: randomIds,
        allowPrivateAddresses: true,
        gapMs: GAP_MS,
      });
    } finally {
      await night.close();
    }
    const ended = site.hits("/agendas")[0]?.endedAt ?? Number.NaN;
    const home = site.hits("/")[0]?.startedAt ?? Number.NaN;
    expect(home - ended).toBeGreaterThanOrEqual(GAP_MS);
  }, 30_000);
});

/**
 * The night's own clock (store-clock.ts) is the host's clock plus an offset measured at the
 * start and again only every 5 minutes. A worker started before its host's clock was synced
 * (NTP/chrony steps the clock a few seconds, typical right after boot) keeps the stale offset
 * for up to 5 minutes and runs that much ahead of every other worker: the journal's decisions
 * (gap, lease expiry, Retry-After) are then taken on the wrong time. Store level: host A ends
 * a request; host B, whose clock was stepped +2.5 s after its offset was measured, is
 * admitted at once.
 *
 * Failed on main at f6eaf40, ea58685, before the fix (it passes now). The fix suggested then: on PostgreSQL take the decision time from
 * the database inside the admitting transaction (`clock_timestamp()` read with the site's row,
 * no extra round trip) and write the site's last end as greatest(endedAt, clock_timestamp())
 * at completion, so no host's clock (nor its offset estimate) decides P9/P10.
 */
describe.skipIf(!factory)(
  "review 8: a worker whose host clock is stepped after its offset was measured",
  () => {
    const night = "2026-11-05";
    const intent = (path: string): SendIntent => ({
      night,
      key: `GET ${path}`,
      method: "GET",
      url: `https://www.step.example.gov${path}`,
      site: "example.gov",
      origin: "https://www.step.example.gov",
      purpose: "page",
      gapMs: MIN_GAP_MS,
      replayAllowed: true,
    });

    it("P10: host B's admission waits the floor after host A's request ended, whatever B's clock did", async () => {
      const loc = await (factory as NonNullable<typeof factory>).fresh();
      const a = await openStore(loc);
      const b = await openStore(loc);
      try {
        const clockA = await storeClock(a.db, systemClock);
        // B's host clock is 2.5 s slow when the night starts; its offset is measured then …
        let stepped = -2_500;
        const baseB: Clock = {
          now: () => Date.now() + stepped,
          sleep: (ms, s) => systemClock.sleep(ms, s),
        };
        const clockB = await storeClock(b.db, baseB);
        // … and a moment later NTP steps it right. The offset is measured again in 5 minutes.
        stepped = 0;
        const ja = new SqlJournal(a.db);
        const jb = new SqlJournal(b.db);
        const first = await ja.admit(intent("/a"), "host-a:1:a", () => clockA.now());
        expect(first.kind).toBe("go");
        if (first.kind !== "go") return;
        const endedAt = clockA.now();
        await ja.complete(first.id, "host-a:1:a", {
          endedAt,
          status: 200,
          outcome: "ok",
          bytes: 1,
          final: true,
          closedEarly: false,
        });
        const second = await jb.admit(intent("/b"), "host-b:2:b", () => clockB.now());
        const dbNow = await sql<{
          ms: string | number;
        }>`select floor(extract(epoch from clock_timestamp()) * 1000) as ms`.execute(a.db);
        const sinceEnd = Number(dbNow.rows[0]?.ms) - endedAt;
        // Admitted to go less than the floor after A's end, by the database's own clock.
        expect(
          second.kind === "go" && sinceEnd < MIN_GAP_MS,
          `B admitted ${second.kind} ${sinceEnd} ms after A's end`,
        ).toBe(false);
      } finally {
        await a.close();
        await b.close();
      }
    }, 30_000);
  },
);
