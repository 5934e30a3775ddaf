import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { load } from "cheerio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nextSteps } from "../../src/cli/night-report.js";
import { ManualClock } from "../../src/clock.js";
import { randomIds } from "../../src/ids.js";
import { runNightWithStore } from "../../src/night/compose.js";
import { type PlannedSource, planLanes } from "../../src/night/lanes.js";
import type { NightOutcomeKind } from "../../src/night/types.js";
import { addDays } from "../../src/policy/night-date.js";
import { siteOf } from "../../src/policy/site.js";
import { loadCatalogWithFiles } from "../../src/sources/catalog/load.js";
import { importCatalog } from "../../src/sources/catalog-import.js";
import { nightTotals } from "../../src/store/admin.js";
import { sourcesInUse } from "../../src/store/catalog-sources.js";
import { openStore, type Store } from "../../src/store/db.js";
import { SqlNightStore } from "../../src/store/night-store.js";
import { createApp } from "../../src/web/app.js";
import { type Fleet, type FleetServer, startFleet } from "../fleet/fleet.js";
import { drive } from "../fleet/harness.js";
import { feedEntry, rss, writeCatalog } from "./cli-night.js";

/**
 * P15 and the project's stricter rule beside it: a site that is plainly down (every page a 503
 * for maintenance, a 502 or 504 from a dead backend) is asked about one source a night, not
 * every source three times. Once one request to the site has ended in a 5xx after its retries
 * (or with a Retry-After over 60 s: no retry tonight), the site is down for the rest of the
 * night: its other sources are not sent, recorded not reached with the reason, and go first
 * next night (P13). Not a no (P21): not shown as one, no flag for one. Decided from the store
 * at the moment of sending, so a restarted night (a new process, a new store handle) sees it.
 * Real `nor night` wiring (compose.ts) towards loopback servers, in virtual time.
 */
const NIGHT = "2026-11-05";
const DEADLINE_MS = 10 * 60_000;
const GAP_MS = 200;

const maintenance = "<html><body><h1>Down for maintenance</h1><p>Back soon.</p></body></html>";

describe("P15, P13: a site down for the night is asked about one source, not each source three times", () => {
  const clock = new ManualClock();
  let fleet: Fleet;
  /** Every page a 503 maintenance page (no Retry-After: 5 s, then 20 s). */
  let down: FleetServer;
  /** Every page a 502 with Retry-After: 120 (over 60 s: no retry tonight; within the night). */
  let later: FleetServer;
  /** Every page's first request a 503, its retry a 200: a blip, not a site down. */
  let blip: FleetServer;
  let dir: string;
  let store: Store;
  let stopDriving: () => void = () => {};
  const downPaths = ["/d1.rss", "/d2.rss", "/d3.rss"];
  const laterPaths = ["/l1.rss", "/l2.rss"];
  const blipPaths = ["/b1.rss", "/b2.rss", "/b3.rss"];

  const entries = () => [
    ...downPaths.map((p) => feedEntry(p.slice(1, 3), down.url(p))),
    ...laterPaths.map((p) => feedEntry(p.slice(1, 3), later.url(p))),
    ...blipPaths.map((p) => feedEntry(p.slice(1, 3), blip.url(p))),
  ];

  beforeAll(async () => {
    fleet = await startFleet({ now: () => clock.now() });
    down = await fleet.server();
    down.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    for (const p of [...downPaths, "/d4.rss"])
      down.route(
        p,
        (_q, res) => void res.writeHead(503, { "content-type": "text/html" }).end(maintenance),
      );
    later = await fleet.server();
    later.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    for (const p of laterPaths)
      later.route(p, (_q, res) => void res.writeHead(502, { "retry-after": "120" }).end("bad"));
    blip = await fleet.server();
    blip.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    for (const p of blipPaths)
      blip.route(p, (_q, res, { count }) => {
        if (count === 1) return void res.writeHead(503).end("a moment");
        res
          .writeHead(200, { "content-type": "application/rss+xml" })
          .end(rss(blip.origin, 2, p.slice(1, 3)));
      });
    dir = mkdtempSync(join(tmpdir(), "nor-site-down-"));
    store = await openStore({ kind: "sqlite", dir });
    const file = writeCatalog(dir, entries());
    const { catalog, origins } = loadCatalogWithFiles([file]);
    await importCatalog(store.db, catalog, origins, clock.now());
    await import("../../src/sources/extract/feed.js");
    await import("../../src/sources/catalog/schema.js");
    stopDriving = drive(clock);
  }, 60_000);

  afterAll(async () => {
    stopDriving();
    await store?.close();
    await fleet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const outcomesOf = async (s: Store, night: string) =>
    new Map(
      (
        await s.db
          .selectFrom("night_sources")
          .select(["source_id", "outcome", "reason", "status"])
          .where("night", "=", night)
          .execute()
      ).map((r) => [r.source_id, r]),
    );

  it("P15, P13: three sources on a site answering 503 for maintenance: three requests for the first, none for the others (recorded not reached, the site down, not a no); a Retry-After over 60 s on a 502 alike; a 503 that clears on retry changes nothing; next night the unasked go first", async () => {
    const sources = (await sourcesInUse(store.db)) ?? [];
    await runNightWithStore(store, sources, {
      night: NIGHT,
      deadlineMs: DEADLINE_MS,
      concurrency: 3,
      clock,
      ids: randomIds,
      allowPrivateAddresses: true,
      gapMs: GAP_MS,
    });

    // The down site: one source asked three times (P15), the others never.
    const downHits = downPaths.map((p) => down.hits(p).length).sort();
    expect(downHits).toEqual([0, 0, 3]);
    const first = downPaths.find((p) => down.hits(p).length === 3) ?? "";
    // A Retry-After over 60 s: no retry tonight, and the site down for the night.
    const laterHits = laterPaths.map((p) => later.hits(p).length).sort();
    expect(laterHits).toEqual([0, 1]);
    const laterFirst = laterPaths.find((p) => later.hits(p).length === 1) ?? "";
    // A blip: each page's 503 cleared on its retry; every source read.
    expect(blipPaths.map((p) => blip.hits(p).length)).toEqual([2, 2, 2]);

    const outcomes = await outcomesOf(store, NIGHT);
    const of = (id: string) => outcomes.get(id);
    expect(of(first.slice(1, 3))).toMatchObject({ outcome: "error", status: 503 });
    for (const p of downPaths.filter((x) => x !== first)) {
      const o = of(p.slice(1, 3));
      expect(o?.outcome).toBe("unreached");
      expect(o?.reason).toContain("HTTP 503");
      expect(o?.reason).toContain("not asked again tonight");
      expect(o?.reason).toMatch(/^the site was down tonight/);
    }
    expect(of(laterFirst.slice(1, 3))).toMatchObject({ outcome: "error", status: 502 });
    for (const p of laterPaths.filter((x) => x !== laterFirst)) {
      const o = of(p.slice(1, 3));
      expect(o?.outcome).toBe("unreached");
      expect(o?.reason).toContain("HTTP 502");
      expect(o?.reason).toContain("Retry-After");
    }
    for (const p of blipPaths) expect(of(p.slice(1, 3))?.outcome).toBe("ok");

    // Not a no (P21): no refused outcome, no flag, the site not closed.
    expect([...outcomes.values()].some((o) => o.outcome === "refused")).toBe(false);
    const flags = await store.db.selectFrom("flags").selectAll().execute();
    expect(flags).toEqual([]);
    const closed = await store.db
      .selectFrom("site_state")
      .select(["site", "closed_night"])
      .where("closed_night", "is not", null)
      .execute();
    expect(closed).toEqual([]);

    // The night's summary: the down site's sources said apart from the deadline's.
    const { outcomes: byKind, checked, newRecords, ...counts } = await nightTotals(store.db, NIGHT);
    const end = {
      night: NIGHT,
      resumed: false,
      deadlineAt: clock.now() + 1,
      alreadyDone: 0,
      skippedNotRead: 0,
      lanes: 3,
      checkerOffline: false,
      ...counts,
      outcomes: byKind as Partial<Record<NightOutcomeKind, number>>,
      planned: checked,
      newRecords,
      startedAt: clock.now(),
      endedAt: clock.now(),
    };
    const steps = nextSteps(end).join("\n");
    expect(steps).not.toMatch(/not reached before the deadline/);
    expect(steps).toContain(
      "3 sources not asked: their site was down (a 5xx after its retries, or a Retry-After over 60 s), not asked again that night",
    );

    // The source's public page: down, never a no.
    const app = createApp({ db: store.db, now: () => clock.now() });
    const unasked = downPaths.find((x) => x !== first)?.slice(1, 3) ?? "";
    const page = await app.request(`/sources/${unasked}`);
    expect(page.status).toBe(200);
    const text = load(await page.text())("body")
      .text()
      .replace(/\s+/g, " ");
    expect(text).toContain("not asked: the site was down");
    expect(text).not.toContain("no: refused");
    expect(text).not.toContain("ran out of time");

    // P13: next night the unasked go first on their site.
    const next = addDays(NIGHT, 1);
    const histories = await new SqlNightStore(store.db).histories(
      next,
      sources.map((s) => s.id),
    );
    for (const p of downPaths.filter((x) => x !== first))
      expect(histories.get(p.slice(1, 3))?.unreachedLast).toBe(true);
    const planned: PlannedSource[] = sources.map((source) => {
      const history = histories.get(source.id);
      if (history === undefined) throw new Error(`no history for ${source.id}`);
      return { source, history };
    });
    const lanes = planLanes(planned, (s) => siteOf(s.url));
    const downLane = lanes.find((l) => l.sources.some((s) => s.source.id === "d1"));
    const order = downLane?.sources.map((s) => s.source.id) ?? [];
    expect(order.at(-1)).toBe(first.slice(1, 3));
  }, 60_000);

  it("P15: a restarted night (a new store handle, a new fetcher) reads the site down from the store: a source added to it that night is not sent either", async () => {
    const before = down.requests.length;
    await store.close();
    store = await openStore({ kind: "sqlite", dir });
    const file = writeCatalog(dir, [...entries(), feedEntry("d4", down.url("/d4.rss"))]);
    const { catalog, origins } = loadCatalogWithFiles([file]);
    await importCatalog(store.db, catalog, origins, clock.now());
    const sources = (await sourcesInUse(store.db)) ?? [];
    await runNightWithStore(store, sources, {
      night: NIGHT,
      deadlineMs: DEADLINE_MS,
      concurrency: 2,
      clock,
      ids: randomIds,
      allowPrivateAddresses: true,
      gapMs: GAP_MS,
    });
    expect(down.hits("/d4.rss")).toHaveLength(0);
    expect(down.requests.length).toBe(before);
    const d4 = (await outcomesOf(store, NIGHT)).get("d4");
    expect(d4?.outcome).toBe("unreached");
    expect(d4?.reason).toContain("HTTP 503");
  }, 60_000);
});
