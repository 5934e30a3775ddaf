import { afterEach, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/errors.js";
import { SourceCookieJar } from "../../src/net/cookie-jar.js";
import type { CookieJarPort } from "../../src/net/types.js";
import { DEFAULT_USER_AGENT } from "../../src/policy/constants.js";
import { type Harness, harness } from "../fleet/harness.js";
import { html, redirect, reset, robots, sequence, status } from "../fleet/routes.js";

let h: Harness;
afterEach(async () => h?.close());

/** A plain host-keyed jar, enough to watch what the fetcher hands it (the real one is SourceCookieJar). */
class TestJar implements CookieJarPort {
  readonly stored: { url: string; cookies: string[] }[] = [];
  readonly byHost = new Map<string, string>();
  cookieHeader(url: string) {
    return this.byHost.get(new URL(url).host);
  }
  store(url: string, setCookies: string[]) {
    this.stored.push({ url, cookies: setCookies });
    this.byHost.set(new URL(url).host, setCookies.map((c) => c.split(";")[0]).join("; "));
  }
}

describe("identity (P1, P3)", () => {
  it("P1, P3: every request carries exactly our User-Agent and nothing that identifies otherwise", async () => {
    h = await harness();
    const s = await h.fleet.server();
    s.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
    s.route("/start", redirect("/list"));
    s.route("/list", sequence(status(503, { "retry-after": "1" }), html("ok")));
    expect((await h.fetcher().fetch({ url: s.url("/start"), purpose: "page" })).kind).toBe("ok");
    expect(s.requests.map((r) => r.path)).toEqual(["/robots.txt", "/start", "/list", "/list"]);
    for (const r of s.requests) {
      expect(r.headers["user-agent"]).toBe(DEFAULT_USER_AGENT);
      expect(r.headerNames.filter((n) => n.toLowerCase() === "user-agent")).toHaveLength(1);
      expect(r.headerNames.map((n) => n.toLowerCase()).sort()).toEqual(
        ["accept", "accept-encoding", "connection", "host", "user-agent"].sort(),
      );
    }
  });

  it("P1: a configured User-Agent keeps the product token; a browser's or another product's name is refused", async () => {
    h = await harness();
    const s = await h.fleet.server();
    s.route("/robots.txt", robots(""));
    s.route("/list", html("ok"));
    const ua = "public-records-check/0.1 (+mailto:ops@example.org)";
    await h.fetcher({ userAgent: ua }).fetch({ url: s.url("/list"), purpose: "page" });
    expect(s.requests.map((r) => r.headers["user-agent"])).toEqual([ua, ua]);
    for (const bad of [
      "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/120 Safari/537.36",
      "public-records-check/0.1 Mozilla/5.0",
      "Googlebot/2.1",
      "records-bot/1.0",
      "public-records-check/0.1\r\nCookie: a=b",
    ]) {
      expect(() => h.fetcher({ userAgent: bad })).toThrow(ConfigError);
    }
  });

  it("P1: only public-records-check/<version> (+contact) is accepted: another product or comment after ours is refused and nothing is sent", async () => {
    h = await harness();
    const s = await h.fleet.server();
    s.route("/robots.txt", robots(""));
    s.route("/list", html("ok"));
    const ours = "public-records-check/0.1 (+mailto:a@b.org)";
    for (const bad of [
      `${ours} AhrefsBot/7.0`,
      `${ours} Applebot/0.1`,
      `${ours} Chrome`,
      `${ours} Safari`,
      `${ours} (compatible)`,
      "public-records-check/0.1 (+mailto:a@b.org; Bytespider)",
      "Bytespider",
    ]) {
      expect(() => h.fetcher({ userAgent: bad })).toThrow(
        /must be exactly public-records-check\/<version> \(\+mailto:<address>\)/,
      );
    }
    expect(s.requests).toEqual([]);
    const https = "public-records-check/0.1 (+https://records.example.org/checker)";
    await h.fetcher({ userAgent: https }).fetch({ url: s.url("/list"), purpose: "page" });
    expect(s.requests.map((r) => r.headers["user-agent"])).toEqual([https, https]);
  });

  it("P3: a URL with user-info is refused and never sent", async () => {
    h = await harness();
    const s = await h.fleet.server();
    const out = await h
      .fetcher()
      .fetch({ url: `http://me:secret@${s.host}:${s.port}/list`, purpose: "page" });
    expect(out.kind).toBe("error");
    expect(s.requests).toHaveLength(0);
  });
});

describe("conditional requests (P12)", () => {
  it("P12: a stored ETag and Last-Modified are sent back; a 304 is not-modified and costs nothing more", async () => {
    h = await harness();
    const s = await h.fleet.server();
    s.route("/robots.txt", robots(""));
    const lastModified = "Wed, 04 Nov 2026 10:00:00 GMT";
    s.route("/feed", (req, res) => {
      if (req.headers["if-none-match"] === '"v7"') res.writeHead(304, { etag: '"v7"' }).end();
      else res.writeHead(200, { etag: '"v7"', "last-modified": lastModified }).end("<rss/>");
    });
    const first = await h
      .fetcher({ night: "2026-11-05" })
      .fetch({ url: s.url("/feed"), purpose: "page" });
    expect(first.kind).toBe("ok");
    // The next night (tonight's answer is never asked again, P8): the copy's validators go back.
    const second = await h.fetcher({ night: "2026-11-06" }).fetch({
      url: s.url("/feed"),
      purpose: "page",
      validators: { etag: '"v7"', lastModified },
    });
    expect(second).toMatchObject({ kind: "not-modified", status: 304 });
    const hits = s.hits("/feed");
    expect(hits).toHaveLength(2);
    expect(hits[0]?.headers["if-none-match"]).toBeUndefined();
    expect(hits[1]?.headers["if-none-match"]).toBe('"v7"');
    expect(hits[1]?.headers["if-modified-since"]).toBe(lastModified);
    const logged = h.ports.log.entries.filter((e) => e.url === s.url("/feed"));
    expect(logged[0]?.validatorsReceived).toEqual({ etag: '"v7"', lastModified });
    expect(logged[1]).toMatchObject({
      outcome: "not-modified",
      validatorsSent: { etag: '"v7"', lastModified },
    });
  });
});

describe("cookies (P22)", () => {
  it("P22: a cookie goes back only to its own site, only within the source's jar", async () => {
    h = await harness();
    const a = await h.fleet.server();
    const b = await h.fleet.server();
    for (const s of [a, b]) s.route("/robots.txt", robots(""));
    a.route("/set", html("set", 200, { "set-cookie": "sess=abc; Path=/" }));
    a.route("/again", html("again"));
    a.route("/to-b", redirect(b.url("/land")));
    b.route("/land", html("b", 200, { "set-cookie": "b=1" }));
    const jar = new TestJar();
    const f = h.fetcher();
    await f.fetch({ url: a.url("/set"), purpose: "page", cookieJar: jar });
    await f.fetch({ url: a.url("/again"), purpose: "page", cookieJar: jar });
    await f.fetch({ url: a.url("/to-b"), purpose: "page", cookieJar: jar });
    // Another source's check (another URL: the same one would be answered from tonight's
    // stored copy, P8) carries none of the first source's cookies.
    await f.fetch({ url: a.url("/again?other"), purpose: "page", cookieJar: new TestJar() });
    expect(
      a.requests.filter((r) => r.path.startsWith("/again")).map((r) => r.headers.cookie),
    ).toEqual(["sess=abc", undefined]);
    expect(a.hits("/to-b")[0]?.headers.cookie).toBe("sess=abc");
    expect(b.requests.every((r) => r.headers.cookie === undefined)).toBe(true);
    // b's Set-Cookie is not kept: b is another site than the source's.
    expect(jar.stored.map((s) => s.url)).toEqual([a.url("/set")]);
    expect(a.hits("/robots.txt")[0]?.headers.cookie).toBeUndefined();
  });
});

describe("a retry is the same visitor (P22)", () => {
  it("P22: after a 503 and a connection reset, each try comes from the same address with the same identity", async () => {
    h = await harness();
    const s = await h.fleet.server();
    s.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
    s.route("/list", sequence(status(503), reset, html("<li>back</li>")));
    expect((await h.fetcher().fetch({ url: s.url("/list"), purpose: "page" })).kind).toBe("ok");
    const tries = s.hits("/list");
    expect(tries).toHaveLength(3);
    // Never another address: every try (and robots.txt) from the address of the first.
    const from = new Set(s.requests.map((r) => r.from));
    expect(from.size).toBe(1);
    expect([...from][0]).toMatch(/^(::ffff:)?127\./);
    // Never another user agent or identity: the same headers, in the same order, each time.
    for (const t of tries) {
      expect(t.headers["user-agent"]).toBe(DEFAULT_USER_AGENT);
      expect(t.headerNames).toEqual(tries[0]?.headerNames);
      expect(t.headers["cookie"]).toBeUndefined();
    }
  });
});

describe("cookies with the real per-source jar (P22)", () => {
  it("P22: SourceCookieJar through the fetcher: back to the same site only, never across sources", async () => {
    h = await harness();
    const a = await h.fleet.server();
    const b = await h.fleet.server();
    for (const s of [a, b]) s.route("/robots.txt", robots(""));
    a.route(
      "/login-free-search",
      html("results", 200, { "set-cookie": "ASP.NET_SessionId=xyz; Path=/" }),
    );
    a.route("/page2", html("page 2"));
    a.route("/to-b", redirect(b.url("/land")));
    b.route("/land", html("b"));
    const jar = new SourceCookieJar(h.clock);
    const f = h.fetcher();
    await f.fetch({ url: a.url("/login-free-search"), purpose: "form", cookieJar: jar });
    await f.fetch({ url: a.url("/page2"), purpose: "form", cookieJar: jar });
    await f.fetch({ url: a.url("/to-b"), purpose: "page", cookieJar: jar });
    await f.fetch({
      url: a.url("/page2?other"),
      purpose: "page",
      cookieJar: new SourceCookieJar(h.clock),
    });
    expect(
      a.requests.filter((r) => r.path.startsWith("/page2")).map((r) => r.headers.cookie),
    ).toEqual(["ASP.NET_SessionId=xyz", undefined]);
    expect(b.requests.every((r) => r.headers.cookie === undefined)).toBe(true);
  });
});

describe("the private copy (P8, P25)", () => {
  it("P8: bodies read are archived (page, robots.txt, error page); P25: a recheck keeps no body", async () => {
    h = await harness();
    const s = await h.fleet.server();
    s.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
    s.route("/list", html("<li>bid</li>"));
    s.route("/missing", html("no such page", 404));
    const f = h.fetcher({ archive: h.ports.archive });
    await f.fetch({ url: s.url("/list"), purpose: "page", source: "s1" });
    await f.fetch({ url: s.url("/missing"), purpose: "page", source: "s1" });
    const recheck = await f.fetch({ url: s.url("/list"), purpose: "recheck", keepBody: false });
    expect(recheck).toMatchObject({ kind: "ok", body: new Uint8Array(0) });
    // The answer read earlier tonight is the recheck's answer too: not asked again (P8).
    expect(s.hits("/list")).toHaveLength(1);
    const kept = h.ports.archive.exchanges.map((e) => [
      e.purpose,
      new URL(e.response.url).pathname,
      e.response.status,
    ]);
    expect(kept).toEqual([
      ["robots", "/robots.txt", 200],
      ["page", "/list", 200],
      ["page", "/missing", 404],
    ]);
    expect(new TextDecoder().decode(h.ports.archive.exchanges[1]?.response.body)).toBe(
      "<li>bid</li>",
    );
    expect(h.ports.archive.exchanges[1]?.request.headers["user-agent"]).toBe(DEFAULT_USER_AGENT);
  });
});
