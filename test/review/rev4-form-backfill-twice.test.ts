import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { nightOn, noRobots, testerCatalog, testerWorld } from "../night/tester-nights.js";

/**
 * Review of 3ef8685 (ownFirstPage): a form's backfill place of another way than tonight's opens
 * and searches the form tonight. Where the form is a way tried first tonight (a form put before
 * a page) and it failed, the backfill asks it again: held, the second ask is answered from the
 * night's journal (the site gate replays an answer received tonight), never sent twice.
 */
const world = testerWorld("nor-rev4-form-twice-");
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

const LIST = `<html><body><table><tr class="row"><td><a href="/D/1.pdf">Item 1</a></td><td>10/01/2026</td></tr></table></body></html>`;

describe("P11, P7, P5: a form's backfill when the form, tried first tonight, failed", () => {
  it("P11, P7, P5: a form tried first tonight that failed (its page gone) is not asked again that night for its backfill's place; the backfill counts the night's failure once", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    site.route("/list.html", (_q, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(LIST);
    });
    let night = 0;
    let formDown = false;
    const formGets = new Map<number, number>();
    site.route("/Search.aspx", (req, res, { seen }) => {
      const html = (s: string) =>
        void res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(s);
      if (req.method === "GET") {
        formGets.set(night, (formGets.get(night) ?? 0) + 1);
        if (formDown) return void res.writeHead(404).end("gone for now");
        return html(aspx(`N${night}-FORM`, ""));
      }
      const f = Object.fromEntries(new URLSearchParams(seen.body));
      const m = /^Page\$(\d+)$/.exec(f["__EVENTARGUMENT"] ?? "");
      const page = f["__EVENTTARGET"] === GRID && m ? Number(m[1]) : f[BUTTON] ? 1 : 0;
      if (page < 1 || page > PAGES) return void res.writeHead(400).end("bad postback");
      html(aspx(`N${night}-P${page}`, grid(page)));
    });
    const EXTRACT =
      "extract: { items: 'tr.row', title: 'td a', link: 'td a', date: 'td:nth-child(2)' }";
    const catalog = testerCatalog(world.dir, "form-page", [
      "  - id: permits",
      "    government: city-of-test",
      "    records: permits",
      "    access: form",
      `    url: ${site.url("/Search.aspx")}`,
      "    form:",
      `      fields: { from: "{today-30d}" }`,
      `      submit: "${BUTTON}"`,
      `      pager: "${GRID}"`,
      `    ${EXTRACT}`,
      "    backfill: { pagesPerNight: 1 }",
      "    alternates:",
      "      - access: page",
      `        url: ${site.url("/list.html")}`,
      `        ${EXTRACT}`,
    ]);
    const data = join(world.dir, "form-page");
    night = 1;
    await nightOn(catalog, data, "2026-11-20");
    const db = new Database(join(data, "nor.db"), { readonly: true });
    const place = () =>
      db.prepare("select * from backfill where source_id = 'permits'").get() as Record<
        string,
        unknown
      >;
    try {
      const before = place();
      expect(before["done"]).toBe(0);
      night = 2;
      formDown = true;
      await nightOn(catalog, data, "2026-11-21");
      // The form page asked once tonight (its way tried first, gone), never again for the backfill.
      expect(formGets.get(2)).toBe(1);
      const after = place();
      expect(after["done"]).toBe(0);
      expect(after["failed_nights"] ?? 1).toBe(1);
    } finally {
      db.close();
    }
  }, 120_000);
});
