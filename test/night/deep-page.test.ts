import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nightOn, outcomesOn, testerCatalog, testerWorld } from "./tester-nights.js";

/**
 * What an outside tester found: one page of 200,000 nested `<div>`s around one record (2.2 MB,
 * far under the size limit) made a `nor night --deadline 30s` take 511 s, every other site's
 * sources unreached: the HTML parser ran quadratic in the page's depth on the event loop, and
 * every lane's timers and the deadline waited for it. The parser's stack is counted now
 * (src/sources/extract/cheerio-load.ts), and such a page is refused at once with a note.
 */
const world = testerWorld("nor-deep-page-");

const noRobots = (_q: IncomingMessage, res: ServerResponse) => void res.writeHead(404).end();
const ITEM = `<ul><li><a href="/x">Road salt</a> <span>11/01/2026</span></li></ul>`;
const RECIPE = "extract: { items: li, title: a, link: a, date: span }";

describe("a page nested 200,000 deep, in a real night", () => {
  it("P13, P14: the deep page's source gets no records with the note saying why, asked once, and a source on another site is still checked", async () => {
    const deep = await world.fleet.server();
    deep.route("/robots.txt", noRobots);
    const depth = 200_000;
    const page = `<!doctype html><html><body>${"<div>".repeat(depth)}${ITEM}${"</div>".repeat(depth)}</body></html>`;
    deep.route("/bids", (_q, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page);
    });
    const other = await world.fleet.server();
    other.route("/robots.txt", noRobots);
    other.route("/bids", (_q, res) => {
      res
        .writeHead(200, { "content-type": "text/html; charset=utf-8" })
        .end(`<body>${ITEM}</body>`);
    });
    const catalog = testerCatalog(world.dir, "deep-page", [
      `  - { id: deep-bids, government: city-of-test, records: bids, access: page, url: "${deep.url("/bids")}", ${RECIPE} }`,
      `  - { id: other-bids, government: city-of-test, records: notices, access: page, url: "${other.url("/bids")}", ${RECIPE} }`,
    ]);
    const data = join(world.dir, "deep-page");
    await nightOn(catalog, data, "2026-11-05");

    const rows = outcomesOn(data, "2026-11-05");
    expect(rows["deep-bids"]).toMatchObject({ outcome: "no-records" });
    expect(rows["deep-bids"]?.reason).toMatch(
      /^the page nests its elements too deeply to read without holding up the night \(stopped [\d,]+ levels deep; past 256 levels a page may nest 10,000,000 element-levels in all\)$/,
    );
    expect(deep.hits("/bids")).toHaveLength(1);
    expect(rows["other-bids"]).toMatchObject({ outcome: "ok" });
    expect(other.hits("/bids")).toHaveLength(1);
  });
});
