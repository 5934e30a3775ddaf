/**
 * Review 8: an answer received in full tonight is never asked for again (P8; the journal's
 * "whether its complete answer is already stored: then it is never asked again tonight").
 *
 * Two sources whose catalog URLs both redirect to one page (an old CMS path and a short link,
 * both 301 to the list page; or a resumed night re-walking the redirect of a source whose
 * commit a kill prevented). The first walk stores the page's answer and its ETag. The second
 * walk asks the redirect target with that ETag (validatorsFor reads the capture written
 * minutes ago), which is another journal key, so the journal does not see the answer it
 * already holds and the page is requested again (a conditional GET answered 304).
 *
 * Expected to FAIL on main (f6eaf40): the server sees GET /feeds/agendas.xml twice.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Fleet, type FleetServer, startFleet } from "../fleet/fleet.js";
import { nightCli, rss, writeCatalog } from "../night/cli-night.js";

describe("review 8: a redirect target answered in full tonight", () => {
  let fleet: Fleet;
  let site: FleetServer;
  let dir: string;

  beforeAll(async () => {
    fleet = await startFleet();
    site = await fleet.server();
    site.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    for (const old of ["/agendas.rss", "/rss/agendas"])
      site.route(
        old,
        (_q, res) => void res.writeHead(301, { location: "/feeds/agendas.xml" }).end(),
      );
    site.route("/feeds/agendas.xml", (req, res) => {
      if (req.headers["if-none-match"] === '"v7"')
        return void res.writeHead(304, { etag: '"v7"' }).end();
      res
        .writeHead(200, { "content-type": "application/rss+xml", etag: '"v7"' })
        .end(rss(site.origin, 3));
    });
    dir = mkdtempSync(join(tmpdir(), "nor-review8-target-"));
  }, 60_000);

  afterAll(async () => {
    await fleet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("P8: two sources redirecting to one page: the page is asked once a night", async () => {
    const catalog = writeCatalog(
      dir,
      ["/agendas.rss", "/rss/agendas"].map((path, i) => [
        `id: moved-${i}`,
        "government: village-of-test",
        "records: agendas",
        "access: feed",
        `url: ${site.url(path)}`,
      ]),
    );
    const r = await nightCli(catalog, dir, "2026-11-05");
    expect(r.code, r.stderr).toBe(0);
    const target = site.hits("/feeds/agendas.xml").map((q) => q.headers["if-none-match"] ?? null);
    expect(target).toEqual([null]);
  }, 60_000);
});
