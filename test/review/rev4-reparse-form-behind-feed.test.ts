import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { runMain } from "../cli/cli-capture.js";
import { nightOn, noRobots, testerCatalog, testerWorld } from "../night/tester-nights.js";

/**
 * Review of b0a1177: a search form's backfill (P5, P7: its place a postback, carrying the state of
 * the result page it was turned from) waited "for a night its own way answers first". A feed put
 * before the form (P4) answers first every night: the backfill then waited for ever, never going
 * on nor ending, and `nor status` said it was going on. Now the form's search is asked tonight and
 * the place turned from it, with tonight's state.
 */
const world = testerWorld("nor-rev4-form-feed-reparse-");
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

const RSS = `<?xml version="1.0"?><rss version="2.0"><channel><title>Permits</title><link>http://x/</link><description>d</description>
<item><title>Item 1</title><link>/D/1.pdf</link><guid>/D/1.pdf</guid><pubDate>Thu, 01 Oct 2026 12:00:00 GMT</pubDate></item></channel></rss>`;

describe("P8, P5: nor reparse of a source whose form's backfill went on behind a feed", () => {
  it("P8, P5: nor reparse of a source whose form's backfill went on behind a feed leaves the form's blank page out (no note that it is not a feed's list), as it does when the form answers first", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    site.route("/feed", (_q, res) => {
      res.writeHead(200, { "content-type": "application/rss+xml" }).end(RSS);
    });
    let night = 0;
    let refused = 0;
    const asked = new Map<number, string[]>();
    site.route("/Search.aspx", (req, res, { seen }) => {
      const f0 = Object.fromEntries(new URLSearchParams(seen.body ?? ""));
      asked.set(night, [
        ...(asked.get(night) ?? []),
        req.method === "GET" ? "GET" : `POST ${f0["__EVENTARGUMENT"] || "search"}`,
      ]);
      const html = (s: string) =>
        void res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(s);
      if (req.method === "GET") return html(aspx(`N${night}-FORM`, ""));
      const f = Object.fromEntries(new URLSearchParams(seen.body));
      if (!(f["__VIEWSTATE"] ?? "").startsWith(`N${night}-`)) {
        refused++;
        return void res.writeHead(500).end("<h2>Validation of viewstate MAC failed.</h2>");
      }
      const m = /^Page\$(\d+)$/.exec(f["__EVENTARGUMENT"] ?? "");
      const page = f["__EVENTTARGET"] === GRID && m ? Number(m[1]) : f[BUTTON] ? 1 : 0;
      if (page < 1 || page > PAGES) return void res.writeHead(400).end("bad postback");
      html(aspx(`N${night}-P${page}`, grid(page)));
    });
    const form = [
      "    form:",
      `      fields: { from: "{today-30d}" }`,
      `      submit: "${BUTTON}"`,
      `      pager: "${GRID}"`,
    ];
    const EXTRACT =
      "extract: { items: 'tr.row', title: 'td a', link: 'td a', date: 'td:nth-child(2)' }";
    const formOnly = testerCatalog(world.dir, "form", [
      "  - id: permits",
      "    government: city-of-test",
      "    records: permits",
      "    access: form",
      `    url: ${site.url("/Search.aspx")}`,
      ...form,
      `    ${EXTRACT}`,
      "    backfill: { pagesPerNight: 1 }",
    ]);
    const feedFirst = testerCatalog(world.dir, "feed-first", [
      "  - id: permits",
      "    government: city-of-test",
      "    records: permits",
      "    access: feed",
      `    url: ${site.url("/feed")}`,
      "    backfill: { pagesPerNight: 1 }",
      "    alternates:",
      "      - access: form",
      `        url: ${site.url("/Search.aspx")}`,
      ...form.map((l) => `    ${l}`),
      `        ${EXTRACT}`,
    ]);
    const data = join(world.dir, "form-feed");
    for (const date of ["2026-11-20", "2026-11-21"]) {
      night++;
      await nightOn(formOnly, data, date);
    }
    for (const date of [
      "2026-11-22",
      "2026-11-23",
      "2026-11-24",
      "2026-11-25",
      "2026-11-26",
      "2026-11-27",
      "2026-11-28",
    ]) {
      night++;
      await nightOn(feedFirst, data, date);
    }
    const re = await runMain(["reparse", "--data", data, "--catalog", feedFirst]);
    expect(re.stdout).not.toContain("not a feed");
    expect(re.stdout).not.toMatch(/would remove [1-9]/);
    expect(refused).toBe(0);
    const db = new Database(join(data, "nor.db"), { readonly: true });
    try {
      const titles = new Set(
        db
          .prepare("select title from records where source_id = 'permits'")
          .all()
          .map((r) => (r as { title: string }).title),
      );
      for (let n = 1; n <= PAGES * 2; n++) expect(titles.has(`Item ${n}`), `Item ${n}`).toBe(true);
      const bf = db.prepare("select done from backfill where source_id = 'permits'").get() as {
        done: number;
      };
      expect(bf.done).toBe(1);
    } finally {
      db.close();
    }
  }, 120_000);
});
