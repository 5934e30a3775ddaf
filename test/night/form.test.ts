import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_USER_AGENT } from "../../src/policy/constants.js";
import { fillDateTemplates } from "../../src/sources/extract/form-dates.js";
import { runMain } from "../cli/cli-capture.js";
import { type Fleet, type FleetServer, type SeenRequest, startFleet } from "../fleet/fleet.js";
import { minGap } from "../fleet/gaps.js";

/**
 * P5 end to end: a generic ASP.NET search form with no platform preset, read by the real
 * `nor night` (in-process) against a loopback site. The site checks nothing itself; every claim is
 * asserted afterwards from what it saw (method, body, headers, timing) and from the store.
 */
const GRID = "ctl00$Main$gvResults";
const DATE_FIELD = "ctl00$Main$txtFrom";
const BUTTON = "ctl00$Main$btnSearch";
const GAP_MS = 50;

/** Three result pages of two records each, newest first. */
const RESULTS = [1, 2, 3].map((page) =>
  [1, 2].map((i) => {
    const n = (page - 1) * 2 + i;
    return {
      title: `Resolution 2026-${100 - n}`,
      date: `10/${30 - n}/2026`,
      doc: `/Docs/R${n}.pdf`,
    };
  }),
);

/** The ASP.NET shape: one form around everything, hidden state, and the grid inside it. */
function aspxPage(viewstate: string, dateValue: string, grid = ""): string {
  return `<!DOCTYPE html><html><body>
<form method="post" action="./Search.aspx" id="aspnetForm">
<input type="hidden" name="__EVENTTARGET" id="__EVENTTARGET" value="" />
<input type="hidden" name="__EVENTARGUMENT" id="__EVENTARGUMENT" value="" />
<input type="hidden" name="__VIEWSTATE" id="__VIEWSTATE" value="${viewstate}" />
<input type="hidden" name="__VIEWSTATEGENERATOR" id="__VIEWSTATEGENERATOR" value="A1B2C3D4" />
<input type="hidden" name="__EVENTVALIDATION" id="__EVENTVALIDATION" value="EV-${viewstate}" />
<label>From <input type="text" name="${DATE_FIELD}" value="${dateValue}" /></label>
<select name="ctl00$Main$ddlType"><option value="">All</option><option value="R" selected="selected">Resolutions</option></select>
<input type="submit" name="${BUTTON}" value="Search" />
${grid}
</form></body></html>`;
}

/** A record the site adds before night 2 (on top of page 1), so night 2 has something new. */
const LATER = { title: "Resolution 2026-100", date: "10/31/2026", doc: "/Docs/R0.pdf" };
let addedLater = false;
/** The form page's ETag (P12): night 2 must ask with it and be answered 304. */
const FORM_ETAG = '"form-v1"';

function gridOf(page: number): string {
  const shown = page === 1 && addedLater ? [LATER, ...RESULTS[0]!] : RESULTS[page - 1]!;
  const rows = shown
    .map((r) => `<tr class="row"><td><a href="${r.doc}">${r.title}</a></td><td>${r.date}</td></tr>`)
    .join("");
  const pager = [1, 2, 3]
    .map((n) =>
      n === page
        ? `<td><span>${n}</span></td>`
        : `<td><a href="javascript:__doPostBack('${GRID}','Page$${n}')">${n}</a></td>`,
    )
    .join("");
  return `<table id="ctl00_Main_gvResults"><tr><th>Title</th><th>Date</th></tr>${rows}<tr class="pager"><td colspan="2"><table><tr>${pager}</tr></table></td></tr></table>`;
}

/** `nor night` in this process (its streams passed in); its stderr is shown if it fails. */
async function runNight(catalog: string, data: string, night: string): Promise<number | null> {
  const args = ["night", "--catalog", catalog, "--data", data, "--night", night];
  args.push("--allow-private-addresses", "--gap-ms", String(GAP_MS));
  const r = await runMain(args);
  if (r.code !== 0) process.stderr.write(r.stderr);
  return r.code;
}

const form = (r: SeenRequest) => Object.fromEntries(new URLSearchParams(r.body));

describe("P5: a generic ASP.NET search form read by the night, end to end", () => {
  let fleet: Fleet;
  let site: FleetServer;
  let dir: string;

  beforeAll(async () => {
    fleet = await startFleet();
    site = await fleet.server({ host: "127.0.0.6" });
    site.route("/robots.txt", (_q, res) => {
      res
        .writeHead(200, { "content-type": "text/plain" })
        .end("User-agent: *\nDisallow: /admin/\n");
    });
    site.route("/Search.aspx", (req, res, { seen }) => {
      const html = (s: string): void =>
        void res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(s);
      if (req.method === "GET") {
        // RFC 9110 §13.1.2: an If-None-Match naming the current ETag gets a 304, no body.
        if (req.headers["if-none-match"] === FORM_ETAG) {
          return void res.writeHead(304, { etag: FORM_ETAG }).end();
        }
        return void res
          .writeHead(200, { "content-type": "text/html; charset=utf-8", etag: FORM_ETAG })
          .end(aspxPage("VS-FORM", ""));
      }
      // Answer by what was posted, as the server would; the test judges the posts later.
      const f = Object.fromEntries(new URLSearchParams(seen.body));
      const m = /^Page\$(\d)$/.exec(f["__EVENTARGUMENT"] ?? "");
      const page = f["__EVENTTARGET"] === GRID && m ? Number(m[1]) : f[BUTTON] ? 1 : 0;
      if (page < 1 || page > 3) return void res.writeHead(400).end("bad postback");
      return html(aspxPage(`VS-P${page}`, f[DATE_FIELD] ?? "", gridOf(page)));
    });
    dir = mkdtempSync(join(tmpdir(), "nor-form-"));
    writeFileSync(
      join(dir, "catalog.yaml"),
      [
        "governments:",
        "  - { id: city-of-test, name: City of Test, kind: city, county: Franklin }",
        "sources:",
        "  - id: test-resolutions",
        "    government: city-of-test",
        "    records: other",
        "    access: form",
        `    url: ${site.url("/Search.aspx")}`,
        "    form:",
        `      fields: { "${DATE_FIELD}": "{today-30d}" }`,
        `      submit: "${BUTTON}"`,
        `      pager: "${GRID}"`,
        "    extract:",
        "      items: '#ctl00_Main_gvResults tr.row'",
        "      title: 'td:nth-child(1) a'",
        "      link: 'td:nth-child(1) a'",
        "      date: 'td:nth-child(2)'",
        "    backfill: { pagesPerNight: 2 }",
        "",
      ].join("\n"),
    );
  }, 60_000);

  afterAll(async () => {
    await fleet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("P5, P7: GETs the form, posts its hidden state with the filled date, turns pages 2 and 3 with the GridView postback, politely", async () => {
    const before = Date.now();
    expect(await runNight(join(dir, "catalog.yaml"), dir, "2026-11-05")).toBe(0);
    // {today-30d} is read off the clock the CLI ran with (America/New_York, MM/DD/YYYY).
    const dates = [before, Date.now()].map((t) => fillDateTemplates("{today-30d}", t, {}));

    const seen = site.requests;
    expect(seen.map((r) => `${r.method} ${r.path}`)).toEqual([
      "GET /robots.txt",
      "GET /Search.aspx",
      "POST /Search.aspx",
      "POST /Search.aspx",
      "POST /Search.aspx",
    ]);
    const [, , search, page2, page3] = seen as [SeenRequest, ...SeenRequest[]];

    // The search: every control of the form as the page gave it, the date filled in, the
    // button pressed (HTML form submission; ASP.NET needs the button's name in the body).
    expect(search!.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    const s = form(search!);
    expect(dates).toContain(s[DATE_FIELD]);
    expect(s).toEqual({
      __EVENTTARGET: "",
      __EVENTARGUMENT: "",
      __VIEWSTATE: "VS-FORM",
      __VIEWSTATEGENERATOR: "A1B2C3D4",
      __EVENTVALIDATION: "EV-VS-FORM",
      [DATE_FIELD]: s[DATE_FIELD],
      ctl00$Main$ddlType: "R",
      [BUTTON]: "Search",
    });

    // The pager: the click's __doPostBack, with the state of the page that showed the link,
    // the search as that page echoed it, and no button.
    for (const [req, n] of [
      [page2!, 2],
      [page3!, 3],
    ] as const) {
      const p = form(req);
      expect(p).toEqual({
        __EVENTTARGET: GRID,
        __EVENTARGUMENT: `Page$${n}`,
        __VIEWSTATE: `VS-P${n - 1}`,
        __VIEWSTATEGENERATOR: "A1B2C3D4",
        __EVENTVALIDATION: `EV-VS-P${n - 1}`,
        [DATE_FIELD]: s[DATE_FIELD],
        ctl00$Main$ddlType: "R",
      });
    }

    // P1/P10: the one honest User-Agent on every request, and the gap between them.
    for (const r of seen) expect(r.headers["user-agent"]).toBe(DEFAULT_USER_AGENT);
    expect(minGap(seen)).toBeGreaterThanOrEqual(GAP_MS);

    const db = new Database(join(dir, "nor.db"), { readonly: true });
    try {
      const records = db
        .prepare("select title, date, url from records where source_id = ? order by title desc")
        .all("test-resolutions") as { title: string; date: string; url: string }[];
      expect(records).toEqual(
        RESULTS.flat().map((r) => ({
          title: r.title,
          date: `2026-10-${r.date.slice(3, 5)}`,
          url: site.url(r.doc),
        })),
      );
      const log = db
        .prepare("select method, url, purpose, status from request_log order by id")
        .all() as { method: string; url: string; purpose: string; status: number }[];
      expect(log).toEqual([
        { method: "GET", url: site.url("/robots.txt"), purpose: "robots", status: 200 },
        { method: "GET", url: site.url("/Search.aspx"), purpose: "form", status: 200 },
        { method: "POST", url: site.url("/Search.aspx"), purpose: "form", status: 200 },
        { method: "POST", url: site.url("/Search.aspx"), purpose: "backfill", status: 200 },
        { method: "POST", url: site.url("/Search.aspx"), purpose: "backfill", status: 200 },
      ]);
      const night = db
        .prepare("select outcome from night_sources where source_id = ?")
        .get("test-resolutions") as { outcome: string };
      expect(night.outcome).toBe("ok");
    } finally {
      db.close();
    }
    // Nothing was stored before night 1, so its form page was asked for unconditionally.
    expect(seen[1]!.headers["if-none-match"]).toBeUndefined();
  }, 120_000);

  it("P12, P5: on night 2 the form page is asked for with its stored ETag, answered 304, and the form is still filled from the stored copy", async () => {
    const before = site.requests.length;
    addedLater = true;
    const start = Date.now();
    expect(await runNight(join(dir, "catalog.yaml"), dir, "2026-11-06")).toBe(0);
    const dates = [start, Date.now()].map((t) => fillDateTemplates("{today-30d}", t, {}));

    const seen = site.requests.slice(before).filter((r) => r.path !== "/robots.txt");
    // Backfill finished on night 1, so night 2 is the form page and the search: no more.
    expect(seen.map((r) => `${r.method} ${r.path}`)).toEqual([
      "GET /Search.aspx",
      "POST /Search.aspx",
    ]);
    const [get, search] = seen as [SeenRequest, SeenRequest];
    expect(get.headers["if-none-match"]).toBe(FORM_ETAG);
    // The search carries the hidden state of the stored copy of the form page.
    const s = form(search);
    expect(dates).toContain(s[DATE_FIELD]);
    expect(s).toMatchObject({
      __VIEWSTATE: "VS-FORM",
      __EVENTVALIDATION: "EV-VS-FORM",
      ctl00$Main$ddlType: "R",
      [BUTTON]: "Search",
    });

    const db = new Database(join(dir, "nor.db"), { readonly: true });
    try {
      const log = db
        .prepare(
          "select method, purpose, status from request_log where night = ? and url = ? order by id",
        )
        .all("2026-11-06", site.url("/Search.aspx"));
      expect(log).toEqual([
        { method: "GET", purpose: "form", status: 304 },
        { method: "POST", purpose: "form", status: 200 },
      ]);
      const night = db
        .prepare("select outcome from night_sources where source_id = ? and night = ?")
        .get("test-resolutions", "2026-11-06") as { outcome: string };
      expect(night.outcome).toBe("ok");
      // The record the site added since night 1 was read on night 2.
      const added = db
        .prepare("select date, url from records where source_id = ? and title = ?")
        .all("test-resolutions", LATER.title);
      expect(added).toEqual([{ date: "2026-10-31", url: site.url(LATER.doc) }]);
    } finally {
      db.close();
    }
  }, 120_000);
});
