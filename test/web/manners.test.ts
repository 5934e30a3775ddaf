import { gunzipSync } from "node:zlib";
import { load } from "cheerio";
import { XMLValidator } from "fast-xml-parser";
import { parseAtomFeed, parseJsonFeed, parseRssFeed } from "feedsmith";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/web/app.js";
import { caching } from "../../src/web/manners.js";
import { buildFixture, type Fixture, NOW, ORIGIN } from "./fixture.js";

/**
 * Web manners at the HTTP level: security headers on every answer, ETag with 304, Cache-Control,
 * compression, favicon, robots.txt and sitemap; feeds that stay valid XML and build links from
 * the configured origin; filters honoured or refused; only http(s) URLs in the API.
 */
let f: Fixture;
beforeAll(async () => {
  f = await buildFixture();
  // A title with U+0001 (the extractor passes `&#1;` through) and one with a lone surrogate.
  await f.store.db
    .insertInto("records")
    .values([
      {
        source_id: "test-agendas",
        record_id: "ctl-1",
        title: "Budget\u0001 hearing \uD800 notice",
        date: "2026-11-05",
        url: "data:text/html,<script>alert(1)</script>",
        kind: null,
        first_seen_night: "2026-11-05",
        first_seen_at: "2026-11-06T05:00:00.000Z",
      },
    ])
    .execute();
});
afterAll(async () => {
  await f?.close();
});

const PAGES = [
  "/",
  "/governments",
  "/counties/Franklin",
  "/governments/village-of-test",
  "/sources/test-bids",
  "/new",
  "/new?window=30d",
  "/search?q=record",
  "/site-owners",
  "/downloads",
  "/console/sign-in",
  "/no-such-page",
];

/** XML 1.0 §2.2 Char: nothing outside it may appear in a document. */
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

describe("security headers", () => {
  it("every page, feed and API answer carries CSP without inline script, nosniff, Referrer-Policy and frame-ancestors 'none'", async () => {
    for (const path of [
      ...PAGES,
      "/new.atom",
      "/new.rss",
      "/api/new",
      "/api/openapi.json",
      "/robots.txt",
    ]) {
      const res = await f.app.request(path);
      const csp = res.headers.get("content-security-policy") ?? "";
      expect(csp, path).toContain("frame-ancestors 'none'");
      expect(csp, path).toContain("default-src 'none'");
      expect(csp, path).not.toContain("unsafe-inline");
      expect(csp, path).not.toContain("script-src");
      expect(res.headers.get("x-content-type-options"), path).toBe("nosniff");
      expect(res.headers.get("referrer-policy"), path).toBe("same-origin");
      expect(res.headers.get("x-frame-options"), path).toBe("DENY");
    }
  });

  it("pages hold no script and no inline style, and share one layout with a DOCTYPE (console too)", async () => {
    for (const path of PAGES) {
      const text = await (await f.app.request(path)).text();
      expect(text.startsWith("<!DOCTYPE html>"), path).toBe(true);
      const $ = load(text);
      expect($("script, style").length, path).toBe(0);
      const attrs = $("*")
        .toArray()
        .flatMap((el) => Object.keys((el as { attribs?: Record<string, string> }).attribs ?? {}));
      expect(
        attrs.filter((a) => a === "style" || /^on/i.test(a)),
        path,
      ).toEqual([]);
      expect($("link[rel=stylesheet]").attr("href"), path).toBe("/assets/site.css");
      expect($("link[rel=icon]").attr("href"), path).toBe("/favicon.svg");
    }
    const css = await f.app.request("/assets/site.css");
    expect(css.headers.get("content-type")).toMatch(/^text\/css/);
    // No page scrolls sideways at 390 px: long words wrap and wide tables scroll in their box.
    const sheet = await css.text();
    expect(sheet).toContain("overflow-wrap:anywhere");
    expect(sheet).toContain(".table-wrap{overflow-x:auto");
    for (const path of ["/governments", "/sources/test-bids", "/new"]) {
      const $ = load(await (await f.app.request(path)).text());
      const tables = $("main table");
      expect(tables.length, path).toBeGreaterThan(0);
      expect(tables.filter((_i, t) => $(t).parent().hasClass("table-wrap")).length, path).toBe(
        tables.length,
      );
    }
  });
});

describe("caching and compression", () => {
  it("ETag and Cache-Control on pages, feeds and API; a matching If-None-Match is a 304 without a body", async () => {
    for (const path of ["/", "/sources/test-bids", "/new.atom", "/api/new", "/api/openapi.json"]) {
      const first = await f.app.request(path);
      const tag = first.headers.get("etag");
      expect(tag, path).toMatch(/^W\/"/);
      expect(first.headers.get("cache-control"), path).toMatch(/^public, max-age=\d+/);
      const again = await f.app.request(path, { headers: { "if-none-match": tag ?? "" } });
      expect(again.status, path).toBe(304);
      expect(await again.text(), path).toBe("");
      const other = await f.app.request(path, { headers: { "if-none-match": 'W/"other"' } });
      expect(other.status, path).toBe(200);
    }
  });

  it("an error is never kept by a cache: a 400 or 404 is no-cache without an ETag (a tag sent back is no 304), a 405 carries neither (docs/api.md)", async () => {
    for (const [path, status] of [
      ["/api/sources/nope", 404],
      ["/api/new?window=x", 400],
      ["/no-such-page", 404],
    ] as const) {
      for (const method of ["GET", "HEAD"]) {
        const res = await f.app.request(path, { method });
        expect(res.status, `${method} ${path}`).toBe(status);
        expect(res.headers.get("cache-control"), `${method} ${path}`).toBe("no-cache");
        expect(res.headers.get("etag"), `${method} ${path}`).toBeNull();
        const again = await f.app.request(path, {
          method,
          headers: { "if-none-match": 'W/"x", *' },
        });
        expect(again.status, `${method} ${path} again`).toBe(status);
      }
    }
    const post = await f.app.request("/api/new", { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.get("cache-control")).toBeNull();
    expect(post.headers.get("etag")).toBeNull();
  });

  it("an answer no one may keep (no-store), streamed a piece at a time, is sent as it is made: not read whole first to hash an ETag", async () => {
    // The console's log download is such an answer; here a stream the test lets go of itself.
    const app = new Hono();
    for (const m of caching()) app.use("*", m);
    let release: () => void = () => {};
    const released = new Promise<void>((r) => (release = r));
    let pieces = 0;
    app.get("/stream", (c) => {
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          pieces++;
          if (pieces === 1) controller.enqueue(new TextEncoder().encode("first page;"));
          else {
            await released;
            controller.enqueue(new TextEncoder().encode("the rest"));
            controller.close();
          }
        },
      });
      return c.body(body, 200, { "cache-control": "no-store", "content-type": "text/plain" });
    });
    app.get("/kept", (c) => c.text("kept"));
    // The answer's head and first piece come while its end is still held back.
    const res = await app.request("/stream");
    expect(res.status).toBe(200);
    expect(res.headers.get("etag")).toBeNull();
    const reader = res.body?.getReader();
    const first = await reader?.read();
    expect(new TextDecoder().decode(first?.value)).toBe("first page;");
    release();
    let rest = "";
    for (let i = 0; i < 10; i++) {
      const r = await reader?.read();
      if (!r || r.done) break;
      rest += new TextDecoder().decode(r.value);
    }
    expect(rest).toBe("the rest");
    // Answers that may be kept still get their ETag and 304.
    const kept = await app.request("/kept");
    const tag = kept.headers.get("etag");
    expect(tag).toMatch(/^W\/"[0-9a-f]{40}"$/);
    const again = await app.request("/kept", { headers: { "if-none-match": tag ?? "" } });
    expect(again.status).toBe(304);
    expect(again.headers.get("cache-control")).toMatch(/^public/);
  });

  it("compresses with gzip when asked (hono/compress on Node 20's CompressionStream)", async () => {
    const plain = await (await f.app.request("/governments")).text();
    const res = await f.app.request("/governments", { headers: { "accept-encoding": "gzip" } });
    expect(res.headers.get("content-encoding")).toBe("gzip");
    expect(res.headers.get("vary")).toMatch(/accept-encoding/i);
    const body = gunzipSync(Buffer.from(await res.arrayBuffer())).toString("utf8");
    expect(body).toBe(plain);
  });
});

describe("favicon, robots.txt, sitemap", () => {
  it("serves a favicon, a robots.txt that keeps crawlers off the console and names the sitemap at the configured origin", async () => {
    const icon = await f.app.request("/favicon.ico");
    expect(icon.status).toBe(200);
    expect(icon.headers.get("content-type")).toBe("image/svg+xml");
    const robots = await (
      await f.app.request("http://evil.example/robots.txt", { headers: { host: "evil.example" } })
    ).text();
    expect(robots).toContain("Disallow: /console");
    expect(robots).toContain(`Sitemap: ${ORIGIN}/sitemap.xml`);
    expect(robots).not.toContain("evil.example");
  });

  it("the sitemap lists the directory's own pages, from the configured origin", async () => {
    const res = await f.app.request("http://evil.example/sitemap.xml");
    const xml = await res.text();
    expect(XMLValidator.validate(xml)).toBe(true);
    const locs = [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1] ?? "");
    expect(locs).toContain(`${ORIGIN}/counties/Franklin`);
    expect(locs).toContain(`${ORIGIN}/sources/test-bids`);
    expect(locs).toContain(`${ORIGIN}/governments/evil-township`);
    expect(locs.every((l) => l.startsWith(`${ORIGIN}/`))).toBe(true);
    // A retired source is not in the sitemap.
    expect(locs).not.toContain(`${ORIGIN}/sources/old-permits`);
  });
});

describe("feeds", () => {
  it("stay valid XML whatever titles hold: U+0001 and a lone surrogate are removed", async () => {
    for (const path of ["/new.atom", "/new.rss"]) {
      const xml = await (await f.app.request(path)).text();
      expect(NOT_XML.test(xml), path).toBe(false);
      expect(XMLValidator.validate(xml), path).toBe(true);
      expect(xml, path).toMatch(/Budget hearing [^<]{0,4}notice/);
    }
    // The first record's (after the notice of akron-minutes, not read: P26).
    const title = parseAtomFeed(await (await f.app.request("/new.atom")).text()).entries?.find(
      (e) => !e.id?.startsWith("urn:new-on-record:not-read:"),
    )?.title?.value;
    expect(title).toMatch(/^Budget hearing [^<]{0,4}notice$/);
    expect(title).not.toContain("\u0001");
  });

  it("build every link from the configured --origin, never from the Host header", async () => {
    for (const fmt of ["atom", "rss", "json"]) {
      const text = await (
        await f.app.request(`http://attacker.example/new.${fmt}?source=evil-notices`, {
          headers: { host: "attacker.example" },
        })
      ).text();
      expect(text, fmt).not.toContain("attacker.example");
      expect(text, fmt).toContain(`${ORIGIN}/new.${fmt}?source=evil-notices`);
      // The record with a javascript: link points at its source's page on our origin.
      expect(text, fmt).toContain(`${ORIGIN}/sources/evil-notices`);
    }
  });

  it("?source= is honoured, an unknown source or parameter is refused (400), never ignored", async () => {
    const json = parseJsonFeed(
      await (await f.app.request("/new.json?source=test-bids&window=7d")).text(),
    );
    expect(json.items?.map((i) => i.title)).toEqual(["Record 31", "Record 30"]);
    const rss = parseRssFeed(
      await (await f.app.request("/new.rss?government=city-of-akron&window=30d")).text(),
    );
    // City of Akron's one record page is not read (P26): its feed's first item says so, not a record.
    expect(rss.items?.map((i) => i.title)).toEqual([
      "Not read: minutes of City of Akron",
      "Record 40",
    ]);
    const unknown = await f.app.request("/new.atom?source=nope");
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toContain('no record page with the id "nope"');
    const typo = await f.app.request("/new.atom?sauce=test-bids");
    expect(typo.status).toBe(400);
    expect(await typo.text()).toContain('"sauce"');
    expect((await f.app.request("/api/new?sorce=x")).status).toBe(400);
  });
});

describe("the API", () => {
  it("answers only http(s) URLs: never javascript: or data:, anywhere in any answer", async () => {
    const paths = [
      "/api/governments",
      "/api/governments/evil-township",
      "/api/governments/village-of-test",
      "/api/counties",
      "/api/counties/Summit",
      "/api/sources/evil-notices",
      "/api/sources/test-agendas",
      "/api/new?window=30d",
      "/api/search?q=budget",
      "/api/search?q=img",
    ];
    let urls = 0;
    const walk = (v: unknown, path: string): void => {
      if (typeof v === "string") {
        expect(v, path).not.toMatch(/^\s*(javascript|data|vbscript):/i);
        return;
      }
      if (Array.isArray(v)) {
        for (const [i, x] of v.entries()) walk(x, `${path}[${i}]`);
      } else if (v && typeof v === "object")
        for (const [k, x] of Object.entries(v)) {
          if (/url|website/i.test(k) && x !== null) {
            urls++;
            expect(String(x), `${path}.${k}`).toMatch(/^https?:\/\//);
          }
          walk(x, `${path}.${k}`);
        }
    };
    for (const p of paths) {
      const res = await f.app.request(p);
      expect(res.status, p).toBe(200);
      walk(await res.json(), p);
    }
    expect(urls).toBeGreaterThan(10);
    const evil = (await (await f.app.request("/api/sources/evil-notices")).json()) as {
      newestRecords: { url: string | null }[];
    };
    expect(evil.newestRecords[0]?.url).toBeNull();
  });
});

describe("without a store or a console", () => {
  it("the console is off (503, says how to turn it on) when no operator password is set", async () => {
    const app = createApp({ db: f.store.db, now: () => NOW, console: false });
    for (const [method, path] of [
      ["GET", "/console"],
      ["GET", "/console/sign-in"],
      ["POST", "/console/sign-in"],
    ] as const) {
      const res = await app.request(path, { method });
      expect(res.status, path).toBe(503);
      const text = await res.text();
      expect(text, path).toContain("nor operator set-password");
      // The README's server is `npm start` (nor start): the page names it, not nor serve alone.
      expect(text, path).toContain("<code>nor start</code>");
    }
  });
});
