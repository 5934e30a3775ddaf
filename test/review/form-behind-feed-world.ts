import { join } from "node:path";
import Database from "better-sqlite3";
import { expect } from "vitest";
import { nightOn, noRobots, testerCatalog, type testerWorld } from "../night/tester-nights.js";

/**
 * A search form (an ASP.NET postback grid, P5) read alone for two nights (its backfill, one
 * older page a night, P7: pages 2 and 3), then with a feed put before it (P4) that answers first
 * every night after. Each night's view state is that night's: a postback carrying an earlier
 * night's is refused (500, counted). Shared by the reviews of a form's backfill behind a feed.
 */
export const GRID = "ctl00$Main$gv";
const BUTTON = "ctl00$Main$btn";
export const PAGES = 6;

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

export interface FormBehindFeed {
  /** The form's requests each night (1-based): "GET", "POST search", "POST Page$N". */
  asked: Map<number, string[]>;
  /** Postbacks refused for carrying another night's view state. */
  refused: () => number;
  data: string;
  feedFirst: string;
}

/**
 * Two nights of the form alone, then `feedNights` nights of the feed first. `moved`: the form's
 * catalog URL (/Search.aspx) answers 301 to where the form is now (/New/Search.aspx), each such
 * answer counted in `asked` as "GET moved".
 */
export async function formBehindFeed(
  world: ReturnType<typeof testerWorld>,
  feedNights: readonly string[],
  opts: { moved?: boolean } = {},
): Promise<FormBehindFeed> {
  const site = await world.fleet.server();
  site.route("/robots.txt", noRobots);
  site.route("/feed", (_q, res) => {
    res.writeHead(200, { "content-type": "application/rss+xml" }).end(RSS);
  });
  let night = 0;
  let refused = 0;
  const asked = new Map<number, string[]>();
  if (opts.moved)
    site.route("/Search.aspx", (_q, res) => {
      asked.set(night, [...(asked.get(night) ?? []), "GET moved"]);
      res.writeHead(301, { location: "/New/Search.aspx" }).end();
    });
  site.route(opts.moved ? "/New/Search.aspx" : "/Search.aspx", (req, res, { seen }) => {
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
  for (const date of feedNights) {
    night++;
    await nightOn(feedFirst, data, date);
  }
  return { asked, refused: () => refused, data, feedFirst };
}

/** Every item of every page stored, and the backfill done. */
export function expectAllStoredAndDone(data: string): void {
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
}
