import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runMain } from "../cli/cli-capture.js";
import { nightOn, noRobots, testerCatalog, testerWorld } from "../night/tester-nights.js";

/**
 * A generic form whose catalog URL answers a temporary redirect to the form itself (/search sent
 * on to /Search.aspx): the blank form, kept as "redirect", is the form's own page, no list of
 * records, as the blank form asked at its address is (reparse-forms.test.ts).
 */
const world = testerWorld("nor-reparse-redirected-form-");
const FORM = `<form method="post" action="/Search.aspx"><input type="hidden" name="__VIEWSTATE" value="VS" /><input type="text" name="q" value="" /><input type="submit" name="go" value="Search" /></form>`;

describe("nor reparse of a form reached through a redirect", () => {
  it("P5, P8, P19: the blank form a redirect led the night to is not read as a list by nor reparse: only the posted results are", async () => {
    const city = await world.fleet.server();
    city.route("/robots.txt", noRobots);
    city.route("/search", (_q, res) => {
      res.writeHead(302, { location: city.url("/Search.aspx") }).end();
    });
    city.route("/Search.aspx", (req, res) => {
      if (req.method === "POST")
        return void res
          .writeHead(200, { "content-type": "text/html" })
          .end(
            `<ul><li class="bid"><a href="/bid/1">Bid 1</a> <span>11/01/2026</span></li><li class="bid"><a href="/bid/2">Bid 2</a> <span>11/02/2026</span></li></ul>`,
          );
      res.writeHead(200, { "content-type": "text/html" }).end(FORM);
    });
    const data = join(world.dir, "form");
    const catalog = testerCatalog(world.dir, "form", [
      `  - { id: bids, government: city-of-test, records: bids, url: "${city.url("/search")}", form: { fields: { q: "bids" }, submit: go }, extract: { items: li.bid, title: a, link: a, date: span } }`,
    ]);
    await nightOn(catalog, data, "2026-11-20");
    await nightOn(catalog, data, "2026-11-21");
    const st = await runMain(["status", "--data", data, "--json"]);
    const row = (JSON.parse(st.stdout) as { id: string; recordsKnown: number }[]).find(
      (s) => s.id === "bids",
    );
    expect(row?.recordsKnown).toBe(2);
    const re = await runMain(["reparse", "--data", data, "--catalog", catalog]);
    expect(re.code, re.stderr).toBe(0);
    expect(re.stdout).toMatch(
      /bids: 1 capture read, .*would add 0, would remove 0, would change 0/,
    );
    expect(re.stdout).not.toMatch(/no records|not a list/i);
  }, 60_000);
});
