import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nightOn, noRobots, outcomesOn, testerCatalog, testerWorld } from "./tester-nights.js";

/**
 * P5, P8, P12: a search form's page answered 304 is filled in from our copy, and the hidden
 * state posted (ASP.NET __VIEWSTATE, __EVENTVALIDATION) is that copy's. It is the page's
 * current state only if the copy is the one the validators sent came from: the validators and
 * the copy are read from the same capture (store/archive/validators.ts, the latest GET capture
 * with a body), so after the page changed (a new ETag and state one night), the next night's 304
 * posts that night's state, never the state of the night before.
 */
const world = testerWorld("nor-form-304-");
const BUTTON = "ctl00$Main$btn";

function aspx(state: string, rows: string): string {
  return `<html><body><form method="post" action="./Search.aspx">
<input type="hidden" name="__EVENTTARGET" value="" /><input type="hidden" name="__EVENTARGUMENT" value="" />
<input type="hidden" name="__VIEWSTATE" value="${state}" /><input type="hidden" name="__EVENTVALIDATION" value="EV-${state}" />
<input type="text" name="from" value="" /><input type="submit" name="${BUTTON}" value="Search" />${rows}</form></body></html>`;
}

describe("P5, P12: a form page's 304 and the state posted", () => {
  it("P5, P8, P12: the form page changed on night 2 (new ETag, new state) and answers 304 on night 3: night 3 sends night 2's ETag and posts night 2's state, the copy the validators came from", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    let version = 1;
    site.route("/Search.aspx", (req, res, { seen }) => {
      const etag = `"v${version}"`;
      if (req.method === "GET") {
        if (req.headers["if-none-match"] === etag) return void res.writeHead(304, { etag }).end();
        return void res
          .writeHead(200, { "content-type": "text/html; charset=utf-8", etag })
          .end(aspx(`F${version}`, ""));
      }
      const f = Object.fromEntries(new URLSearchParams(seen.body));
      // As ASP.NET checks its state: only the form page's current one is taken.
      if (f["__VIEWSTATE"] !== `F${version}`)
        return void res
          .writeHead(200, { "content-type": "text/html; charset=utf-8" })
          .end("<h2>Validation of viewstate MAC failed.</h2>");
      res
        .writeHead(200, { "content-type": "text/html; charset=utf-8" })
        .end(
          aspx(
            `R${version}`,
            `<table><tr class="row"><td><a href="/D/${version}.pdf">Permit ${version}</a></td><td>10/2${version}/2026</td></tr></table>`,
          ),
        );
    });
    const catalog = testerCatalog(world.dir, "form-304", [
      "  - id: permits",
      "    government: city-of-test",
      "    records: permits",
      "    access: form",
      `    url: ${site.url("/Search.aspx")}`,
      "    form:",
      `      fields: { from: "{today-30d}" }`,
      `      submit: "${BUTTON}"`,
      "    extract: { items: 'tr.row', title: 'td a', link: 'td a', date: 'td:nth-child(2)' }",
    ]);
    const data = join(world.dir, "form-304");
    await nightOn(catalog, data, "2026-11-20");
    version = 2;
    await nightOn(catalog, data, "2026-11-21");
    await nightOn(catalog, data, "2026-11-22");
    const gets = site.requests.filter((r) => r.method === "GET" && r.path === "/Search.aspx");
    expect(gets.map((r) => r.headers["if-none-match"])).toEqual([undefined, '"v1"', '"v2"']);
    const posts = site.requests
      .filter((r) => r.method === "POST")
      .map((r) => Object.fromEntries(new URLSearchParams(r.body))["__VIEWSTATE"]);
    expect(posts).toEqual(["F1", "F2", "F2"]);
    for (const night of ["2026-11-20", "2026-11-21", "2026-11-22"])
      expect(outcomesOn(data, night)["permits"]?.outcome, night).toBe("ok");
  }, 120_000);
});
