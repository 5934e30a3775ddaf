import { writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { runMain } from "../cli/cli-capture.js";
import { nightOn, outcomesOn, testerWorld } from "./tester-nights.js";

/**
 * What an outside tester found by watching the sites (session 23), each proved from what a
 * loopback site saw of a real `nor night` and from the store:
 * - a recheck of a page marked not read (P25) that meets a no closed the site before the
 *   site's other page, read every night, was asked (P21): rechecks now come last in a lane;
 * - a search form sent to `javascript:` was posted to the form page's own address (P5);
 * - the backfill followed a list's "next" link to another site (P6, P7);
 * - a 304 to a request that sent no validators was taken for "unchanged" (P12).
 */
const world = testerWorld("nor-tester23-");
const night = nightOn;
const outcomes = outcomesOn;

function flags(data: string): string[] {
  const db = new Database(join(data, "nor.db"), { readonly: true });
  try {
    return (
      db.prepare("select source_id, kind from flags").all() as { source_id: string; kind: string }[]
    ).map((r) => `${r.source_id}:${r.kind}`);
  } finally {
    db.close();
  }
}

const feed = (title: string) =>
  `<?xml version="1.0"?><rss version="2.0"><channel><title>t</title><item><title>${title}</title><link>https://example.org/${encodeURIComponent(title)}</link><guid>${title}</guid></item></channel></rss>`;

describe("found from outside, session 23", () => {
  it("P25, P21: a recheck that meets a no comes after the site's page that is read: that page is asked and read, and carries no flag", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    site.route("/blocked.xml", (_q, res) => void res.writeHead(403).end("no"));
    site.route(
      "/ok.xml",
      (_q, res) =>
        void res.writeHead(200, { "content-type": "application/rss+xml" }).end(feed("Agenda")),
    );
    const data = join(world.dir, "recheck");
    const catalog = join(world.dir, "recheck.yaml");
    writeFileSync(
      catalog,
      [
        "governments:",
        "  - { id: city-of-test, name: City of Test, kind: city, county: Franklin }",
        "sources:",
        // `a-blocked` sorts first by id: only the new order puts it last in the lane.
        `  - { id: a-blocked, government: city-of-test, records: agendas, access: feed, url: "${site.url("/blocked.xml")}" }`,
        `  - { id: b-ok, government: city-of-test, records: agendas, access: feed, url: "${site.url("/ok.xml")}" }`,
        "",
      ].join("\n"),
    );
    await night(catalog, data, "2026-11-24");
    const marked = await runMain([
      ...["mark", "a-blocked", "--data", data, "--not-read"],
      ...["--reason", "403 every night", "--night", "2026-11-24"],
    ]);
    expect(marked.code).toBe(0);
    for (const date of ["2026-11-25", "2026-11-26", "2026-11-27"]) {
      const before = site.requests.length;
      await night(catalog, data, date);
      const paths = site.requests.slice(before).map((r) => r.path);
      // The page read every night first, then the recheck (robots.txt is cached for the day).
      expect(
        paths.filter((p) => p !== "/robots.txt"),
        date,
      ).toEqual(["/ok.xml", "/blocked.xml"]);
      const o = outcomes(data, date);
      expect(o["b-ok"]?.outcome, date).toBe("ok");
      expect(o["a-blocked"]?.outcome, date).toBe("recheck-still-no");
    }
    expect(flags(data).filter((f) => f.startsWith("b-ok:"))).toEqual([]);
  }, 60_000);

  it("P5: a form sent to javascript: is never submitted: the site sees the form page asked for, no POST, and the source says why", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    site.route(
      "/search",
      (_q, res) =>
        void res
          .writeHead(200, { "content-type": "text/html; charset=utf-8" })
          .end(
            `<!DOCTYPE html><html><body><form method="post" action="javascript:void(0)"><input type="hidden" name="__VIEWSTATE" value="abc"><input name="from" value=""><input type="submit" name="go" value="Search"></form></body></html>`,
          ),
    );
    const data = join(world.dir, "form");
    const catalog = join(world.dir, "form.yaml");
    writeFileSync(
      catalog,
      [
        "governments:",
        "  - { id: city-of-test, name: City of Test, kind: city, county: Franklin }",
        "sources:",
        "  - id: js-form",
        "    government: city-of-test",
        "    records: permits",
        "    access: form",
        `    url: ${site.url("/search")}`,
        "    form:",
        '      fields: { from: "{today-30d}" }',
        "      submit: go",
        "    extract: { items: 'tr.row', title: td }",
        "",
      ].join("\n"),
    );
    await night(catalog, data, "2026-11-05");
    expect(site.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "GET /robots.txt",
      "GET /search",
    ]);
    const o = outcomes(data, "2026-11-05")["js-form"];
    expect(o?.outcome).toBe("extract-error");
    expect(o?.reason).toMatch(/javascript:void\(0\).*no web address.*nothing was submitted/);
  }, 60_000);

  it("P6, P7: the backfill never follows a list's next link to another site; the link to an older page on the list's own site is followed", async () => {
    const list = await world.fleet.server();
    const other = await world.fleet.server();
    for (const s of [list, other])
      s.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    const page = (items: string[], next?: string) =>
      `<!DOCTYPE html><html><body><ul>${items.map((t) => `<li class="doc"><a href="/d/${t}.pdf">${t}</a></li>`).join("")}</ul>${next ? `<a rel="next" href="${next}">Older</a>` : ""}</body></html>`;
    const html = (body: string) => (_q: unknown, res: import("node:http").ServerResponse) =>
      void res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(body);
    list.route("/list", html(page(["Bid 3"], "/list?page=2")));
    list.route("/list?page=2", html(page(["Bid 2"], other.url("/older"))));
    other.route("/older", html(page(["Bid 1"])));
    const data = join(world.dir, "backfill");
    const catalog = join(world.dir, "backfill.yaml");
    writeFileSync(
      catalog,
      [
        "governments:",
        "  - { id: city-of-test, name: City of Test, kind: city, county: Franklin }",
        "sources:",
        "  - id: bids",
        "    government: city-of-test",
        "    records: bids",
        `    url: ${list.url("/list")}`,
        "    extract: { items: 'li.doc', title: a, link: a, next: 'a[rel=next]' }",
        "    backfill: { pagesPerNight: 3 }",
        "",
      ].join("\n"),
    );
    await night(catalog, data, "2026-11-05");
    expect(list.requests.map((r) => r.path)).toEqual(["/robots.txt", "/list", "/list?page=2"]);
    expect(other.requests).toEqual([]);
    expect(outcomes(data, "2026-11-05")["bids"]?.outcome).toBe("ok");
    await night(catalog, data, "2026-11-06");
    expect(other.requests).toEqual([]);
  }, 60_000);

  it("P12: a 304 to a request that sent no validators is no 'unchanged': the source says what the site did, and nothing more is asked", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    site.route("/feed.xml", (_q, res) => void res.writeHead(304).end());
    const data = join(world.dir, "unasked-304");
    const catalog = join(world.dir, "unasked-304.yaml");
    writeFileSync(
      catalog,
      [
        "governments:",
        "  - { id: city-of-test, name: City of Test, kind: city, county: Franklin }",
        "sources:",
        `  - { id: f, government: city-of-test, records: agendas, access: feed, url: "${site.url("/feed.xml")}" }`,
        "",
      ].join("\n"),
    );
    await night(catalog, data, "2026-11-05");
    const feedAsked = site.hits("/feed.xml");
    expect(feedAsked).toHaveLength(1);
    expect(feedAsked[0]?.headers["if-none-match"]).toBeUndefined();
    expect(feedAsked[0]?.headers["if-modified-since"]).toBeUndefined();
    const o = outcomes(data, "2026-11-05")["f"];
    expect(o?.outcome).toBe("error");
    expect(o?.reason).toMatch(/304 Not Modified to a request that sent no validators/);
  }, 60_000);
});
