import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { runMain } from "../cli/cli-capture.js";
import { nightOn, noRobots, testerCatalog, testerWorld } from "../night/tester-nights.js";

/**
 * Review of 114a794 (a backfill place kept by the previous version, no way with it, taken for the
 * way whose address has its path). A site that serves its feed at the list's own path with a
 * query (`/list?format=rss`) has two ways of that path: the place was taken for neither, so for
 * tonight's (the feed answering first), read by the feed's reader and the backfill said done,
 * its older pages never read, as before 114a794.
 */
const world = testerWorld("nor-rev4-backfill-legacy-");
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

describe("P7, P4: a backfill place kept by the previous version, its feed at the list's path", () => {
  it("P7, P4: a backfill place kept without its way goes on with the page's recipe when the feed put before it is at the page's own path with a query (/list?format=rss)", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    site.route("/list", (req, res) => {
      const q = new URL(req.url ?? "/", "http://x").searchParams;
      if (q.get("format") === "rss")
        return void res.writeHead(200, { "content-type": "application/rss+xml" }).end(RSS);
      const p = Number(q.get("page") ?? "1");
      res.writeHead(200, { "content-type": "text/html" }).end(listPage(p));
    });
    const data = join(world.dir, "upgrade");
    const page = testerCatalog(world.dir, "page-up", [source(site.url("/list"), RECIPE)]);
    const feedFirst = testerCatalog(world.dir, "feed-first-up", [
      source(
        site.url("/list?format=rss"),
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
    const older = site.requests.filter((q) => q.path.startsWith("/list?page=")).map((q) => q.path);
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
