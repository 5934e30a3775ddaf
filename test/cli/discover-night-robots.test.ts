import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.js";
import { randomIds } from "../../src/ids.js";
import { runNightWithStore } from "../../src/night/compose.js";
import { discover } from "../../src/night/discover.js";
import { loadCatalogWithFiles } from "../../src/sources/catalog/load.js";
import { importCatalog } from "../../src/sources/catalog-import.js";
import { sourcesInUse } from "../../src/store/catalog-sources.js";
import { openStore, type Store } from "../../src/store/db.js";
import { SqlRobotsCache } from "../../src/store/robots-cache.js";
import { type Fleet, type FleetServer, type Handler, startFleet } from "../fleet/fleet.js";
import { drive } from "../fleet/harness.js";
import { feedEntry, writeCatalog } from "../night/cli-night.js";

/**
 * P16, P20 across commands: robots.txt is read at most once a day per origin, and an
 * unreachable one (a 503, a 429, a connection closed, a body cut off) keeps the checker off the
 * origin for the rest of that day, whichever of `nor discover` and `nor night` found it. Real
 * wiring (discover's and the night's composition over the SQLite store, undici) towards a
 * loopback server, in virtual time: one ManualClock for discover, the night and the server's
 * stamps. The night of discover's own date would also find discover's answer in the journal
 * (filed under that date, replayed, P8); a past night caught up that day would not, so there
 * only the stored robots.txt answer (policy/robots/copy-age.ts) keeps it off.
 */
const HOUR = 60 * 60 * 1000;
/** 10:00 New York time (EST) on 2026-11-05. */
const MORNING = Date.UTC(2026, 10, 5, 15, 0, 0);
const NIGHT = "2026-11-05";
const NEXT_NIGHT = "2026-11-06";
const DAY_AFTER = "2026-11-07";

/** Ways robots.txt can be unreachable (P20), each answered to every request for it. */
const UNREACHABLE: [string, Handler][] = [
  ["answering 503", (_q, res) => void res.writeHead(503).end("down for maintenance")],
  ["answering 429", (_q, res) => void res.writeHead(429).end("slow down")],
  ["its connection closed before any answer", (q) => void q.socket.destroy()],
  [
    "its body cut off mid-transfer",
    (q, res) => {
      res.writeHead(200, { "content-type": "text/plain", "content-length": "1000" });
      res.write("User-agent: *\nAllow: /\n", () => q.socket.destroy());
    },
  ],
];

describe.each(UNREACHABLE)(
  "P16, P20: robots.txt %s, found by nor discover or by a night, holds for the other the same day",
  (_how, robots) => {
    let clock: ManualClock;
    let fleet: Fleet;
    let down: FleetServer;
    let dir: string;
    let store: Store;
    let stopDriving: () => void = () => {};

    beforeEach(async () => {
      clock = new ManualClock(MORNING);
      fleet = await startFleet({ now: () => clock.now() });
      down = await fleet.server();
      down.route("/robots.txt", robots);
      down.route("/", (_q, res) => {
        res.writeHead(200, { "content-type": "text/html" }).end('<a href="/AgendaCenter">A</a>');
      });
      down.route("/feed.xml", (_q, res) => {
        res.writeHead(200, { "content-type": "application/rss+xml" }).end("<rss/>");
      });
      dir = mkdtempSync(join(tmpdir(), "nor-discover-night-robots-"));
      store = await openStore({ kind: "sqlite", dir });
      const file = writeCatalog(dir, [
        feedEntry("down-a", down.url("/feed.xml")),
        feedEntry("down-b", down.url("/feed.xml?b=1")),
      ]);
      const { catalog, origins } = loadCatalogWithFiles([file]);
      await importCatalog(store.db, catalog, origins, clock.now());
      await import("../../src/sources/extract/feed.js");
      await import("../../src/sources/catalog/schema.js");
      stopDriving = drive(clock);
    }, 60_000);

    afterEach(async () => {
      stopDriving();
      await store?.close();
      await fleet?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    const runDiscover = () =>
      discover(store, down.url("/"), {
        clock,
        ids: randomIds,
        dataDir: dir,
        allowPrivateAddresses: true,
        gapMs: 50,
      });

    const runNight = async (night: string) =>
      runNightWithStore(store, (await sourcesInUse(store.db)) ?? [], {
        night,
        deadlineMs: HOUR,
        concurrency: 2,
        clock,
        ids: randomIds,
        dataDir: dir,
        allowPrivateAddresses: true,
        gapMs: 50,
      });

    const outcomes = async (night: string) =>
      Object.fromEntries(
        (
          await store.db
            .selectFrom("night_sources")
            .select(["source_id", "outcome"])
            .where("night", "=", night)
            .execute()
        ).map((r) => [r.source_id, r.outcome]),
      );

    const paths = () => down.requests.map((q) => q.path);

    it("P16, P20: robots.txt unreachable to nor discover in the morning is not asked again by that day's night: the night sends nothing to the origin and records its no for every source there; the next day's night asks again", async () => {
      expect(await runDiscover()).toMatchObject({
        kind: "not-read",
        outcome: { kind: "robots-unavailable" },
      });
      expect(paths()).toEqual(["/robots.txt"]);
      expect(await new SqlRobotsCache(store.db).get(down.origin)).toMatchObject({
        state: "unreachable",
      });

      // 22:00 New York, the same day: that day's night.
      await clock.advance(12 * HOUR);
      await runNight(NIGHT);
      expect(paths()).toEqual(["/robots.txt"]);
      expect(await outcomes(NIGHT)).toEqual({
        "down-a": "robots-unavailable",
        "down-b": "robots-unavailable",
      });

      // 22:00 New York the next day: the next night reads robots.txt again (still unreachable).
      await clock.advance(24 * HOUR);
      await runNight(NEXT_NIGHT);
      expect(paths()).toEqual(["/robots.txt", "/robots.txt"]);
      expect(await outcomes(NEXT_NIGHT)).toEqual({
        "down-a": "robots-unavailable",
        "down-b": "robots-unavailable",
      });
    }, 60_000);

    it("P16, P20: robots.txt unreachable to nor discover holds for a past night caught up that day (the journal files discover's request under today's date, not the night's): nothing sent to the origin, the night's no for every source there; that day's own night asks nothing either, the next day's asks again", async () => {
      // 10:00 New York on 2026-11-06: discover finds robots.txt unreachable.
      await clock.advance(24 * HOUR);
      expect(await runDiscover()).toMatchObject({
        kind: "not-read",
        outcome: { kind: "robots-unavailable" },
      });
      expect(paths()).toEqual(["/robots.txt"]);

      // 14:00: the night of 2026-11-05, caught up.
      await clock.advance(4 * HOUR);
      await runNight(NIGHT);
      expect(paths()).toEqual(["/robots.txt"]);
      expect(await outcomes(NIGHT)).toEqual({
        "down-a": "robots-unavailable",
        "down-b": "robots-unavailable",
      });

      // 22:00: that day's own night.
      await clock.advance(8 * HOUR);
      await runNight(NEXT_NIGHT);
      expect(paths()).toEqual(["/robots.txt"]);
      expect(await outcomes(NEXT_NIGHT)).toEqual({
        "down-a": "robots-unavailable",
        "down-b": "robots-unavailable",
      });

      // 22:00 the day after: that night reads robots.txt again.
      await clock.advance(24 * HOUR);
      await runNight(DAY_AFTER);
      expect(paths()).toEqual(["/robots.txt", "/robots.txt"]);
      expect(await outcomes(DAY_AFTER)).toEqual({
        "down-a": "robots-unavailable",
        "down-b": "robots-unavailable",
      });
    }, 60_000);

    it("P16, P20: robots.txt a night found unreachable keeps a later nor discover that day off the origin; the next day discover asks again", async () => {
      // 22:00 New York: the night finds robots.txt unreachable.
      await clock.advance(12 * HOUR);
      await runNight(NIGHT);
      expect(paths()).toEqual(["/robots.txt"]);
      expect(await outcomes(NIGHT)).toEqual({
        "down-a": "robots-unavailable",
        "down-b": "robots-unavailable",
      });

      // 23:30 the same day, the night over: discover asks nothing of the origin.
      await clock.advance(90 * 60 * 1000);
      expect(await runDiscover()).toMatchObject({
        kind: "not-read",
        outcome: { kind: "robots-unavailable" },
      });
      expect(paths()).toEqual(["/robots.txt"]);

      // Noon the next day: asked again (still unreachable), the homepage still not.
      await clock.advance(12.5 * HOUR);
      expect(await runDiscover()).toMatchObject({
        kind: "not-read",
        outcome: { kind: "robots-unavailable" },
      });
      expect(paths()).toEqual(["/robots.txt", "/robots.txt"]);
    }, 60_000);
  },
);

describe("P16: an allowed robots.txt nor discover read holds for the nights run that day, as an unreachable one does", () => {
  let clock: ManualClock;
  let fleet: Fleet;
  let site: FleetServer;
  let dir: string;
  let store: Store;
  let stopDriving: () => void = () => {};

  beforeEach(async () => {
    clock = new ManualClock(MORNING);
    fleet = await startFleet({ now: () => clock.now() });
    site = await fleet.server();
    site.route("/robots.txt", (_q, res) => {
      res.writeHead(200, { "content-type": "text/plain" }).end("User-agent: *\nAllow: /\n");
    });
    site.route("/", (_q, res) => {
      res.writeHead(200, { "content-type": "text/html" }).end('<a href="/AgendaCenter">A</a>');
    });
    site.route("/feed.xml", (_q, res) => {
      res.writeHead(200, { "content-type": "application/rss+xml" }).end("<rss/>");
    });
    dir = mkdtempSync(join(tmpdir(), "nor-discover-night-robots-"));
    store = await openStore({ kind: "sqlite", dir });
    const file = writeCatalog(dir, [feedEntry("up-a", site.url("/feed.xml"))]);
    const { catalog, origins } = loadCatalogWithFiles([file]);
    await importCatalog(store.db, catalog, origins, clock.now());
    await import("../../src/sources/extract/feed.js");
    await import("../../src/sources/catalog/schema.js");
    stopDriving = drive(clock);
  }, 60_000);

  afterEach(async () => {
    stopDriving();
    await store?.close();
    await fleet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const runNight = async (night: string) =>
    runNightWithStore(store, (await sourcesInUse(store.db)) ?? [], {
      night,
      deadlineMs: HOUR,
      concurrency: 2,
      clock,
      ids: randomIds,
      dataDir: dir,
      allowPrivateAddresses: true,
      gapMs: 50,
    });

  const robotsReads = () => site.requests.filter((q) => q.path === "/robots.txt").length;

  it("P16: robots.txt nor discover read in the morning is not read again by a past night caught up that afternoon, nor by that day's own night; the next day's night reads it", async () => {
    // 10:00 New York on 2026-11-06: discover reads robots.txt and the homepage.
    await clock.advance(24 * HOUR);
    expect(
      await discover(store, site.url("/"), {
        clock,
        ids: randomIds,
        dataDir: dir,
        allowPrivateAddresses: true,
        gapMs: 50,
      }),
    ).toMatchObject({ kind: "found" });
    expect(robotsReads()).toBe(1);

    // 14:00: the night of 2026-11-05, caught up: its feed is read, robots.txt not again.
    await clock.advance(4 * HOUR);
    await runNight(NIGHT);
    expect(site.requests.map((q) => q.path)).toContain("/feed.xml");
    expect(robotsReads()).toBe(1);

    // 22:00: that day's own night: not read again either.
    await clock.advance(8 * HOUR);
    await runNight(NEXT_NIGHT);
    expect(robotsReads()).toBe(1);

    // 22:00 the day after: read again.
    await clock.advance(24 * HOUR);
    await runNight(DAY_AFTER);
    expect(robotsReads()).toBe(2);
  }, 60_000);
});
