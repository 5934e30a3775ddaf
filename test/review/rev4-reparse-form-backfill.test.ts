import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runMain } from "../cli/cli-capture.js";
import { nightOn, noRobots, testerCatalog, testerWorld } from "../night/tester-nights.js";

/**
 * nor reparse of a search form's source while its backfill goes on: each night posts its first
 * result page and the next older one, and reparse read only the pages the last check posted as
 * the list, so the records of older pages posted on earlier nights (still on the site) were
 * called removed.
 */
const world = testerWorld("nor-rev4-reparse-form-bf-");
const GRID = "ctl00$Main$gv";
const BUTTON = "ctl00$Main$btn";
const PAGES = 6;

function aspx(state: string, grid: string): string {
  return `<html><body><form method="post" action="./Search.aspx">
<input type="hidden" name="__EVENTTARGET" value="" /><input type="hidden" name="__EVENTARGUMENT" value="" />
<input type="hidden" name="__VIEWSTATE" value="${state}" />
<input type="text" name="from" value="" /><input type="submit" name="${BUTTON}" value="Search" />${grid}</form></body></html>`;
}

const link = (n: number) => `<a href="javascript:__doPostBack('${GRID}','Page$${n}')">${n}</a>`;

function grid(page: number): string {
  const rows = [1, 2]
    .map((i) => {
      const n = (page - 1) * 2 + i;
      return `<tr class="row"><td><a href="/D/${n}.pdf">Item ${n}</a></td><td>10/01/2026</td></tr>`;
    })
    .join("");
  const cells: string[] = [];
  for (let n = 1; n <= PAGES; n++) cells.push(n === page ? `<span>${n}</span>` : link(n));
  return `<table id="g">${rows}<tr class="pager"><td>${cells.join(" ")}</td></tr></table>`;
}

describe("P8, P5, P7: nor reparse of a form's source while its backfill goes on", () => {
  it("P8, P5, P7: nor reparse of a search form's source mid-backfill calls no record of an older result page posted on an earlier night removed", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    let night = 0;
    site.route("/Search.aspx", (req, res, { seen }) => {
      const html = (s: string) =>
        void res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(s);
      if (req.method === "GET") return html(aspx(`N${night}-FORM`, ""));
      const f = Object.fromEntries(new URLSearchParams(seen.body));
      const m = /^Page\$(\d+)$/.exec(f["__EVENTARGUMENT"] ?? "");
      const page = f["__EVENTTARGET"] === GRID && m ? Number(m[1]) : f[BUTTON] ? 1 : 0;
      if (page < 1 || page > PAGES) return void res.writeHead(400).end("bad postback");
      html(aspx(`N${night}-P${page}`, grid(page)));
    });
    const formOnly = testerCatalog(world.dir, "form", [
      "  - id: permits",
      "    government: city-of-test",
      "    records: permits",
      "    access: form",
      `    url: ${site.url("/Search.aspx")}`,
      "    form:",
      `      fields: { from: "{today-30d}" }`,
      `      submit: "${BUTTON}"`,
      `      pager: "${GRID}"`,
      "    extract: { items: 'tr.row', title: 'td a', link: 'td a', date: 'td:nth-child(2)' }",
      "    backfill: { pagesPerNight: 1 }",
    ]);
    const data = join(world.dir, "form-bf");
    for (const date of ["2026-11-20", "2026-11-21"]) {
      night++;
      await nightOn(formOnly, data, date);
    }
    // Pages 1, 2 the first night; 1, 3 the second: items 3, 4 are on page 2, still listed.
    const re = await runMain(["reparse", "--data", data, "--catalog", formOnly]);
    expect(re.stdout).toContain("6 stored");
    expect(re.stdout).not.toMatch(/would remove [1-9]/);
    expect(re.stdout).not.toContain("Item 3");
  }, 60_000);
});
