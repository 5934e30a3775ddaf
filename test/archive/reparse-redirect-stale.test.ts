import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runMain } from "../cli/cli-capture.js";
import { nightOn, noRobots, testerCatalog, testerWorld } from "../night/tester-nights.js";

/**
 * A temporary redirect whose target changes from night to night (a session or a month in the
 * address: /bids sent on to /list?s=1, the next night to /list?s=2) leaves one "redirect" copy
 * per night, each at another URL. Only the latest night's is the list as it stands: an older
 * night's copy is not a page of the list today, and reading it would bring back what the site
 * no longer says.
 */
const world = testerWorld("nor-reparse-redirect-stale-");
const RECIPE = "extract: { items: li.bid, title: a, link: a, date: span }";

describe("nor reparse of a list whose redirect target changes", () => {
  it("P8, P19: nor reparse reads only the latest night's answer to a redirected list, not an older night's copy at another address", async () => {
    const vendor = await world.fleet.server();
    vendor.route("/robots.txt", noRobots);
    vendor.route("/list", (req, res) => {
      const s = new URL(req.url ?? "/", "http://x").searchParams.get("s");
      // The second bid was withdrawn between the nights: the list no longer shows it.
      const bids = s === "1" ? [1, 2] : [1];
      res
        .writeHead(200, { "content-type": "text/html" })
        .end(
          `<ul>${bids.map((i) => `<li class="bid"><a href="/bid/${i}">Bid ${i}</a> <span>11/0${i}/2026</span></li>`).join("")}</ul>`,
        );
    });
    const city = await world.fleet.server();
    city.route("/robots.txt", noRobots);
    let asked = 0;
    city.route("/bids", (_q, res) => {
      asked++;
      res.writeHead(302, { location: vendor.url(`/list?s=${asked}`) }).end();
    });
    const data = join(world.dir, "stale");
    const catalog = testerCatalog(world.dir, "page", [
      `  - { id: bids, government: city-of-test, records: bids, url: "${city.url("/bids")}", ${RECIPE} }`,
    ]);
    await nightOn(catalog, data, "2026-11-20");
    await nightOn(catalog, data, "2026-11-21");
    expect(asked).toBe(2);
    // Read directly, a list that no longer shows a stored record has it called removed.
    const direct = await world.fleet.server();
    direct.route("/robots.txt", noRobots);
    let n = 0;
    direct.route("/bids", (_q, res) => {
      n++;
      const bids = n === 1 ? [1, 2] : [1];
      res
        .writeHead(200, { "content-type": "text/html" })
        .end(
          `<ul>${bids.map((i) => `<li class="bid"><a href="/bid/${i}">Bid ${i}</a> <span>11/0${i}/2026</span></li>`).join("")}</ul>`,
        );
    });
    const directData = join(world.dir, "direct");
    const directCatalog = testerCatalog(world.dir, "direct", [
      `  - { id: bids, government: city-of-test, records: bids, url: "${direct.url("/bids")}", ${RECIPE} }`,
    ]);
    await nightOn(directCatalog, directData, "2026-11-20");
    await nightOn(directCatalog, directData, "2026-11-21");
    const control = await runMain(["reparse", "--data", directData, "--catalog", directCatalog]);
    expect(control.stdout).toMatch(
      /bids: 1 capture read, .*would add 0, would remove 1, would change 0/,
    );
    // Through the redirect, the same: the latest night's answer is the list, read once.
    const re = await runMain(["reparse", "--data", data, "--catalog", catalog]);
    expect(re.code, re.stderr).toBe(0);
    expect(re.stdout).toMatch(/bids: .*would add 0, would remove 1, would change 0/);
  }, 60_000);
});
