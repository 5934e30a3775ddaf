import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runMain } from "../cli/cli-capture.js";
import { nightOn, noRobots, testerCatalog, testerWorld } from "../night/tester-nights.js";

/**
 * Outside tester (the operator curating the catalog): a source's backfill is under way (P7, a
 * page a night) when the operator edits its entry. Seen from outside, before the fix:
 * - a feed put before the page (P4) made the night read the page's next older page with the
 *   feed's reader: nothing read, and the backfill said "done … to the list's oldest page" with
 *   two older pages never read;
 * - a source moved to another list (its `url` changed) went on asking the old list's older
 *   pages, a page a night, and kept their records as the source's: requests for a list the
 *   catalog no longer names.
 */
const world = testerWorld("nor-tcatalog-backfill-way-");
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

/** Every request for the list's pages, first and older, in order. */
const listAsked = (site: { requests: { path: string }[] }) =>
  site.requests.filter((q) => q.path === "/list" || q.path.startsWith("/list?"));

async function city() {
  const site = await world.fleet.server();
  site.route("/robots.txt", noRobots);
  site.route("/list", (req, res) => {
    const p = Number(new URL(req.url ?? "/", "http://x").searchParams.get("page") ?? "1");
    res.writeHead(200, { "content-type": "text/html" }).end(listPage(p));
  });
  site.route("/feed", (_q, res) => {
    res.writeHead(200, { "content-type": "application/rss+xml" }).end(RSS);
  });
  site.route("/rfps", (_q, res) => {
    res
      .writeHead(200, { "content-type": "text/html" })
      .end(`<ul><li class="bid"><a href="/rfp/1">RFP 1</a> <span>11/01/2026</span></li></ul>`);
  });
  return site;
}

const source = (url: string, rest: string) =>
  `  - { id: bids, government: city-of-test, records: bids, url: "${url}", ${rest}, backfill: { pagesPerNight: 1 } }`;

async function backfillOf(data: string) {
  const r = await runMain(["status", "--data", data, "--json"]);
  return (
    JSON.parse(r.stdout) as { id: string; backfill: { state: string; pagesRead: number } }[]
  ).find((s) => s.id === "bids")?.backfill;
}

describe("P7, P4: a backfill under way when the operator edits the source", () => {
  it("P7, P4: a feed put before the page goes on reading the page's older pages with the page's recipe, to the list's oldest page", async () => {
    const site = await city();
    const data = join(world.dir, "feed-first");
    const page = testerCatalog(world.dir, "page", [source(site.url("/list"), RECIPE)]);
    const feedFirst = testerCatalog(world.dir, "feed-first", [
      source(
        site.url("/feed"),
        `access: feed, alternates: [ { access: page, url: "${site.url("/list")}", ${RECIPE} } ]`,
      ),
    ]);
    await nightOn(page, data, "2026-11-20");
    await nightOn(page, data, "2026-11-21");
    // Pages 2 and 3 read; page 4 is next.
    expect(listAsked(site).map((q) => q.path)).toEqual([
      "/list",
      "/list?page=2",
      "/list",
      "/list?page=3",
    ]);
    for (const night of ["2026-11-22", "2026-11-23", "2026-11-24", "2026-11-25"])
      await nightOn(feedFirst, data, night);
    // The feed is the night's way (P4); the page's older pages are still read, one a night.
    expect(
      listAsked(site)
        .map((q) => q.path)
        .slice(4),
    ).toEqual(["/list?page=4", "/list?page=5", "/list?page=6"]);
    expect(await backfillOf(data)).toMatchObject({ state: "done", pagesRead: OLDEST - 1 });
    // Every bid of the list's six pages is the source's.
    const status = await runMain(["status", "--data", data, "--json"]);
    expect((JSON.parse(status.stdout) as { recordsKnown: number }[])[0]?.recordsKnown).toBe(
      OLDEST * 2,
    );
  }, 60_000);

  it("P7, P6: a source moved to another list in the catalog never asks the old list's older pages again", async () => {
    const site = await city();
    const data = join(world.dir, "moved");
    const before = testerCatalog(world.dir, "list", [source(site.url("/list"), RECIPE)]);
    const after = testerCatalog(world.dir, "rfps", [source(site.url("/rfps"), RECIPE)]);
    await nightOn(before, data, "2026-11-20");
    await nightOn(before, data, "2026-11-21");
    const asked = listAsked(site).length;
    for (const night of ["2026-11-22", "2026-11-23", "2026-11-24"])
      await nightOn(after, data, night);
    // The old list is no longer the catalog's: none of its pages is asked.
    expect(
      listAsked(site)
        .slice(asked)
        .map((q) => q.path),
    ).toEqual([]);
    expect(site.hits("/rfps")).toHaveLength(3);
    // The new list has no older page: its backfill is done there.
    expect(await backfillOf(data)).toMatchObject({ state: "done" });
  }, 60_000);
});
