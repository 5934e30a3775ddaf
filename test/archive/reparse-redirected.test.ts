import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runMain } from "../cli/cli-capture.js";
import { nightOn, noRobots, testerCatalog, testerWorld } from "../night/tester-nights.js";

/**
 * A page whose catalog URL answers with a temporary redirect (a city's /bids sent on to its bid
 * portal, P19) is read by the night at the end of the redirect: that answer, kept with the
 * purpose "redirect" (P27: why the request was made), is the list. `nor reparse` reads it as the
 * night did; before, it read only the older pages a backfill asked, and called every record of
 * the first page removed, though the site lists them still.
 */
const world = testerWorld("nor-reparse-redirected-");
const RECIPE = "extract: { items: li.bid, title: a, link: a, date: span, next: a.next }";

const listPage = (p: number) =>
  `<ul>${[1, 2]
    .map(
      (i) =>
        `<li class="bid"><a href="/bid/${p}-${i}">Bid ${p}-${i}</a> <span>11/0${p}/2026</span></li>`,
    )
    .join("")}</ul>${p < 3 ? `<a class="next" href="/list?page=${p + 1}">Next</a>` : ""}`;

describe("nor reparse of a list reached through a redirect", () => {
  it("P8, P19: nor reparse reads the list a temporary redirect led the night to, as the night read it: nothing called removed, nothing added", async () => {
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
    const data = join(world.dir, "redirected");
    const catalog = testerCatalog(world.dir, "page", [
      `  - { id: bids, government: city-of-test, records: bids, url: "${city.url("/bids")}", ${RECIPE}, backfill: { pagesPerNight: 1 } }`,
    ]);
    await nightOn(catalog, data, "2026-11-20");
    await nightOn(catalog, data, "2026-11-21");
    const st = await runMain(["status", "--data", data, "--json"]);
    const row = (JSON.parse(st.stdout) as { id: string; recordsKnown: number }[]).find(
      (s) => s.id === "bids",
    );
    expect(row?.recordsKnown).toBe(6);
    const re = await runMain(["reparse", "--data", data, "--catalog", catalog]);
    expect(re.code, re.stderr).toBe(0);
    expect(re.stdout).toMatch(/bids: .*would add 0, would remove 0, would change 0/);
  }, 60_000);
});
