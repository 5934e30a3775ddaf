import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { nightOn, noRobots, outcomesOn, testerCatalog, testerWorld } from "./tester-nights.js";

/**
 * An outside tester's findings on the ways in (P5, P7): a search form's backfill, left at page N
 * one night, posted the next night the hidden state (__VIEWSTATE) of the result page it had read
 * the night before, under tonight's session: no visitor sends that, and a site that checks its
 * state answered 500 every night, for ever; an older page that answers 500 every night was asked
 * every night, for ever (a 404 ends the backfill after three nights, a 500 did not).
 */
const world = testerWorld("nor-ot-forms-");
const RECIPE = "extract: { items: li, title: a, link: a, date: span, next: a.next }";
const list = (rows: string[], next?: string) =>
  `<ul>${rows.map((r) => `<li><a href="/d/${r}.pdf">${r}</a> <span>11/01/2026</span></li>`).join("")}</ul>${next ? `<a class="next" href="${next}">Next</a>` : ""}`;

const GRID = "ctl00$Main$gv";
const BUTTON = "ctl00$Main$btn";

/** The ASP.NET shape: hidden state, a date field, the button, and the grid with its pager. */
function aspx(state: string, grid: string): string {
  return `<html><body><form method="post" action="./Search.aspx">
<input type="hidden" name="__EVENTTARGET" value="" /><input type="hidden" name="__EVENTARGUMENT" value="" />
<input type="hidden" name="__VIEWSTATE" value="${state}" /><input type="hidden" name="__EVENTVALIDATION" value="EV-${state}" />
<input type="text" name="from" value="" /><input type="submit" name="${BUTTON}" value="Search" />${grid}</form></body></html>`;
}

/** Result page `page` of 6, two rows each, newest first, with a pager linking every page. */
function grid(page: number): string {
  const rows = [1, 2]
    .map((i) => {
      const n = (page - 1) * 2 + i;
      return `<tr class="row"><td><a href="/D/${n}.pdf">Item ${n}</a></td><td>10/${28 - n}/2026</td></tr>`;
    })
    .join("");
  const pager = [1, 2, 3, 4, 5, 6]
    .map((n) =>
      n === page
        ? `<span>${n}</span>`
        : `<a href="javascript:__doPostBack('${GRID}','Page$${n}')">${n}</a>`,
    )
    .join(" ");
  return `<table id="g">${rows}</table><div>${pager}</div>`;
}

describe("P5, P7: the ways in, across nights (outside tester ot-forms)", () => {
  it("P7, P11: an older page that answers with something else than the page (a 400) every night ends the backfill after three nights; it is not asked every night for ever", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    site.route("/bf", (_q, res) => {
      res
        .writeHead(200, { "content-type": "text/html; charset=utf-8" })
        .end(list(["only"], "/bf-older"));
    });
    // A broken older page, every night. (A 500 is no answer about the page: asked again for
    // more nights, test/night/backfill-unanswered.test.ts and backfill-restart.test.ts.)
    site.route("/bf-older", (_q, res) => void res.writeHead(400).end("Bad Request"));
    const catalog = testerCatalog(world.dir, "broken-page", [
      `  - { id: bf, government: city-of-test, records: agendas, url: "${site.url("/bf")}", ${RECIPE} }`,
    ]);
    const data = join(world.dir, "broken-page");
    const nights = ["2026-11-20", "2026-11-21", "2026-11-22", "2026-11-23", "2026-11-24"];
    for (const night of nights) await nightOn(catalog, data, night);
    // Once a night (P15: a 400 is not retried) on three nights, then no more; page 1 read every night.
    expect(site.hits("/bf-older")).toHaveLength(3);
    expect(site.hits("/bf")).toHaveLength(5);
    for (const night of nights) expect(outcomesOn(data, night)["bf"]?.outcome).toBe("ok");
  }, 120_000);

  it("P5, P7: a search form's backfill goes on the next night from tonight's search, with tonight's page state, as a visitor's click would", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    let night = 0;
    site.route("/Search.aspx", (req, res, { seen }) => {
      const html = (s: string) =>
        void res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(s);
      if (req.method === "GET") return html(aspx(`N${night}-FORM`, ""));
      const f = Object.fromEntries(new URLSearchParams(seen.body));
      // ASP.NET checks the state it is sent back (its MAC, the session): the state of a page
      // served another night is refused, as "Validation of viewstate MAC failed" is.
      if (!(f["__VIEWSTATE"] ?? "").startsWith(`N${night}-`))
        return html("<h2>Validation of viewstate MAC failed.</h2>");
      const m = /^Page\$(\d)$/.exec(f["__EVENTARGUMENT"] ?? "");
      const page = f["__EVENTTARGET"] === GRID && m ? Number(m[1]) : f[BUTTON] ? 1 : 0;
      if (page < 1 || page > 6) return void res.writeHead(400).end("bad postback");
      html(aspx(`N${night}-P${page}`, grid(page)));
    });
    const catalog = testerCatalog(world.dir, "form-nights", [
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
      "    backfill: { pagesPerNight: 2 }",
    ]);
    const data = join(world.dir, "form-nights");
    for (const date of ["2026-11-20", "2026-11-21", "2026-11-22"]) {
      night++;
      await nightOn(catalog, data, date);
    }
    const posts = site.requests
      .filter((r) => r.method === "POST")
      .map((r) => {
        const f = Object.fromEntries(new URLSearchParams(r.body));
        return `${f["__VIEWSTATE"]} ${f["__EVENTARGUMENT"] || "search"}`;
      });
    // Night 1: the search, pages 2 and 3; night 2: the search, then pages 4 and 5 turned from
    // tonight's page 1 (its pager links every page); night 3: the search and page 6, the end.
    expect(posts).toEqual([
      "N1-FORM search",
      "N1-P1 Page$2",
      "N1-P2 Page$3",
      "N2-FORM search",
      "N2-P1 Page$4",
      "N2-P4 Page$5",
      "N3-FORM search",
      "N3-P1 Page$6",
    ]);
    const db = new Database(join(data, "nor.db"), { readonly: true });
    try {
      const titles = db
        .prepare("select title from records where source_id = 'permits'")
        .all()
        .map((r) => (r as { title: string }).title);
      expect(titles.sort()).toEqual(Array.from({ length: 12 }, (_, i) => `Item ${i + 1}`).sort());
      const bf = db.prepare("select done from backfill where source_id = 'permits'").get() as {
        done: number;
      };
      expect(bf.done).toBe(1);
    } finally {
      db.close();
    }
  }, 120_000);

  it("P5, P7: a Legistar calendar's backfill chooses its next year the next night on tonight's calendar, with tonight's page state", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    let night = 0;
    const YEARS = "ctl00$ContentPlaceHolder1$lstYears";
    const calendar = (year: number, state: string) => {
      const years = [2026, 2025, 2024, 2023, 2022].map((y) => `<li class="rcbItem">${y}</li>`);
      return `<html><body><form method="post" action="./Calendar.aspx" id="aspnetForm">
<input type="hidden" name="__VIEWSTATE" id="__VIEWSTATE" value="${state}" />
<input type="hidden" name="__EVENTVALIDATION" id="__EVENTVALIDATION" value="EV-${state}" />
<input name="${YEARS}" type="text" id="ctl00_ContentPlaceHolder1_lstYears_Input" value="${year}" />
<div id="ctl00_ContentPlaceHolder1_lstYears_DropDown"><ul>${years.join("")}</ul></div>
<table class="rgMasterTable"><thead><tr><th>Name</th><th>Meeting Date</th></tr></thead><tbody>
<tr class="rgRow"><td>City Council</td><td>3/${night}/${year}</td><td><a href="View.ashx?M=A&amp;ID=${year}&amp;GUID=X">Agenda</a></td></tr>
</tbody></table></form></body></html>`;
    };
    site.route("/Calendar.aspx", (req, res, { seen }) => {
      const html = (s: string) =>
        void res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(s);
      if (req.method === "GET") return html(calendar(2026, `N${night}-2026`));
      const f = Object.fromEntries(new URLSearchParams(seen.body));
      if (!(f["__VIEWSTATE"] ?? "").startsWith(`N${night}-`))
        return html("<h2>Validation of viewstate MAC failed.</h2>");
      const year = Number(f[YEARS]);
      html(calendar(year, `N${night}-${year}`));
    });
    const catalog = testerCatalog(world.dir, "legistar-nights", [
      "  - id: council",
      "    government: city-of-test",
      "    records: meetings",
      "    platform: legistar-html",
      `    url: ${site.url("/Calendar.aspx")}`,
      "    backfill: { pagesPerNight: 1 }",
    ]);
    const data = join(world.dir, "legistar-nights");
    for (const [i, date] of ["2026-11-20", "2026-11-21", "2026-11-22"].entries()) {
      night++;
      await nightOn(catalog, data, date);
      // A preset's night is not run back to back with another (its hosts are not all known to
      // be loopback ones): each night is said to have begun the day before its next.
      const db = new Database(join(data, "nor.db"));
      try {
        db.prepare("update nights set started_at = ? where night = ?").run(
          new Date(Date.now() - (3 - i) * 86_400_000).toISOString(),
          date,
        );
      } finally {
        db.close();
      }
    }
    const posts = site.requests
      .filter((r) => r.method === "POST")
      .map((r) => {
        const f = Object.fromEntries(new URLSearchParams(r.body));
        return `${f["__VIEWSTATE"]} ${f[YEARS]}`;
      });
    expect(posts).toEqual(["N1-2026 2025", "N2-2026 2024", "N3-2026 2023"]);
  }, 120_000);
});
