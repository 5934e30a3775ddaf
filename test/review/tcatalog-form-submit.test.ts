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
 * Outside tester (the operator adding a search form, P5): the catalog's `form.submit` names
 * "the button to press (its value is sent)" (docs/catalog.md). Misspelt, it named no button of
 * the form, and the checker sent that name with an empty value, an entry no visitor's browser
 * can send; the site (ASP.NET here) took it for no search and showed the empty form again, and
 * the night said the source showed no records, night after night, with nothing pointing at
 * the catalog's line.
 */
const world = testerWorld("nor-tcatalog-form-submit-");
const BUTTON = "ctl00$Main$btnSearch";
const FORM = `<!DOCTYPE html><html><body><form method="post" action="Search.aspx">
<input type="hidden" name="__VIEWSTATE" value="abc">
<input name="ctl00$Main$txtFrom" value="">
<input type="submit" name="${BUTTON}" value="Search"></form></body></html>`;

describe("P5: a search form's button named in the catalog", () => {
  it("P5: a form.submit naming no button of the form is no search a visitor could send: nothing is posted, and the night says which name is missing", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    site.route("/Search.aspx", (req, res, { seen }) => {
      const pressed = new URLSearchParams(seen.body).has(BUTTON);
      res
        .writeHead(200, { "content-type": "text/html; charset=utf-8" })
        .end(
          req.method === "POST" && pressed
            ? `<table><tr class="row"><td>Permit 7 granted</td></tr></table>`
            : FORM,
        );
    });
    const catalogOf = (name: string, submit: string) =>
      testerCatalog(world.dir, name, [
        "  - id: permits",
        "    government: city-of-test",
        "    records: permits",
        "    access: form",
        `    url: ${site.url("/Search.aspx")}`,
        "    form:",
        '      fields: { ctl00$Main$txtFrom: "{today-30d}" }',
        `      submit: "${submit}"`,
        "    extract: { items: 'tr.row', title: td }",
      ]);
    const typo = join(world.dir, "typo");
    await nightOn(catalogOf("typo", "ctl00$Main$btnSerach"), typo, "2026-11-05");
    // The form page was asked; no search was posted with a button the form does not have.
    expect(site.requests.map((q) => `${q.method} ${q.path}`)).toEqual([
      "GET /robots.txt",
      "GET /Search.aspx",
    ]);
    const o = outcomesOn(typo, "2026-11-05").permits;
    expect(o?.outcome).toBe("extract-error");
    expect(o?.reason).toContain('"ctl00$Main$btnSerach"');
    expect(o?.reason).toContain("form.submit");
    // Spelt as the page writes it: the search is sent and its results read.
    const right = join(world.dir, "right");
    await nightOn(catalogOf("right", BUTTON), right, "2026-11-05");
    expect(outcomesOn(right, "2026-11-05").permits?.outcome).toBe("ok");
  }, 60_000);
});
