import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  nightOn,
  noRobots,
  outcomesOn,
  testerCatalog,
  testerWorld,
} from "../night/tester-nights.js";

/**
 * Outside tester (the operator pasting a list's address from the browser): the catalog takes an
 * address with a fragment (`…/bids#open`, never sent) or a percent-escape of a character that
 * needs none (`/%7Ebids`, sent as `/~bids`), both as written (docs/catalog.md). The night asked
 * the site for the address as sent and stored the answer's ETag under it, but looked its
 * validators up under the address as the catalog wrote it: none found, so every night asked the
 * page in full, never If-None-Match (P12), never "unchanged", the page fetched again just to get
 * what the checker already had (P8, P11).
 */
const world = testerWorld("nor-tcatalog-validators-");

describe("P12: a catalog address written otherwise than it is sent", () => {
  for (const [what, path, written] of [
    ["a #fragment", "/bids", "/bids#open"],
    ["a %-escape of an unreserved character", "/~bids", "/%7Ebids"],
  ] as const)
    it(`P12, P8: a source whose catalog address carries ${what} sends its stored ETag back, and a 304 is unchanged`, async () => {
      const site = await world.fleet.server();
      site.route("/robots.txt", noRobots);
      site.route(path, (req, res) => {
        if (req.headers["if-none-match"] === '"v1"') return void res.writeHead(304).end();
        res
          .writeHead(200, { "content-type": "text/html", etag: '"v1"' })
          .end(`<ul><li class="bid"><a href="/bid/1">Bid 1</a> <span>11/01/2026</span></li></ul>`);
      });
      const name = written.includes("#") ? "fragment" : "escape";
      const data = join(world.dir, name);
      const catalog = testerCatalog(world.dir, name, [
        `  - { id: bids, government: city-of-test, records: bids, url: "${site.url(written)}", extract: { items: li.bid, title: a, link: a, date: span } }`,
      ]);
      await nightOn(catalog, data, "2026-11-20");
      await nightOn(catalog, data, "2026-11-21");
      // The page asked as it is sent (no fragment, the escape decoded), the second night with
      // the ETag the first answer gave.
      const asked = site.requests.filter((q) => q.path === path);
      expect(asked.map((q) => q.headers["if-none-match"] ?? null)).toEqual([null, '"v1"']);
      expect(outcomesOn(data, "2026-11-21").bids?.outcome).toBe("unchanged");
    }, 60_000);
});
