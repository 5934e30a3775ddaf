/**
 * Review 8: an answer received in full tonight is never asked for again (P8; the journal's
 * "whether its complete answer is already stored: then it is never asked again tonight").
 *
 * Two sources whose catalog URLs both redirect to one page (an old CMS path and a short link,
 * both 301 to the list page; or a resumed night re-walking the redirect of a source whose
 * commit a kill prevented). The first walk stores the page's answer and its ETag. The second
 * walk asks the redirect target with that ETag (validatorsFor reads the capture written
 * minutes ago), which is another journal key, so the journal does not see the answer it
 * already holds and the page is requested again (a conditional GET answered 304).
 *
 * The same happens to a form page two sources search (two record kinds from one ASP.NET search
 * page): the form-page GET (night/stored-copy.ts fetchOrCopy) carries the validators of the
 * capture the first source made minutes ago. And after a kill between an answer's archive and
 * its source's commit, the resumed night re-walks the redirect / re-opens the form the same way.
 *
 * Failed on main at f6eaf40, ea58685, before the fix (it passes now): the server sees GET /feeds/agendas.xml twice, and
 * GET /Search.aspx twice (the second with If-None-Match, answered 304).
 * Suggested fix: validators from a capture made tonight (fetched_at ≥ the night's start) are
 * not validators but the answer itself: use that copy (as readOne's storedSince does for a
 * source's first URL) for every hop and for the form page; or let the journal replay a final
 * 2xx answer of tonight for the same method + URL whatever validators are now attached.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Fleet, type FleetServer, startFleet } from "../fleet/fleet.js";
import { nightCli, rss, writeCatalog } from "../night/cli-night.js";

describe("review 8: a redirect target answered in full tonight", () => {
  let fleet: Fleet;
  let site: FleetServer;
  let dir: string;

  beforeAll(async () => {
    fleet = await startFleet();
    site = await fleet.server();
    site.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    for (const old of ["/agendas.rss", "/rss/agendas"])
      site.route(
        old,
        (_q, res) => void res.writeHead(301, { location: "/feeds/agendas.xml" }).end(),
      );
    site.route("/feeds/agendas.xml", (req, res) => {
      if (req.headers["if-none-match"] === '"v7"')
        return void res.writeHead(304, { etag: '"v7"' }).end();
      res
        .writeHead(200, { "content-type": "application/rss+xml", etag: '"v7"' })
        .end(rss(site.origin, 3));
    });
    dir = mkdtempSync(join(tmpdir(), "nor-review8-target-"));
  }, 60_000);

  afterAll(async () => {
    await fleet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("P8: two sources redirecting to one page: the page is asked once a night", async () => {
    const catalog = writeCatalog(
      dir,
      ["/agendas.rss", "/rss/agendas"].map((path, i) => [
        `id: moved-${i}`,
        "government: village-of-test",
        "records: agendas",
        "access: feed",
        `url: ${site.url(path)}`,
      ]),
    );
    const r = await nightCli(catalog, dir, "2026-11-05");
    expect(r.code, r.stderr).toBe(0);
    const target = site.hits("/feeds/agendas.xml").map((q) => q.headers["if-none-match"] ?? null);
    expect(target).toEqual([null]);
  }, 60_000);

  it("P8: two sources searching one form page: the form page is asked once a night", async () => {
    const form = await fleet.server();
    form.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    const page = (q: string, rows: string) =>
      `<html><body><form method="post" action="./Search.aspx"><input type="hidden" name="__VIEWSTATE" value="VS" /><input type="text" name="q" value="${q}" /><input type="submit" name="go" value="Search" /></form><table id="results">${rows}</table></body></html>`;
    form.route("/Search.aspx", (req, res, { seen }) => {
      if (req.method === "GET") {
        if (req.headers["if-none-match"] === '"f1"')
          return void res.writeHead(304, { etag: '"f1"' }).end();
        return void res
          .writeHead(200, { "content-type": "text/html; charset=utf-8", etag: '"f1"' })
          .end(page("", ""));
      }
      const q = new URLSearchParams(seen.body).get("q") ?? "";
      res
        .writeHead(200, { "content-type": "text/html; charset=utf-8" })
        .end(
          page(
            q,
            `<tr class="row"><td><a href="/doc/${q}-1">${q} 1</a></td><td>11/02/2026</td></tr>`,
          ),
        );
    });
    const dir2 = mkdtempSync(join(tmpdir(), "nor-review8-form-"));
    try {
      const catalog = writeCatalog(
        dir2,
        ["minutes", "bids"].map((q) => [
          `id: search-${q}`,
          "government: village-of-test",
          "records: other",
          "access: form",
          `url: ${form.url("/Search.aspx")}`,
          "form:",
          `  fields: { q: "${q}" }`,
          "  submit: go",
          "extract:",
          "  items: '#results tr.row'",
          "  title: 'td:nth-child(1) a'",
          "  link: 'td:nth-child(1) a'",
          "  date: 'td:nth-child(2)'",
        ]),
      );
      const r = await nightCli(catalog, dir2, "2026-11-05");
      expect(r.code, r.stderr).toBe(0);
      expect(form.requests.filter((q) => q.method === "POST")).toHaveLength(2);
      const gets = form.hits("/Search.aspx").filter((q) => q.method === "GET");
      expect(gets.map((q) => q.headers["if-none-match"] ?? null)).toEqual([null]);
    } finally {
      rmSync(dir2, { recursive: true, force: true });
    }
  }, 60_000);
});
