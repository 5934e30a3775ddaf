import { afterEach, describe, expect, it } from "vitest";
import type { SeenRequest } from "../fleet/fleet.js";
import { type Harness, harness } from "../fleet/harness.js";
import { html, redirect, robots } from "../fleet/routes.js";

let h: Harness;
afterEach(async () => h?.close());

const carried = (r: SeenRequest): string => `${r.path} ${r.body}`;

async function site() {
  h = await harness();
  const a = await h.fleet.server();
  a.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
  a.route("/ok", html("ok"));
  a.route("/search", html("results"));
  return { a, f: h.fetcher() };
}

/**
 * P3 held in the one way out (src/net's URL check), whatever built the request: the checker
 * never sends a credential parameter with a value, in a URL's query or a form's body, nor a
 * body it cannot read for one. Refused before admission: no row in the log, nothing sent.
 */
describe("P3: the fetch pipeline never sends a credential, whoever built the request", () => {
  it.each([
    ["?api_key=SECRETKEY123", '"api_key"'],
    ["?from=1&access_token=SECRETKEY123", '"access_token"'],
    ["?Password=SECRETKEY123", '"Password"'],
    ["?apiKey=SECRETKEY123", '"apiKey"'],
    ["?%61pi_key=SECRETKEY123", '"api_key"'],
    [
      "?from=1;api_key=SECRETKEY123 (a ';' that Perl's CGI.pm and older Python read as '&')",
      '"api_key"',
    ],
    ["?api+key=SECRETKEY123 (PHP reads it as api_key)", '"api key"'],
  ])("P3: a URL whose query carries %s is never sent, nor logged", async (query, named) => {
    const { a, f } = await site();
    const out = await f.fetch({ url: a.url(`/search${query.split(" ")[0]}`), purpose: "backfill" });
    expect(out.kind).toBe("error");
    if (out.kind === "error") {
      expect(out.reason).toContain(named);
      expect(out.reason).toContain("P3");
      expect(out.reason).not.toContain("SECRETKEY123");
    }
    expect(a.requests).toEqual([]);
    expect(h.ports.log.entries).toEqual([]);
  });

  it("P3: a path's matrix parameter carrying a credential (/feed;api_key=…, read by Java servers) is never sent, nor logged", async () => {
    const { a, f } = await site();
    const out = await f.fetch({ url: a.url("/search;api_key=SECRETKEY123"), purpose: "page" });
    expect(out.kind).toBe("error");
    if (out.kind === "error") {
      expect(out.reason).toContain('"api_key"');
      expect(out.reason).not.toContain("SECRETKEY123");
    }
    expect(a.requests).toEqual([]);
    expect(h.ports.log.entries).toEqual([]);
  });

  it("P3: a session id in a path (;jsessionid=…) or a ';' in a plain value is no credential and is asked", async () => {
    const { a, f } = await site();
    a.route("/ok;jsessionid=ABC123", html("ok"));
    a.route("/search", html("results"));
    expect((await f.fetch({ url: a.url("/ok;jsessionid=ABC123"), purpose: "page" })).kind).toBe(
      "ok",
    );
    expect((await f.fetch({ url: a.url("/search?q=a;b&key="), purpose: "page" })).kind).toBe("ok");
  });

  it("P3: an empty credential parameter sends no secret and is asked", async () => {
    const { a, f } = await site();
    expect((await f.fetch({ url: a.url("/search?token="), purpose: "page" })).kind).toBe("ok");
    expect(a.requests.map((r) => r.path)).toEqual(["/robots.txt", "/search?token="]);
  });

  it.each([
    ["a form body's api_key", "from=1&api_key=SECRETKEY123", "application/x-www-form-urlencoded"],
    ["a form body's pw", "__VIEWSTATE=abc&pw=SECRETKEY123", "application/x-www-form-urlencoded"],
    ["a JSON body's token", '{"q":{"token":"SECRETKEY123"}}', "application/json; charset=utf-8"],
    ["a body it cannot read for credentials", "SECRETKEY123", "text/plain"],
    ["a JSON body that does not parse", "{SECRETKEY123", "application/json"],
    ["a JSON body's api_key in a list", '{"api_key":["SECRETKEY123"]}', "application/json"],
    [
      "a JSON body's password in nested lists",
      '{"q":[{"password":[["SECRETKEY123"]]}]}',
      "application/json",
    ],
    [
      "a form body's 'api key' (PHP reads it as api_key)",
      "from=1&api+key=SECRETKEY123",
      "application/x-www-form-urlencoded",
    ],
  ])("P3: a POST carrying %s is never sent, nor logged", async (_what, body, contentType) => {
    const { a, f } = await site();
    const out = await f.fetch({
      url: a.url("/search"),
      method: "POST",
      body,
      contentType,
      purpose: "form",
    });
    expect(out.kind).toBe("error");
    if (out.kind === "error") {
      expect(out.reason).toContain("P3");
      expect(out.reason).not.toContain("SECRETKEY123");
    }
    expect(a.requests).toEqual([]);
    expect(h.ports.log.entries).toEqual([]);
  });

  it("P3: a public form's POST (no credential in it) is sent as it is", async () => {
    const { a, f } = await site();
    const body = "__VIEWSTATE=abc&from=11%2F01%2F2026&key=";
    const out = await f.fetch({
      url: a.url("/search"),
      method: "POST",
      body,
      contentType: "application/x-www-form-urlencoded",
      purpose: "form",
    });
    expect(out.kind).toBe("ok");
    expect(a.hits("/search")).toMatchObject([{ method: "POST", body }]);
  });

  it.each([
    ["_token", "Laravel's @csrf field"],
    ["token", "a bare anti-forgery field"],
  ])(
    "P3, P5: a public form's POST carrying its anti-forgery %j (%s) is sent: such a token is handed to every visitor, no credential",
    async (name) => {
      const { a, f } = await site();
      const body = `${name}=FENYskFICZBh4lhf5Dtg0vBpUDAvlIV3Fr17PjmD&q=minutes`;
      const out = await f.fetch({
        url: a.url("/search"),
        method: "POST",
        body,
        contentType: "application/x-www-form-urlencoded",
        purpose: "form",
      });
      expect(out.kind).toBe("ok");
      expect(a.hits("/search")).toMatchObject([{ method: "POST", body }]);
    },
  );

  it("P3: a redirect to a URL carrying a credential is not followed: the redirect is logged, the hop never sent nor logged", async () => {
    const { a, f } = await site();
    a.route("/moved", redirect("/ok?access_token=SECRETKEY123"));
    const out = await f.fetch({ url: a.url("/moved"), purpose: "recheck" });
    expect(out).toMatchObject({ kind: "error", status: 302 });
    if (out.kind === "error") {
      expect(out.reason).toMatch(
        /^redirect to URL carries the credential query parameter "access_token"/,
      );
      expect(out.reason).not.toContain("SECRETKEY123");
    }
    expect(a.requests.map(carried).join(" ")).not.toContain("SECRETKEY123");
    expect(h.ports.log.entries.map((e) => [e.url, e.outcome])).toEqual([
      [a.url("/robots.txt"), "rules"],
      [a.url("/moved"), "redirect"],
    ]);
  });

  it("P3, P20: a robots.txt redirect to a URL carrying a credential is not followed: robots.txt unavailable, the page not asked", async () => {
    h = await harness();
    const a = await h.fleet.server();
    a.route("/robots.txt", redirect("/rules.txt?sig=SECRETKEY123"));
    a.route("/rules.txt", robots("User-agent: *\nAllow: /\n"));
    a.route("/ok", html("ok"));
    const out = await h.fetcher().fetch({ url: a.url("/ok"), purpose: "page" });
    expect(out.kind).toBe("robots-unavailable");
    expect(a.requests.map((r) => r.path)).toEqual(["/robots.txt"]);
  });
});
