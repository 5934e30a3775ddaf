import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nightOn, noRobots, testerCatalog, testerWorld } from "../night/tester-nights.js";
import { ask, type NewAnswer } from "./tester-new-world.js";

/**
 * Outside tester (new on record): the operator mends a source's recipe in the catalog while the
 * site's page stays exactly as it was (it answers 304 to the night's If-None-Match, P12: "a 304
 * means unchanged"). P6 and docs/promises.md: a record "read by a mended recipe is brought up to
 * date when the page is next read, and is not new again"; the feeds: "our own reading: a page the
 * site answered 304 for, read again from its copy because a recipe … changed, brings its records
 * up to date without saying they changed". SPEC, "The directory": new on record is "what
 * appeared across Ohio since yesterday".
 *
 * Seen from outside: (1) a recipe widened to take a row it missed (a "featured" bid the
 * selector left out, dated weeks ago, on a page unchanged for days) puts that row on /new and in
 * the feeds as appeared since yesterday; (2) a recipe that now reads the platform's own id
 * (`id: "@data-id"`) instead of the link puts the whole list on /new again, every record a second
 * time, and the source's page then lists each record twice.
 */
const world = testerWorld("nor-tester-new-recipe-");
const BODY = `<ul>${[1, 2, 3]
  .map(
    (i) =>
      `<li class="bid" data-id="B${i}"><a href="/bid/${i}">Bid ${i}</a> <span>11/0${i}/2026</span></li>`,
  )
  .join(
    "",
  )}<li class="featured" data-id="B9"><a href="/bid/9">Featured bid 9</a> <span>10/09/2026</span></li></ul>`;

async function unchangedSite(path: string) {
  const site = await world.fleet.server();
  site.route("/robots.txt", noRobots);
  site.route(path, (req, res) => {
    if (req.headers["if-none-match"] === '"v1"') return void res.writeHead(304).end();
    res.writeHead(200, { "content-type": "text/html", etag: '"v1"' }).end(BODY);
  });
  return site;
}

const catalogOf = (name: string, url: string, extract: string) =>
  testerCatalog(world.dir, name, [
    `  - { id: bids, government: city-of-test, records: bids, url: "${url}", extract: { ${extract} } }`,
  ]);

describe("tester-new: a recipe mended while the site's page is unchanged", () => {
  it("P6, P12: a row the old recipe missed, on a page the site says is unchanged (304), is not new on record", async () => {
    const site = await unchangedSite("/list");
    const data = join(world.dir, "widened");
    const narrow = catalogOf(
      "narrow",
      site.url("/list"),
      "items: li.bid, title: a, link: a, date: span",
    );
    const wide = catalogOf(
      "wide",
      site.url("/list"),
      'items: "li.bid, li.featured", title: a, link: a, date: span',
    );
    await nightOn(narrow, data, "2026-11-20");
    await nightOn(narrow, data, "2026-11-21");
    await nightOn(wide, data, "2026-11-22");
    // The page answered 304 on the nights after the first: nothing on it changed.
    expect(site.hits("/list").map((q) => q.headers["if-none-match"] ?? null)).toEqual([
      null,
      '"v1"',
      '"v1"',
    ]);
    const [fresh, source] = await ask<NewAnswer & { newestRecords: { title: string }[] }>(
      data,
      "2026-11-22T15:00:00Z",
      ["/api/new", "/api/sources/bids"],
    );
    // The mended recipe reads it: the source holds it.
    expect((source?.json?.newestRecords ?? []).map((r) => r.title)).toContain("Featured bid 9");
    // It did not appear since yesterday.
    expect((fresh?.json?.items ?? []).map((i) => i.title)).toEqual([]);
  });

  it("P6: a recipe that reads the platform's own id instead of the link does not put the whole list on /new again, nor list each record twice", async () => {
    const site = await unchangedSite("/list");
    const data = join(world.dir, "ids");
    const byLink = catalogOf(
      "by-link",
      site.url("/list"),
      'items: "li.bid, li.featured", title: a, link: a, date: span',
    );
    const byId = catalogOf(
      "by-id",
      site.url("/list"),
      "items: \"li.bid, li.featured\", title: a, link: a, date: span, id: '@data-id'",
    );
    await nightOn(byLink, data, "2026-11-20");
    await nightOn(byLink, data, "2026-11-21");
    await nightOn(byId, data, "2026-11-22");
    const [fresh, source, feed] = await ask<NewAnswer & { newestRecords: { title: string }[] }>(
      data,
      "2026-11-22T15:00:00Z",
      ["/api/new", "/api/sources/bids", "/new.json"],
    );
    expect((fresh?.json?.items ?? []).map((i) => i.title)).toEqual([]);
    expect((feed?.json as { items: unknown[] } | undefined)?.items).toEqual([]);
    // Four bids on the page: four records on the source's page.
    expect((source?.json?.newestRecords ?? []).map((r) => r.title).sort()).toEqual([
      "Bid 1",
      "Bid 2",
      "Bid 3",
      "Featured bid 9",
    ]);
  });
});
