import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.js";
import { randomIds } from "../../src/ids.js";
import { runNightWithStore } from "../../src/night/compose.js";
import { siteOf } from "../../src/policy/site.js";
import { loadCatalogWithFiles } from "../../src/sources/catalog/load.js";
import { importCatalog } from "../../src/sources/catalog-import.js";
import { sourcesInUse } from "../../src/store/catalog-sources.js";
import { openStore, type Store } from "../../src/store/db.js";
import { type Fleet, type FleetServer, startFleet } from "../fleet/fleet.js";
import { drive } from "../fleet/harness.js";
import { feedEntry, rss, writeCatalog } from "./cli-night.js";

/**
 * The project's stricter rule beside P15 (a site down for the night), reviewed: what marks a
 * site down, and what a source not asked because of it is recorded as.
 * Real `nor night` wiring (compose.ts) towards loopback servers, in virtual time.
 */
const NIGHT = "2026-11-07";
const DEADLINE_MS = 10 * 60_000;
const GAP_MS = 200;

describe("P15, P13: a site down for the night, reviewed", () => {
  const clock = new ManualClock();
  let fleet: Fleet;
  /** A shared host: one source's page a 500 (a broken script), the others' feeds fine. */
  let shared: FleetServer;
  /** Every page a 503 for maintenance. */
  let vendor: FleetServer;
  /** A government's own site whose page moved to the vendor (a 301 there). */
  let city: FleetServer;
  let dir: string;
  let store: Store;
  let stopDriving: () => void = () => {};

  const entries = () => [
    feedEntry("sb", shared.url("/broken.rss")),
    feedEntry("s1", shared.url("/s1.rss")),
    feedEntry("s2", shared.url("/s2.rss")),
    feedEntry("vd", vendor.url("/vd.rss")),
    feedEntry("cr", city.url("/cr.rss")),
  ];

  const run = async (ids: readonly string[]) => {
    const sources = ((await sourcesInUse(store.db)) ?? []).filter((s) => ids.includes(s.id));
    await runNightWithStore(store, sources, {
      night: NIGHT,
      deadlineMs: DEADLINE_MS,
      concurrency: 2,
      clock,
      ids: randomIds,
      allowPrivateAddresses: true,
      gapMs: GAP_MS,
    });
  };

  const outcomeOf = async (id: string) =>
    store.db
      .selectFrom("night_sources")
      .select(["outcome", "reason", "status"])
      .where("night", "=", NIGHT)
      .where("source_id", "=", id)
      .executeTakeFirst();

  beforeAll(async () => {
    fleet = await startFleet({ now: () => clock.now() });
    shared = await fleet.server();
    shared.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    shared.route(
      "/broken.rss",
      (_q, res) => void res.writeHead(500).end("Fatal error in feed.php"),
    );
    for (const p of ["/s1.rss", "/s2.rss"])
      shared.route(p, (_q, res) => {
        res
          .writeHead(200, { "content-type": "application/rss+xml" })
          .end(rss(shared.origin, 2, p.slice(1, 3)));
      });
    vendor = await fleet.server();
    vendor.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    for (const p of ["/vd.rss", "/moved.rss"])
      vendor.route(p, (_q, res) => void res.writeHead(503).end("Down for maintenance"));
    city = await fleet.server();
    city.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    city.route(
      "/cr.rss",
      (_q, res) => void res.writeHead(301, { location: vendor.url("/moved.rss") }).end(),
    );
    dir = mkdtempSync(join(tmpdir(), "nor-site-down-review-"));
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

  it("P15: a 500 from one source's broken page (its retries used up) is that page's error, not its site down: the other sources on the host are asked and read", async () => {
    await run(["sb"]);
    expect(shared.hits("/broken.rss")).toHaveLength(3);
    await run(["sb", "s1", "s2"]);
    expect(shared.hits("/s1.rss")).toHaveLength(1);
    expect(shared.hits("/s2.rss")).toHaveLength(1);
    expect((await outcomeOf("s1"))?.outcome).toBe("ok");
    expect((await outcomeOf("s2"))?.outcome).toBe("ok");
    const st = await store.db
      .selectFrom("site_state")
      .select("down_night")
      .where("site", "=", siteOf(shared.origin))
      .executeTakeFirst();
    expect(st?.down_night ?? null).toBeNull();
  }, 60_000);

  it("P15, P13: a source whose page redirects to a site down tonight is not asked there and is recorded not reached because the site was down, not cut short by the night's time limit", async () => {
    await run(["vd"]);
    expect(vendor.hits("/vd.rss")).toHaveLength(3);
    await run(["vd", "cr"]);
    expect(city.hits("/cr.rss")).toHaveLength(1);
    expect(vendor.hits("/moved.rss")).toHaveLength(0);
    const cr = await outcomeOf("cr");
    expect(cr?.outcome).toBe("unreached");
    expect(cr?.reason).toMatch(/^the site was down tonight/);
    expect(cr?.reason).not.toContain("time limit");
    // The redirecting site itself answered: it is not down.
    const st = await store.db
      .selectFrom("site_state")
      .select("down_night")
      .where("site", "=", siteOf(city.origin))
      .executeTakeFirst();
    expect(st?.down_night ?? null).toBeNull();
  }, 60_000);
});
