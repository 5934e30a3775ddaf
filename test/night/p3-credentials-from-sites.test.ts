import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import type { SeenRequest } from "../fleet/fleet.js";
import { nightOn, noRobots, outcomesOn, testerCatalog, testerWorld } from "./tester-nights.js";

/**
 * An outside tester's finding (P3): the catalog refused sources that ask for credentials, but
 * the requests the checker builds from what sites send did not hold to it. A form page whose
 * form had a password input was submitted with the password it held; a GET form's hidden
 * api_key went out in the query; a redirect to a URL with an access_token was followed; a
 * list's next link with a password in its query was asked as an older page. Each is proved
 * from the server's side: it never sees the credential, and the night says why.
 */
const world = testerWorld("nor-p3-sites-");

/** Every byte a request carried that could hold a credential: its path and query, its body. */
const carried = (r: SeenRequest): string => `${r.method} ${r.path} ${r.body}`;

/** The requests for a path, whatever their query. */
const asked = (site: { requests: SeenRequest[] }, path: string): string[] =>
  site.requests.filter((r) => r.path.split("?")[0] === path).map((r) => r.path);

function requestLog(data: string): { url: string; outcome: string; failure: string | null }[] {
  const db = new Database(join(data, "nor.db"), { readonly: true });
  try {
    return db.prepare("select url, outcome, failure from request_log").all() as {
      url: string;
      outcome: string;
      failure: string | null;
    }[];
  } finally {
    db.close();
  }
}

const html = (body: string) => (_q: unknown, res: import("node:http").ServerResponse) =>
  void res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(body);

describe("P3: credentials a site sends are never sent back (outside tester)", () => {
  it("P3: a form with a password input is a sign-in form: never submitted, no password sent, and the source's outcome says why", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    site.route(
      "/search",
      html(`<html><body><form method="post" action="/search">
<input type="hidden" name="__VIEWSTATE" value="abc" />
<input type="text" name="from" value="" />
<input type="password" name="pw" value="hunter2" />
<input type="submit" name="go" value="Search" /></form></body></html>`),
    );
    const catalog = testerCatalog(world.dir, "password-form", [
      "  - id: signin",
      "    government: city-of-test",
      "    records: permits",
      "    access: form",
      `    url: ${site.url("/search")}`,
      "    form:",
      `      fields: { from: "{today-30d}" }`,
      "    extract: { items: 'tr.row', title: 'td a', link: 'td a', date: 'td:nth-child(2)' }",
    ]);
    const data = join(world.dir, "password-form");
    await nightOn(catalog, data, "2026-11-20");
    expect(site.requests.filter((r) => r.method === "POST")).toEqual([]);
    for (const r of site.requests) expect(carried(r)).not.toContain("hunter2");
    const o = outcomesOn(data, "2026-11-20")["signin"];
    expect(o?.outcome).toBe("error");
    expect(o?.reason).toContain("password");
    expect(o?.reason).toContain('"pw"');
    expect(o?.reason).toContain("P3");
    expect(o?.reason).not.toContain("hunter2");
    for (const row of requestLog(data)) expect(JSON.stringify(row)).not.toContain("hunter2");
  }, 120_000);

  it("P5, P3: a whole-page ASP.NET form whose header holds an empty login box, with a Laravel-style _token, is searched as a browser searches it: the password box sent empty, the search button alone, no one signed in", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    site.route(
      "/Search.aspx",
      html(`<html><body><form method="post" action="./Search.aspx" id="aspnetForm">
<input type="hidden" name="__VIEWSTATE" value="vs" />
<input type="hidden" name="_token" value="FENYskFICZBh4lhf5Dtg0vBpUDAvlIV3Fr17PjmD" />
<div class="header"><input type="text" name="ctl00$Login1$UserName" value="" />
<input type="password" name="ctl00$Login1$Password" />
<input type="submit" name="ctl00$Login1$LoginButton" value="Log In" /></div>
<input type="text" name="ctl00$Main$txtFrom" value="" />
<input type="submit" name="ctl00$Main$btnSearch" value="Search" />
<table><tr class="row"><td><a href="/doc/1">Permit 1</a></td><td>11/19/2026</td></tr></table>
</form></body></html>`),
    );
    const catalog = testerCatalog(world.dir, "login-box", [
      "  - id: loginbox",
      "    government: city-of-test",
      "    records: permits",
      "    access: form",
      `    url: ${site.url("/Search.aspx")}`,
      "    form:",
      `      fields: { "ctl00$Main$txtFrom": "{today-30d}" }`,
      `      submit: "ctl00$Main$btnSearch"`,
      "    extract: { items: 'tr.row', title: 'td a', link: 'td a', date: 'td:nth-child(2)' }",
    ]);
    const data = join(world.dir, "login-box");
    await nightOn(catalog, data, "2026-11-20");
    const posts = site.requests.filter((r) => r.method === "POST");
    expect(posts).toHaveLength(1);
    const sent = new URLSearchParams(posts[0]!.body);
    expect(sent.get("ctl00$Login1$Password")).toBe("");
    expect(sent.get("ctl00$Login1$UserName")).toBe("");
    expect(sent.get("_token")).toBe("FENYskFICZBh4lhf5Dtg0vBpUDAvlIV3Fr17PjmD");
    expect(sent.get("ctl00$Main$btnSearch")).toBe("Search");
    expect(sent.has("ctl00$Login1$LoginButton")).toBe(false);
    expect(outcomesOn(data, "2026-11-20")["loginbox"]?.outcome).not.toBe("error");
  }, 120_000);

  it("P3: a GET form's hidden api_key is never sent: the search is not asked, and the outcome names the field, never its value", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    site.route(
      "/find",
      html(`<html><body><form method="get" action="/results">
<input type=hidden name=api_key value=SECRETKEY123>
<input type="text" name="from" value="" /></form></body></html>`),
    );
    site.route("/results", html("<ul></ul>"));
    const catalog = testerCatalog(world.dir, "key-form", [
      "  - id: keyed",
      "    government: city-of-test",
      "    records: permits",
      "    access: form",
      `    url: ${site.url("/find")}`,
      "    form:",
      `      fields: { from: "{today-30d}" }`,
      "    extract: { items: li, title: a, link: a, date: span }",
    ]);
    const data = join(world.dir, "key-form");
    await nightOn(catalog, data, "2026-11-20");
    expect(asked(site, "/results")).toEqual([]);
    for (const r of site.requests) expect(carried(r)).not.toContain("SECRETKEY123");
    const o = outcomesOn(data, "2026-11-20")["keyed"];
    expect(o?.outcome).toBe("error");
    expect(o?.reason).toContain('"api_key"');
    expect(o?.reason).toContain("P3");
    expect(o?.reason).not.toContain("SECRETKEY123");
    for (const row of requestLog(data)) expect(JSON.stringify(row)).not.toContain("SECRETKEY123");
  }, 120_000);

  it("P3: a redirect to a URL carrying an access_token is not followed; the redirect is logged, the hop never sent nor counted, and the outcome says why", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    site.route(
      "/feed",
      (_q, res) => void res.writeHead(302, { location: "/feed.xml?access_token=abc123" }).end(),
    );
    site.route("/feed.xml", html("<rss></rss>"));
    const catalog = testerCatalog(world.dir, "token-redirect", [
      `  - { id: moved, government: city-of-test, records: agendas, access: feed, url: "${site.url("/feed")}" }`,
    ]);
    const data = join(world.dir, "token-redirect");
    await nightOn(catalog, data, "2026-11-20");
    expect(asked(site, "/feed.xml")).toEqual([]);
    for (const r of site.requests) expect(carried(r)).not.toContain("abc123");
    const o = outcomesOn(data, "2026-11-20")["moved"];
    expect(o?.outcome).toBe("error");
    expect(o?.reason).toContain('"access_token"');
    expect(o?.reason).toContain("P3");
    expect(o?.reason).not.toContain("abc123");
    const log = requestLog(data);
    expect(log.map((r) => r.url)).toEqual([site.url("/robots.txt"), site.url("/feed")]);
  }, 120_000);

  it("P3: a list's next link carrying a password is never asked as an older page", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    site.route(
      "/list",
      html(
        `<ul><li><a href="/d/1.pdf">One</a> <span>11/01/2026</span></li></ul><a class="next" href="/listpage?password=hunter2">Next</a>`,
      ),
    );
    site.route("/listpage", html("<ul></ul>"));
    const catalog = testerCatalog(world.dir, "password-next", [
      `  - { id: list, government: city-of-test, records: agendas, url: "${site.url("/list")}", extract: { items: li, title: a, link: a, date: span, next: a.next } }`,
    ]);
    const data = join(world.dir, "password-next");
    await nightOn(catalog, data, "2026-11-20");
    expect(asked(site, "/listpage")).toEqual([]);
    for (const r of site.requests) expect(carried(r)).not.toContain("hunter2");
    expect(outcomesOn(data, "2026-11-20")["list"]?.outcome).toBe("ok");
    for (const row of requestLog(data)) expect(row.url).not.toContain("hunter2");
  }, 120_000);

  it("P3, P20: a robots.txt that redirects to a URL carrying a token is not followed: the origin's robots.txt is unavailable, its page not asked", async () => {
    const site = await world.fleet.server();
    site.route(
      "/robots.txt",
      (_q, res) => void res.writeHead(302, { location: "/rules.txt?token=abc123" }).end(),
    );
    site.route("/rules.txt", (_q, res) => void res.writeHead(200).end("User-agent: *\nAllow: /\n"));
    site.route("/page", html("<ul></ul>"));
    const catalog = testerCatalog(world.dir, "token-robots", [
      `  - { id: guarded, government: city-of-test, records: agendas, url: "${site.url("/page")}", extract: { items: li, title: a, link: a, date: span } }`,
    ]);
    const data = join(world.dir, "token-robots");
    await nightOn(catalog, data, "2026-11-20");
    expect(site.requests.map((r) => r.path)).toEqual(["/robots.txt"]);
    const o = outcomesOn(data, "2026-11-20")["guarded"];
    expect(o?.outcome).toBe("robots-unavailable");
    expect(o?.reason).toContain('"token"');
    expect(o?.reason).not.toContain("abc123");
  }, 120_000);
});
