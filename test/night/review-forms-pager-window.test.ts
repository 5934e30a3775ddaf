import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { nightOn, noRobots, testerCatalog, testerWorld } from "./tester-nights.js";

/**
 * A reviewer's finding on 2974bbe (P5, P7: a form's backfill goes on from tonight's search): an
 * ASP.NET GridView's pager shows ten page numbers at a time (PageButtonCount, 10 by default),
 * with a "..." link to the next ten. Tonight's first result page links pages 2 to 11 only, so a
 * backfill left at page 14 found no link to it and posted the earlier night's __VIEWSTATE again,
 * which a site that checks it refuses: every later night, so the backfill stopped there.
 */
const world = testerWorld("nor-review-pager-");
const GRID = "ctl00$Main$gv";
const BUTTON = "ctl00$Main$btn";
const PAGES = 40;

function aspx(state: string, grid: string): string {
  return `<html><body><form method="post" action="./Search.aspx">
<input type="hidden" name="__EVENTTARGET" value="" /><input type="hidden" name="__EVENTARGUMENT" value="" />
<input type="hidden" name="__VIEWSTATE" value="${state}" /><input type="hidden" name="__EVENTVALIDATION" value="EV-${state}" />
<input type="text" name="from" value="" /><input type="submit" name="${BUTTON}" value="Search" />${grid}</form></body></html>`;
}

const link = (n: number, text: string) =>
  `<a href="javascript:__doPostBack('${GRID}','Page$${n}')">${text}</a>`;

/** A GridView page as ASP.NET renders it: two rows, and a pager of ten numbers with "..." links. */
function grid(page: number): string {
  const rows = [1, 2]
    .map((i) => {
      const n = (page - 1) * 2 + i;
      return `<tr class="row"><td><a href="/D/${n}.pdf">Item ${n}</a></td><td>10/01/2026</td></tr>`;
    })
    .join("");
  const start = Math.floor((page - 1) / 10) * 10 + 1;
  const cells: string[] = [];
  if (start > 1) cells.push(link(start - 1, "..."));
  for (let n = start; n <= Math.min(start + 9, PAGES); n++)
    cells.push(n === page ? `<span>${n}</span>` : link(n, String(n)));
  if (start + 10 <= PAGES) cells.push(link(start + 10, "..."));
  return `<table id="g">${rows}<tr class="pager"><td>${cells.join(" ")}</td></tr></table>`;
}

describe("P5, P7: a form's backfill past its pager's first ten pages (review of 2974bbe)", () => {
  it("P5, P7: a backfill left at a page tonight's first result page does not link (past its pager's ten) is reached by the pager's own links, with tonight's state; no earlier night's state is posted", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    let night = 0;
    let refused = 0;
    site.route("/Search.aspx", (req, res, { seen }) => {
      const html = (s: string) =>
        void res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(s);
      if (req.method === "GET") return html(aspx(`N${night}-FORM`, ""));
      const f = Object.fromEntries(new URLSearchParams(seen.body));
      if (!(f["__VIEWSTATE"] ?? "").startsWith(`N${night}-`)) {
        refused++;
        return void res
          .writeHead(500, { "content-type": "text/html" })
          .end("<h2>Validation of viewstate MAC failed.</h2>");
      }
      // Event validation: only a link the page it came from showed is accepted.
      const m = /^Page\$(\d+)$/.exec(f["__EVENTARGUMENT"] ?? "");
      const page = f["__EVENTTARGET"] === GRID && m ? Number(m[1]) : f[BUTTON] ? 1 : 0;
      const from = /-P(\d+)$/.exec(f["__VIEWSTATE"] ?? "");
      if (page > 1 && !grid(Number(from?.[1] ?? 0)).includes(`'Page$${page}'`)) {
        refused++;
        return void res.writeHead(500).end("Invalid postback or callback argument");
      }
      if (page < 1 || page > PAGES) return void res.writeHead(400).end("bad postback");
      html(aspx(`N${night}-P${page}`, grid(page)));
    });
    const catalog = testerCatalog(world.dir, "pager-window", [
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
      "    backfill: { pagesPerNight: 4 }",
    ]);
    const data = join(world.dir, "pager-window");
    for (const date of ["2026-11-20", "2026-11-21", "2026-11-22", "2026-11-23", "2026-11-24"]) {
      night++;
      await nightOn(catalog, data, date);
    }
    expect(refused).toBe(0);
    // Nights 4 and 5: the search, the pager's "..." (page 11) on the way, then four pages.
    const posts = site.requests
      .filter((r) => r.method === "POST")
      .map((r) => {
        const f = Object.fromEntries(new URLSearchParams(r.body));
        return `${f["__VIEWSTATE"]} ${f["__EVENTARGUMENT"] || "search"}`;
      });
    expect(posts.filter((p) => p.startsWith("N4-") || p.startsWith("N5-"))).toEqual([
      ...["N4-FORM search", "N4-P1 Page$11", "N4-P11 Page$14", "N4-P14 Page$15"],
      ...["N4-P15 Page$16", "N4-P16 Page$17"],
      ...["N5-FORM search", "N5-P1 Page$11", "N5-P11 Page$18", "N5-P18 Page$19"],
      ...["N5-P19 Page$20", "N5-P20 Page$21"],
    ]);
    const db = new Database(join(data, "nor.db"), { readonly: true });
    try {
      const titles = new Set(
        db
          .prepare("select title from records where source_id = 'permits'")
          .all()
          .map((r) => (r as { title: string }).title),
      );
      // Pages 1 to 21 read in five nights (four older pages a night).
      for (let n = 1; n <= 42; n++) expect(titles.has(`Item ${n}`), `Item ${n}`).toBe(true);
      const bf = db.prepare("select done from backfill where source_id = 'permits'").get() as {
        done: number;
      };
      expect(bf.done).toBe(0);
    } finally {
      db.close();
    }
  }, 180_000);
});
