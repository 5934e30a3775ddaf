import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { runMain } from "../cli/cli-capture.js";
import { nightOn, outcomesOn, testerCatalog, testerWorld } from "./tester-nights.js";

/**
 * What an outside tester found by playing the sites (session 24), each proved from what a
 * loopback site saw of a real `nor night` and from the store:
 * - the cookies a site set were never sent back, not even to the form that set its session
 *   (P5, P22): each source's check now has a jar of its own;
 * - a page that showed no records and then answered 304 was "unchanged", a yes;
 * - a backfill whose next link led back to an earlier page, or whose pages past the end
 *   repeated the last one, asked again every night (P7, P11);
 * - a way that answered but showed no records (a feed address answering a page for people)
 *   was kept, and the page alternate never asked (P4).
 */
const world = testerWorld("nor-tester24-");
const night = nightOn;
const outcomes = outcomesOn;

function backfill(data: string, source: string): { done: number; pages_read: number } {
  const db = new Database(join(data, "nor.db"), { readonly: true });
  try {
    return db.prepare("select done, pages_read from backfill where source_id = ?").get(source) as {
      done: number;
      pages_read: number;
    };
  } finally {
    db.close();
  }
}

function catalogOf(name: string, sources: string[]): string {
  return testerCatalog(world.dir, name, sources);
}

const html =
  (body: string, headers: Record<string, string> = {}) =>
  (_q: IncomingMessage, res: ServerResponse) =>
    void res
      .writeHead(200, { "content-type": "text/html; charset=utf-8", ...headers })
      .end(`<!DOCTYPE html><html><body>${body}</body></html>`);

const list = (items: string[], next?: string) =>
  `<ul>${items.map((t) => `<li class="doc"><a href="/d/${encodeURIComponent(t)}.pdf">${t}</a></li>`).join("")}</ul>${next ? `<a rel="next" href="${next}">Older</a>` : ""}`;

const noRobots = (_q: IncomingMessage, res: ServerResponse) => void res.writeHead(404).end();

describe("found from outside, session 24", () => {
  it("P5, P22: a search form's session cookie goes back with its POST; another source on the site, and the next night, start with none", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    let session = 0;
    site.route("/Search.aspx", (req, res) => {
      if (req.method === "GET") {
        session++;
        res
          .writeHead(200, {
            "content-type": "text/html; charset=utf-8",
            "set-cookie": `ASP.NET_SessionId=s${session}; path=/; HttpOnly`,
          })
          .end(
            `<!DOCTYPE html><html><body><form method="post" action="Search.aspx"><input type="hidden" name="__VIEWSTATE" value="abc"><input name="from" value=""><input type="submit" name="go" value="Search"></form></body></html>`,
          );
        return;
      }
      const withSession = /ASP\.NET_SessionId=s\d+/.test(String(req.headers.cookie ?? ""));
      res
        .writeHead(200, { "content-type": "text/html; charset=utf-8" })
        .end(
          withSession
            ? `<table><tr class="row"><td>Permit 7 granted</td></tr></table>`
            : `<p>Your session has expired.</p>`,
        );
    });
    site.route(
      "/other.xml",
      (_q, res) =>
        void res
          .writeHead(200, { "content-type": "application/rss+xml" })
          .end(
            `<?xml version="1.0"?><rss version="2.0"><channel><title>t</title><item><title>Other</title><link>https://example.org/o</link></item></channel></rss>`,
          ),
    );
    const data = join(world.dir, "cookies");
    const catalog = catalogOf("cookies", [
      "  - id: a-form",
      "    government: city-of-test",
      "    records: permits",
      "    access: form",
      `    url: ${site.url("/Search.aspx")}`,
      "    form:",
      '      fields: { from: "{today-30d}" }',
      "      submit: go",
      "    extract: { items: 'tr.row', title: td }",
      `  - { id: b-feed, government: city-of-test, records: agendas, access: feed, url: "${site.url("/other.xml")}" }`,
    ]);
    await night(catalog, data, "2026-11-05");
    const seen = site.requests.map((r) => `${r.method} ${r.path} ${r.headers.cookie ?? "-"}`);
    expect(seen).toEqual([
      "GET /robots.txt -",
      "GET /Search.aspx -",
      "POST /Search.aspx ASP.NET_SessionId=s1",
      "GET /other.xml -",
    ]);
    expect(outcomes(data, "2026-11-05")["a-form"]?.outcome).toBe("ok");
    const before = site.requests.length;
    await night(catalog, data, "2026-11-06");
    const next = site.requests.slice(before).filter((r) => r.path === "/Search.aspx");
    expect(next.map((r) => `${r.method} ${r.headers.cookie ?? "-"}`)).toEqual([
      "GET -",
      "POST ASP.NET_SessionId=s2",
    ]);
  }, 60_000);

  it("P5, P22: a cookie check (a redirect that sets a cookie and comes back) is passed as a visitor's browser passes it", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    site.route("/list", (req, res) => {
      if (!/visited=1/.test(String(req.headers.cookie ?? ""))) {
        res.writeHead(302, { location: "/list", "set-cookie": "visited=1; path=/" }).end();
        return;
      }
      html(list(["Bid 9"]))(req, res);
    });
    const data = join(world.dir, "cookie-check");
    const catalog = catalogOf("cookie-check", [
      "  - id: bids",
      "    government: city-of-test",
      "    records: bids",
      `    url: ${site.url("/list")}`,
      "    extract: { items: 'li.doc', title: a, link: a }",
    ]);
    await night(catalog, data, "2026-11-05");
    expect(site.requests.map((r) => `${r.path} ${r.headers.cookie ?? "-"}`)).toEqual([
      "/robots.txt -",
      "/list -",
      "/list visited=1",
    ]);
    expect(outcomes(data, "2026-11-05")["bids"]?.outcome).toBe("ok");
  }, 60_000);

  it("P24: a page that shows no records and then answers 304 still shows none: 'no-records', never 'unchanged'", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    let emptyNow = false;
    site.route("/list", (req, res) => {
      const etag = emptyNow ? '"empty"' : '"full"';
      if (req.headers["if-none-match"] === etag) return void res.writeHead(304, { etag }).end();
      html(emptyNow ? "<p>No bids at this time.</p>" : list(["Bid 1"]), { etag })(req, res);
    });
    const data = join(world.dir, "empty-304");
    const catalog = catalogOf("empty-304", [
      "  - id: bids",
      "    government: city-of-test",
      "    records: bids",
      `    url: ${site.url("/list")}`,
      "    extract: { items: 'li.doc', title: a, link: a }",
      "    backfill: { pagesPerNight: 0 }",
    ]);
    await night(catalog, data, "2026-11-05");
    expect(outcomes(data, "2026-11-05")["bids"]?.outcome).toBe("ok");
    emptyNow = true;
    await night(catalog, data, "2026-11-06");
    expect(outcomes(data, "2026-11-06")["bids"]?.outcome).toBe("no-records");
    await night(catalog, data, "2026-11-07");
    expect(site.hits("/list").at(-1)?.headers["if-none-match"]).toBe('"empty"');
    const third = outcomes(data, "2026-11-07")["bids"];
    expect(third?.outcome).toBe("no-records");
    expect(third?.reason).toMatch(
      /no (items matched the recipe|records on the page).*unchanged since it was last read/,
    );
  }, 60_000);

  it("P7, P11: a backfill whose next link leads back to page 1, or whose pages past the end repeat the last, ends: the next night asks page 1 alone", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    // Back to page 1 from page 2.
    site.route("/a", html(list(["A3"], "/a?p=2")));
    site.route("/a?p=2", html(list(["A2"], "/a")));
    // Past the end (page 3), every page repeats page 3 under a new address.
    site.route("/b", html(list(["B5"], "/b?p=2")));
    site.route("/b?p=2", html(list(["B4"], "/b?p=3")));
    for (let p = 3; p <= 12; p++) site.route(`/b?p=${p}`, html(list(["B3"], `/b?p=${p + 1}`)));
    const data = join(world.dir, "backfill-loop");
    const catalog = catalogOf("backfill-loop", [
      "  - id: a",
      "    government: city-of-test",
      "    records: bids",
      `    url: ${site.url("/a")}`,
      "    extract: { items: 'li.doc', title: a, link: a, next: 'a[rel=next]' }",
      "    backfill: { pagesPerNight: 5 }",
      "  - id: b",
      "    government: city-of-test",
      "    records: bids",
      `    url: ${site.url("/b")}`,
      "    extract: { items: 'li.doc', title: a, link: a, next: 'a[rel=next]' }",
      "    backfill: { pagesPerNight: 5 }",
    ]);
    await night(catalog, data, "2026-11-05");
    expect(site.requests.map((r) => r.path)).toEqual([
      "/robots.txt",
      "/a",
      "/a?p=2",
      "/b",
      "/b?p=2",
      "/b?p=3",
      "/b?p=4",
    ]);
    expect(backfill(data, "a").done).toBe(1);
    expect(backfill(data, "b").done).toBe(1);
    const before = site.requests.length;
    await night(catalog, data, "2026-11-06");
    expect(site.requests.slice(before).map((r) => r.path)).toEqual(["/a", "/b"]);
  }, 60_000);

  it("P4: a feed's address that answers a page for people shows no records: the page alternate is asked and used, the feed said passed over; with no alternate left, the feed's answer stands", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    site.route("/RSSFeed.aspx", html("<p>Welcome to our new website!</p>"));
    site.route("/Bids.aspx", html(list(["Road salt", "Paving"])));
    const data = join(world.dir, "alternate");
    const catalog = catalogOf("alternate", [
      "  - id: bids",
      "    government: city-of-test",
      "    records: bids",
      "    access: feed",
      `    url: ${site.url("/RSSFeed.aspx")}`,
      "    alternates:",
      "      - access: page",
      `        url: ${site.url("/Bids.aspx")}`,
      "        extract: { items: 'li.doc', title: a, link: a }",
      `  - { id: lone, government: city-of-test, records: agendas, access: feed, url: "${site.url("/RSSFeed.aspx")}" }`,
    ]);
    await night(catalog, data, "2026-11-05");
    // The second source's feed is tonight's stored answer, never asked again (P8).
    expect(site.requests.map((r) => r.path)).toEqual([
      "/robots.txt",
      "/RSSFeed.aspx",
      "/Bids.aspx",
    ]);
    const o = outcomes(data, "2026-11-05");
    expect(o["bids"]?.outcome).toBe("ok");
    const way = JSON.parse(o["bids"]?.way ?? "{}") as {
      used?: { access: string };
      skipped: { access: string; why: string }[];
    };
    expect(way.used?.access).toBe("page");
    expect(way.skipped).toEqual([
      { access: "feed", url: site.url("/RSSFeed.aspx"), why: "no-records: not a feed" },
    ]);
    expect(o["lone"]?.outcome).toBe("no-records");
    expect(o["lone"]?.reason).toBe("not a feed");
  }, 60_000);

  it("P4, P11: an empty feed works (nothing more is asked of its source), and a feed's address that is no feed is passed over on a 304 night too", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    const emptyFeed = `<?xml version="1.0"?><rss version="2.0"><channel><title>Bids</title></channel></rss>`;
    site.route("/bids.rss", (req, res) => {
      if (req.headers["if-none-match"] === '"e"')
        return void res.writeHead(304, { etag: '"e"' }).end();
      res.writeHead(200, { "content-type": "application/rss+xml", etag: '"e"' }).end(emptyFeed);
    });
    site.route("/Agendas.rss", (req, res) => {
      if (req.headers["if-none-match"] === '"h"')
        return void res.writeHead(304, { etag: '"h"' }).end();
      html("<p>Page not found</p>", { etag: '"h"' })(req, res);
    });
    site.route("/Bids.aspx", html(list(["Road salt"])));
    site.route("/Agendas.aspx", html(list(["Council agenda"])));
    const data = join(world.dir, "empty-feed");
    const page = (path: string) => [
      "    alternates:",
      "      - access: page",
      `        url: ${site.url(path)}`,
      "        extract: { items: 'li.doc', title: a, link: a }",
    ];
    const catalog = catalogOf("empty-feed", [
      "  - id: bids",
      "    government: city-of-test",
      "    records: bids",
      "    access: feed",
      `    url: ${site.url("/bids.rss")}`,
      ...page("/Bids.aspx"),
      "  - id: agendas",
      "    government: city-of-test",
      "    records: agendas",
      "    access: feed",
      `    url: ${site.url("/Agendas.rss")}`,
      ...page("/Agendas.aspx"),
    ]);
    for (const date of ["2026-11-05", "2026-11-06"]) {
      const before = site.requests.length;
      await night(catalog, data, date);
      const asked = site.requests.slice(before).map((r) => r.path);
      expect(
        asked.filter((p) => p !== "/robots.txt"),
        date,
      ).toEqual(["/Agendas.rss", "/Agendas.aspx", "/bids.rss"]);
      const o = outcomes(data, date);
      expect(o["bids"]?.outcome, date).toBe("no-records");
      expect(["ok", "unchanged"], date).toContain(o["agendas"]?.outcome);
      expect(JSON.parse(o["agendas"]?.way ?? "{}").used?.access, date).toBe("page");
    }
  }, 60_000);

  it("P5, P19: a cookie check that never lets the visitor in (a new cookie at every turn) costs a redirect chain's six requests, no more; one in two steps is passed", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    let n = 0;
    site.route("/list", (_q, res) => {
      n++;
      res.writeHead(302, { location: "/list", "set-cookie": `v=${n}; path=/` }).end();
    });
    // Two steps: the list sends the visitor to /a (cookie a), back, to /b (cookie b), back.
    site.route("/two", (req, res) => {
      const c = String(req.headers.cookie ?? "");
      if (!/a=1/.test(c)) return void res.writeHead(302, { location: "/a" }).end();
      if (!/b=1/.test(c)) return void res.writeHead(302, { location: "/b" }).end();
      html(list(["Bid 2"]))(req, res);
    });
    site.route(
      "/a",
      (_q, res) => void res.writeHead(302, { location: "/two", "set-cookie": "a=1; path=/" }).end(),
    );
    site.route(
      "/b",
      (_q, res) => void res.writeHead(302, { location: "/two", "set-cookie": "b=1; path=/" }).end(),
    );
    const data = join(world.dir, "cookie-never");
    const page = (id: string, path: string) => [
      `  - id: ${id}`,
      "    government: city-of-test",
      "    records: bids",
      `    url: ${site.url(path)}`,
      "    extract: { items: 'li.doc', title: a, link: a }",
    ];
    const catalog = catalogOf("cookie-never", [
      ...page("a-never", "/list"),
      ...page("b-two", "/two"),
    ]);
    await night(catalog, data, "2026-11-05");
    expect(site.hits("/list")).toHaveLength(6);
    const o = outcomes(data, "2026-11-05");
    expect(o["a-never"]?.reason).toBe("too many redirects");
    expect(o["b-two"]?.outcome).toBe("ok");
    expect(
      site.requests
        .filter((r) => ["/two", "/a", "/b"].includes(r.path))
        .map((r) => `${r.path} ${r.headers.cookie ?? "-"}`),
    ).toEqual(["/two -", "/a -", "/two a=1", "/b a=1", "/two a=1; b=1"]);
  }, 60_000);

  it("P25: a source marked not read again with another reason keeps its recheck calendar: the rechecks do not start over", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    site.route("/blocked.xml", (_q, res) => void res.writeHead(403).end("no"));
    const data = join(world.dir, "remark");
    const catalog = catalogOf("remark", [
      `  - { id: blocked, government: city-of-test, records: agendas, access: feed, url: "${site.url("/blocked.xml")}" }`,
    ]);
    await night(catalog, data, "2026-11-05");
    const mark = (reason: string, on: string) =>
      runMain(["mark", "blocked", "--not-read", "--reason", reason, "--night", on, "--data", data]);
    expect((await mark("403 every night", "2026-11-05")).code).toBe(0);
    // The three nights soon after it, each a recheck (one not run would owe its recheck to the
    // next night that runs: P25, P13).
    for (const n of ["2026-11-06", "2026-11-07", "2026-11-08"]) {
      const from = site.requests.length;
      await night(catalog, data, n);
      expect(
        site.requests.slice(from).filter((r) => r.path === "/blocked.xml"),
        n,
      ).toHaveLength(1);
    }
    expect((await mark("403 every night; the clerk says it stays closed", "2026-11-09")).code).toBe(
      0,
    );
    // 5 nights after the first mark: neither one of the three nights soon after nor a weekly one.
    const before = site.requests.length;
    await night(catalog, data, "2026-11-10");
    expect(site.requests.slice(before).map((r) => r.path)).toEqual([]);
    // 10 nights after it: the first weekly recheck (three soon after, then every seventh).
    await night(catalog, data, "2026-11-15");
    expect(site.requests.slice(before).map((r) => r.path)).toContain("/blocked.xml");
  }, 60_000);

  it("P6: a record the list now shows otherwise (retitled, redated) is brought up to date, and is not new again", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    let title = "Road salt";
    const data = join(world.dir, "retitle");
    const catalog = catalogOf("retitle", [
      "  - id: bids",
      "    government: city-of-test",
      "    records: bids",
      `    url: ${site.url("/bids")}`,
      "    extract: { items: 'li.doc', title: a, link: a }",
      "    backfill: { pagesPerNight: 0 }",
    ]);
    // The link (the record's id) stays; only the words shown change.
    site.route("/bids", (req, res) =>
      html(
        `<ul><li class="doc"><a href="/d/1.pdf">${title}</a></li><li class="doc"><a href="/d/2.pdf">Paving</a></li></ul>`,
      )(req, res),
    );
    await night(catalog, data, "2026-11-05");
    title = "Road salt (CANCELLED)";
    await night(catalog, data, "2026-11-06");
    const db = new Database(join(data, "nor.db"), { readonly: true });
    try {
      const rows = db
        .prepare(
          "select title, first_seen_night from records where source_id = 'bids' order by record_id",
        )
        .all();
      expect(rows).toEqual([
        { title: "Road salt (CANCELLED)", first_seen_night: "2026-11-05" },
        { title: "Paving", first_seen_night: "2026-11-05" },
      ]);
      const n = db
        .prepare(
          "select new_records from night_sources where source_id = 'bids' and night = '2026-11-06'",
        )
        .get() as { new_records: number };
      expect(n.new_records).toBe(0);
    } finally {
      db.close();
    }
  }, 60_000);
});
