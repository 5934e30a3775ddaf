import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { nightOn, noRobots, outcomesOn, testerCatalog, testerWorld } from "./tester-nights.js";

/**
 * An outside tester's finding (P5, P14): a form page whose hidden __VIEWSTATE is 19.7 MB (the
 * page itself under the 20 MiB body limit) had the night POST it back whole, a 20 MB request
 * to a government site. The search is never sent: no POST reaches the server, the request log
 * holds no row for it (no send is claimed that never happened), and the source's outcome names
 * the search's URL and the size of the body it would have sent.
 */
const world = testerWorld("nor-form-body-");

/**
 * Past the bound twice over, not the tester's 19.7 MB: the same refusal, without some 30 s of
 * the suite spent reading a 20 MB form page (its parse and its encoding; test/net's
 * request-body-bound.test.ts sends the 19.7 MB body itself to the one way out).
 */
const VIEWSTATE = 4_400_000;

describe("P5, P14: a form whose hidden state would make a 20 MB POST (outside tester)", () => {
  it("P5, P14: a form page with a 4.4 MB __VIEWSTATE is read, but its search is never posted: no POST, no row claiming one, and the outcome says why", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    const page = `<html><body><form method="post" action="./Search.aspx" id="aspnetForm"><input type="hidden" name="__VIEWSTATE" value="${"A".repeat(VIEWSTATE)}" /><input type="text" name="ctl00$txtFrom" value="" /><input type="submit" name="ctl00$btnSearch" value="Search" /></form></body></html>`;
    site.route("/Search.aspx", (_q, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page);
    });
    const catalog = testerCatalog(world.dir, "big-viewstate", [
      "  - id: bigstate",
      "    government: city-of-test",
      "    records: permits",
      "    access: form",
      `    url: ${site.url("/Search.aspx")}`,
      "    form:",
      `      fields: { "ctl00$txtFrom": "{today-30d}" }`,
      `      submit: "ctl00$btnSearch"`,
      "    extract: { items: 'tr.row', title: 'td a', link: 'td a', date: 'td:nth-child(2)' }",
    ]);
    const data = join(world.dir, "big-viewstate");
    await nightOn(catalog, data, "2026-11-20");
    // Counted, not compared: a POST seen would carry 20 MB into the failure's diff.
    expect(site.requests.filter((r) => r.method === "POST").length).toBe(0);
    expect(site.hits("/Search.aspx").map((r) => r.method)).toEqual(["GET"]);
    const o = outcomesOn(data, "2026-11-20")["bigstate"];
    expect(o?.outcome).toBe("error");
    expect(o?.reason).toContain(site.url("/Search.aspx"));
    expect(o?.reason).toMatch(/4,400,\d\d\d bytes/);
    const db = new Database(join(data, "nor.db"), { readonly: true });
    try {
      const rows = db.prepare("select method, url from request_log").all() as {
        method: string;
        url: string;
      }[];
      expect(rows.filter((r) => r.method === "POST")).toEqual([]);
    } finally {
      db.close();
    }
  }, 120_000);
});
