/**
 * revclock: fc6ec09d made a site's last end stamped more than a minute after now count as now,
 * and WRITTEN as now: the only write that moves a site's last end back (laterOf keeps the later
 * everywhere else, "a hold never shortens"). Now is the admitting process's clock. On
 * PostgreSQL each process's clock is its own reading of the database server's (store-clock.ts,
 * measured again only every 5 minutes, carried between by the monotonic clock, which a suspend
 * stops): when the server's clock is set back (the very fault fc6ec09d answers, on PostgreSQL
 * the only clock that stamps ends), a process that has measured it again and one that has not
 * yet disagree by the step. The one behind writes its now over the site's end; the one ahead
 * then reads an end minutes in its past and sends with no gap after the request that just
 * ended. Before fc6ec09d the process behind held the site (fail closed) and nothing was sent
 * early. The servers' view is the judge.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Clock, systemClock } from "../../src/clock.js";
import { randomIds } from "../../src/ids.js";
import { storeFetcher } from "../../src/night/store-fetcher.js";
import { openStore, type Store } from "../../src/store/db.js";
import { type Fleet, startFleet } from "../fleet/fleet.js";
import { html, robots } from "../fleet/routes.js";
import { postgresFactory, postgresUrl } from "../store/stores.js";

const factory = postgresUrl ? postgresFactory(postgresUrl) : undefined;

/** A process's reading of the database server's time, `offsetMs` from this machine's. */
function reading(offsetMs: number): Clock {
  return { now: () => Date.now() + offsetMs, sleep: (ms, s) => systemClock.sleep(ms, s) };
}

/** The gap between requests, as loopback with private addresses allowed may shorten it. */
const GAP_MS = 300;
/** How far the database server's clock was set back (more than END_AHEAD_KEPT_MS). */
const STEP_MS = 5 * 60_000;

describe.skipIf(!factory)(
  "revclock: a site's end counted as now, across processes (PostgreSQL)",
  () => {
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

    it("P10: two workers whose readings of the server's clock differ by its step (one measured it again after it was set back 5 min, one not yet) never send to a site less than the gap after its last request ended", async () => {
      const s = await fleet.server();
      s.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
      for (const p of ["/a", "/b", "/c"]) s.route(p, html("<ul><li>x</li></ul>"));
      // Each with a deadline a minute after its own now: a site held past it is not tonight (the
      // process behind, held as before fc6ec09d, returns rather than sleeps its 5 minutes).
      const worker = (holder: string, clock: Clock) =>
        storeFetcher({
          deadline: clock.now() + 60_000,
          db: store.db,
          clock,
          ids: randomIds,
          net: { allowPrivateAddresses: true, gapMs: GAP_MS },
          night: "2026-11-05",
          holder,
        });
      // Not yet measured again: still on the server's time before it was set back.
      const ahead = worker("host-a:4101:aaaa1111", reading(0));
      // Measured again: the server's time now, STEP_MS behind the other's reading.
      const behind = worker("host-b:4102:bbbb2222", reading(-STEP_MS));
      try {
        expect((await ahead.fetch({ url: s.url("/a"), purpose: "page" })).kind).toBe("ok");
        await behind.fetch({ url: s.url("/b"), purpose: "page" });
        await ahead.fetch({ url: s.url("/c"), purpose: "page" });
      } finally {
        await ahead.close();
        await behind.close();
      }
      const seen = [...s.requests].sort((x, y) => x.startedAt - y.startedAt);
      expect(seen.map((r) => r.path)).toContain("/a");
      for (let i = 1; i < seen.length; i++) {
        const prev = seen[i - 1]!;
        const next = seen[i]!;
        expect(
          next.startedAt - prev.endedAt,
          `${next.path} started ${next.startedAt - prev.endedAt} ms after ${prev.path} ended`,
        ).toBeGreaterThanOrEqual(GAP_MS);
      }
    }, 30_000);
  },
);
