import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Fleet, type FleetServer, startFleet } from "../fleet/fleet.js";
import { nightCli, rss, writeCatalog } from "./cli-night.js";

/**
 * Government pages move (http → https, a new CMS path) and the catalog still names the old
 * URL. The validators belong to the page that answered, so the hop to its new URL is asked
 * conditionally (P12) and a 304 there is answered from that page's stored copy (P8). A 301 is
 * remembered (P11), so the next night asks the new URL directly (moved-permanently.test.ts).
 */
describe("a page that moved", () => {
  let fleet: Fleet;
  let site: FleetServer;
  let dir: string;
  let catalog: string;

  beforeAll(async () => {
    fleet = await startFleet();
    site = await fleet.server({ host: "127.0.0.13" });
    site.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    site.route(
      "/agendas.rss",
      (_q, res) => void res.writeHead(301, { location: "/feeds/agendas.xml" }).end(),
    );
    site.route("/feeds/agendas.xml", (req, res) => {
      if (req.headers["if-none-match"] === '"v7"')
        return void res.writeHead(304, { etag: '"v7"' }).end();
      res
        .writeHead(200, { "content-type": "application/rss+xml", etag: '"v7"' })
        .end(rss(site.origin, 3));
    });
    dir = mkdtempSync(join(tmpdir(), "nor-moved-"));
    catalog = writeCatalog(dir, [
      [
        "id: moved",
        "government: village-of-test",
        "records: agendas",
        "access: feed",
        `url: ${site.url("/agendas.rss")}`,
      ],
    ]);
  }, 60_000);

  afterAll(async () => {
    await fleet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("P12, P8: the next night asks the new URL with its validators, gets a 304, and keeps its records", async () => {
    expect((await nightCli(catalog, dir, "2026-11-05")).code).toBe(0);
    expect((await nightCli(catalog, dir, "2026-11-06")).code).toBe(0);
    const seen = site.requests.map((r) => [r.path, r.headers["if-none-match"] ?? null]);
    expect(seen).toEqual([
      ["/robots.txt", null],
      ["/agendas.rss", null],
      ["/feeds/agendas.xml", null],
      // P11: the 301 is remembered: the next night asks the new URL directly.
      ["/feeds/agendas.xml", '"v7"'],
    ]);
    const db = new Database(join(dir, "nor.db"), { readonly: true });
    try {
      const outcome = db
        .prepare("select outcome from night_sources where night = ? and source_id = ?")
        .get("2026-11-06", "moved") as { outcome: string };
      expect(outcome.outcome).toBe("unchanged");
      const n = db
        .prepare("select count(*) as n from records where source_id = ?")
        .get("moved") as { n: number };
      expect(n.n).toBe(3);
    } finally {
      db.close();
    }
  }, 120_000);
});
