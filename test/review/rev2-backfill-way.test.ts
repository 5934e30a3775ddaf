import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { runMain } from "../cli/cli-capture.js";
import { nightOn, noRobots, testerCatalog, testerWorld } from "../night/tester-nights.js";

/**
 * Review of b0a1177 (a backfill's place kept with its way): the page's catalog URL answers with a
 * temporary redirect to the vendor's site that holds the list (a city's /bids sent on to its
 * bid portal), so the backfill's place is on the vendor's site. A feed put before the page (P4):
 * the place is the page's, read by the page's recipe; it must not be taken for off the list
 * because the page's catalog URL is on the city's site.
 */
const world = testerWorld("nor-rev2-backfill-way-");
const RECIPE = "extract: { items: li.bid, title: a, link: a, date: span, next: a.next }";
const OLDEST = 6;

const listPage = (p: number) =>
  `<ul>${[1, 2]
    .map(
      (i) =>
        `<li class="bid"><a href="/bid/${p}-${i}">Bid ${p}-${i}</a> <span>11/0${p}/2026</span></li>`,
    )
    .join("")}</ul>${p < OLDEST ? `<a class="next" href="/list?page=${p + 1}">Next</a>` : ""}`;
const RSS = `<?xml version="1.0"?><rss version="2.0"><channel><title>Bids</title><link>http://x/</link><description>d</description>
<item><title>Bid 1-1</title><link>/bid/1-1</link><guid>/bid/1-1</guid><pubDate>Sun, 01 Nov 2026 12:00:00 GMT</pubDate></item></channel></rss>`;

const source = (url: string, rest: string) =>
  `  - { id: bids, government: city-of-test, records: bids, url: "${url}", ${rest}, backfill: { pagesPerNight: 1 } }`;

async function backfillOf(data: string) {
  const r = await runMain(["status", "--data", data, "--json"]);
  return (
    JSON.parse(r.stdout) as { id: string; backfill: { state: string; pagesRead: number } }[]
  ).find((s) => s.id === "bids")?.backfill;
}

describe("P7, P4: a backfill kept with its way, whose list is on another site than its catalog URL", () => {
  it("P7, P4: a page whose catalog URL redirects for now to the vendor's site goes on with its older pages there when a feed is put before it, not said done at the feed's last page", async () => {
    const vendor = await world.fleet.server();
    vendor.route("/robots.txt", noRobots);
    vendor.route("/list", (req, res) => {
      const p = Number(new URL(req.url ?? "/", "http://x").searchParams.get("page") ?? "1");
      res.writeHead(200, { "content-type": "text/html" }).end(listPage(p));
    });
    const city = await world.fleet.server();
    city.route("/robots.txt", noRobots);
    city.route("/bids", (_q, res) => {
      res.writeHead(302, { location: vendor.url("/list") }).end();
    });
    city.route("/feed", (_q, res) => {
      res.writeHead(200, { "content-type": "application/rss+xml" }).end(RSS);
    });
    const data = join(world.dir, "vendor");
    const page = testerCatalog(world.dir, "page", [source(city.url("/bids"), RECIPE)]);
    const feedFirst = testerCatalog(world.dir, "feed-first", [
      source(
        city.url("/feed"),
        `access: feed, alternates: [ { access: page, url: "${city.url("/bids")}", ${RECIPE} } ]`,
      ),
    ]);
    await nightOn(page, data, "2026-11-20");
    await nightOn(page, data, "2026-11-21");
    const older = () =>
      vendor.requests.filter((q) => q.path.startsWith("/list?")).map((q) => q.path);
    expect(older()).toEqual(["/list?page=2", "/list?page=3"]);
    for (const night of ["2026-11-22", "2026-11-23", "2026-11-24", "2026-11-25"])
      await nightOn(feedFirst, data, night);
    expect(older().slice(2)).toEqual(["/list?page=4", "/list?page=5", "/list?page=6"]);
    expect(await backfillOf(data)).toMatchObject({ state: "done", pagesRead: OLDEST - 1 });
  }, 60_000);

  it("P7, P4: a backfill place kept by the previous version (no way with it) on the page's list goes on with the page's recipe after the upgrade when a feed answers first", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    site.route("/list", (req, res) => {
      const p = Number(new URL(req.url ?? "/", "http://x").searchParams.get("page") ?? "1");
      res.writeHead(200, { "content-type": "text/html" }).end(listPage(p));
    });
    site.route("/feed", (_q, res) => {
      res.writeHead(200, { "content-type": "application/rss+xml" }).end(RSS);
    });
    const data = join(world.dir, "upgrade");
    const page = testerCatalog(world.dir, "page-up", [source(site.url("/list"), RECIPE)]);
    const feedFirst = testerCatalog(world.dir, "feed-first-up", [
      source(
        site.url("/feed"),
        `access: feed, alternates: [ { access: page, url: "${site.url("/list")}", ${RECIPE} } ]`,
      ),
    ]);
    await nightOn(page, data, "2026-11-20");
    await nightOn(page, data, "2026-11-21");
    // The row as the version before b0a1177 wrote it: the cursor without its way.
    const db = new Database(join(data, "nor.db"));
    try {
      const row = db.prepare("select cursor from backfill where source_id = 'bids'").get() as {
        cursor: string;
      };
      const { way: _, ...cursor } = JSON.parse(row.cursor) as { way?: string };
      db.prepare("update backfill set cursor = ? where source_id = 'bids'").run(
        JSON.stringify(cursor),
      );
    } finally {
      db.close();
    }
    for (const night of ["2026-11-22", "2026-11-23", "2026-11-24", "2026-11-25"])
      await nightOn(feedFirst, data, night);
    const older = site.requests.filter((q) => q.path.startsWith("/list?")).map((q) => q.path);
    expect(older).toEqual([
      "/list?page=2",
      "/list?page=3",
      "/list?page=4",
      "/list?page=5",
      "/list?page=6",
    ]);
    expect(await backfillOf(data)).toMatchObject({ state: "done", pagesRead: OLDEST - 1 });
    // nor reparse reads the page's older pages, asked on nights the feed answered first, by the
    // page's recipe (was: by the feed's reader, "not a feed: not its list").
    const re = await runMain(["reparse", "--data", data, "--catalog", feedFirst]);
    expect(re.stdout).not.toContain("not a feed");
    expect(re.stdout).toMatch(/bids: .*would add 0, would remove 0, would change 0/);
  }, 60_000);

  it("P7, P4: a backfill paused (pagesPerNight: 0) and asked for again goes on with its own way's list on the vendor's site when a feed answers first", async () => {
    const vendor = await world.fleet.server();
    vendor.route("/robots.txt", noRobots);
    vendor.route("/list", (req, res) => {
      const p = Number(new URL(req.url ?? "/", "http://x").searchParams.get("page") ?? "1");
      res.writeHead(200, { "content-type": "text/html" }).end(listPage(p));
    });
    const city = await world.fleet.server();
    city.route("/robots.txt", noRobots);
    city.route("/bids", (_q, res) => {
      res.writeHead(302, { location: vendor.url("/list") }).end();
    });
    city.route("/feed", (_q, res) => {
      res.writeHead(200, { "content-type": "application/rss+xml" }).end(RSS);
    });
    const data = join(world.dir, "paused");
    const page = testerCatalog(world.dir, "page-paused", [source(city.url("/bids"), RECIPE)]);
    const feedFirst = (name: string, perNight: number) =>
      testerCatalog(world.dir, name, [
        source(
          city.url("/feed"),
          `access: feed, alternates: [ { access: page, url: "${city.url("/bids")}", ${RECIPE} } ]`,
        ).replace("pagesPerNight: 1", `pagesPerNight: ${perNight}`),
      ]);
    await nightOn(page, data, "2026-11-20");
    await nightOn(page, data, "2026-11-21");
    await nightOn(feedFirst("paused", 0), data, "2026-11-22");
    for (const night of ["2026-11-23", "2026-11-24", "2026-11-25", "2026-11-26"])
      await nightOn(feedFirst("again", 1), data, night);
    const older = vendor.requests.filter((q) => q.path.startsWith("/list?")).map((q) => q.path);
    expect(older).toEqual([
      "/list?page=2",
      "/list?page=3",
      "/list?page=4",
      "/list?page=5",
      "/list?page=6",
    ]);
    expect(await backfillOf(data)).toMatchObject({ state: "done", pagesRead: OLDEST - 1 });
  }, 60_000);
});
