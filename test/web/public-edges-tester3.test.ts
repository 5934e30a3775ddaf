import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { load } from "cheerio";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parseCatalog } from "../../src/sources/catalog/load.js";
import { importCatalog } from "../../src/sources/catalog-import.js";
import { openStore, type Store } from "../../src/store/db.js";
import { siteRules } from "../../src/store/site-rules.js";
import { createApp } from "../../src/web/app.js";
import { type Browser, consoleFixture, seedNight } from "./console-support.js";
import { buildFixture, type Fixture, NOW, ORIGIN } from "./fixture.js";

/**
 * What a third outside tester found: a search of direction marks alone said back raw in its
 * 400, redirects without `Vary: Accept-Encoding`, the console's refusals saying back a NUL, an
 * escape or an override raw, `cafe café` counted as two of the 8 words, and a name's override
 * reordering a page's `<title>`.
 */

/** The direction marks, overrides and isolates docs/api.md says are never said back raw. */
const SAID_RAW =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;
/** The bidi embeddings, overrides and isolates (what can reorder the text after it). */
const BIDI = /[\u202A-\u202E\u2066-\u2069]/;

let f: Fixture;
beforeAll(async () => {
  f = await buildFixture();
});
afterAll(async () => {
  await f?.close();
});

type Served = { url: string; close(): Promise<void> };

/** The app on loopback, as `nor serve` answers it (never-block.test.ts serves it the same way). */
function serveApp(app: ReturnType<typeof createApp>): Promise<Served> {
  return new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (info) => {
      resolve({
        url: `http://127.0.0.1:${(info as AddressInfo).port}`,
        close: () =>
          new Promise((done) => {
            if ("closeAllConnections" in server) server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

describe("docs/api.md: a q of direction marks alone is said back as percent-escapes, never raw", () => {
  // Each as typed in the address, and the escape the error must say instead.
  const marks = [
    ["%E2%80%AE", "%E2%80%AE"], // U+202E right-to-left override
    ["%E2%80%8F", "%E2%80%8F"], // U+200F right-to-left mark
    ["%D8%9C", "%D8%9C"], // U+061C Arabic letter mark
    ["%E2%81%A6", "%E2%81%A6"], // U+2066 left-to-right isolate
    ["%E2%81%A9", "%E2%81%A9"], // U+2069 pop directional isolate
    ["%E2%80%8E!", "%E2%80%8E!"], // U+200E left-to-right mark and punctuation
  ] as const;

  it("in the API's 400, the search feeds' plain-text 400 and the search page", async () => {
    for (const [typed, said] of marks) {
      const api = await f.app.request(`/api/search?q=${typed}`);
      expect(api.status, typed).toBe(400);
      const { error } = (await api.json()) as { error: string };
      expect(error, typed).toContain(`"${said}" has no word to find`);
      expect(error, typed).not.toMatch(SAID_RAW);
      for (const format of ["atom", "rss", "json"]) {
        const feed = await f.app.request(`/search.${format}?q=${typed}`);
        expect(feed.status, `${format} ${typed}`).toBe(400);
        expect(feed.headers.get("content-type")).toMatch(/^text\/plain/);
        const text = await feed.text();
        expect(text, `${format} ${typed}`).toContain(`"${said}" has no word to find`);
        expect(text, `${format} ${typed}`).not.toMatch(SAID_RAW);
      }
      const res = await f.app.request(`/search?q=${typed}`);
      const $ = load(await res.text());
      const noWord = $("p.no-word").text();
      expect(noWord, typed).toContain(`"${said}" has no word to find`);
      expect(noWord, typed).not.toMatch(SAID_RAW);
      expect($("head > title").text(), typed).not.toMatch(BIDI);
    }
  });
});

describe("docs/api.md: every answer to GET or HEAD carries Vary: Accept-Encoding", () => {
  let served: Served;
  beforeAll(async () => {
    served = await serveApp(f.app);
  });
  afterAll(async () => {
    await served?.close();
  });

  it("redirects (301 from a trailing slash or /counties, 302 dropping a tag), 400s and 404s, on loopback", async () => {
    const answers: [string, number][] = [
      ["/api/new/", 301],
      ["/new.atom/", 301],
      ["/governments/", 301],
      ["/counties", 301],
      ["/new?utm_source=x", 302],
      ["/nothing-here", 404],
      ["/api/nothing-here", 404],
      ["/feeds/nothing.atom", 404],
      ["/api/new?x=1", 400],
      ["/new.atom?x=1", 400],
      ["/new?window=1y", 400],
    ];
    for (const method of ["GET", "HEAD"]) {
      for (const [path, status] of answers) {
        const res = await fetch(`${served.url}${path}`, {
          method,
          redirect: "manual",
          headers: { "accept-encoding": "gzip" },
        });
        await res.arrayBuffer();
        expect(res.status, `${method} ${path}`).toBe(status);
        expect(res.headers.get("vary"), `${method} ${path}`).toMatch(/accept-encoding/i);
      }
    }
  });

  it("a 304 still carries the same Vary as its 200", async () => {
    for (const path of ["/governments", "/favicon.svg", "/downloads/sources.csv"]) {
      const first = await fetch(`${served.url}${path}`, {
        headers: { "accept-encoding": "gzip" },
      });
      await first.arrayBuffer();
      const again = await fetch(`${served.url}${path}`, {
        headers: { "accept-encoding": "gzip", "if-none-match": first.headers.get("etag") ?? "" },
      });
      expect(again.status, path).toBe(304);
      expect(again.headers.get("vary"), path).toBe(first.headers.get("vary"));
    }
  });
});

describe("the console says back a form's NUL, escape or override as percent-escapes", () => {
  let c: Awaited<ReturnType<typeof consoleFixture>>;
  let b: Browser;
  beforeEach(async () => {
    c = await consoleFixture();
    await seedNight(c.db);
    b = c.browser();
    await b.signIn();
  });
  afterEach(async () => {
    await c?.close();
  });

  it("the site form: a site or a gap that is none is refused (400) with its value escaped, nothing recorded", async () => {
    const csrf = await b.token("/console/sites");
    const tries: [Record<string, string>, string][] = [
      [{ site: "x\u0000" }, '"x%00"'],
      [{ site: "x\u001B[31m" }, '"x%1B[31m"'],
      [{ site: "\u202Eexample.com" }, '"%E2%80%AEexample.com"'],
      [{ site: "a.gov", value: "\u202E30s" }, '"%E2%80%AE30s" is not a duration'],
      [{ site: "a.gov", kind: "leave-alone", value: "/a b\u001B" }, '"/a b%1B" does not'],
    ];
    for (const [fields, said] of tries) {
      const res = await b.post("/console/sites/rules", {
        csrf,
        kind: "gap",
        value: "30s",
        reason: "the owner asked",
        ...fields,
      });
      expect(res.status, said).toBe(400);
      const message = load(await res.text())("p.msg").text();
      expect(message, said).toContain(said);
      expect(message, said).not.toMatch(SAID_RAW);
    }
    expect(await siteRules(c.db)).toEqual([]);
  });

  it("the request log: a Site, Since or Source that is none is refused (400) with its value escaped, on the page and in the JSON", async () => {
    const tries: [string, string][] = [
      ["site=x%1Bb", '"x%1Bb"'],
      ["since=%1B", '"%1B"'],
      ["until=%00", '"%00"'],
      ["source=%E2%80%AEx", '"%E2%80%AEx"'],
    ];
    for (const [q, said] of tries) {
      const res = await b.get(`/console/log?${q}`);
      expect(res.status, q).toBe(400);
      const message = load(await res.text())("p.msg").text();
      expect(message, q).toContain(said);
      expect(message, q).not.toMatch(SAID_RAW);
      const json = await b.get(`/console/log.json?${q}`);
      expect(json.status, q).toBe(400);
      const { error } = (await json.json()) as { error: string };
      expect(error, q).toContain(said);
      expect(error, q).not.toMatch(SAID_RAW);
    }
  });
});

describe("docs/api.md: at most 8 different words, counted as the search folds them", () => {
  it("cafe and café are one word: 8 words with both is searched, 9 folded ones are refused", async () => {
    const eight = encodeURIComponent("cafe café alpha bravo charlie delta echo foxtrot golf");
    const api = await f.app.request(`/api/search?q=${eight}`);
    expect(api.status).toBe(200);
    expect((await f.app.request(`/search?q=${eight}`)).status).toBe(200);
    expect((await f.app.request(`/search.atom?q=${eight}`)).status).toBe(200);

    const nine = encodeURIComponent(
      "cafe café naïve naive alpha bravo charlie delta echo foxtrot golf",
    );
    const refused = await f.app.request(`/api/search?q=${nine}`);
    expect(refused.status).toBe(400);
    const { error } = (await refused.json()) as { error: string };
    expect(error).toContain("at most 8 different words, and this one has 9");
  });
});

describe("a name's bidi controls never reach a page's <title>", () => {
  const RLO = "\u202E";
  const YAML = `
governments:
  - { id: harmon-county, name: "Harmon County ${RLO}x", kind: county, county: Licking }
sources:
  - { id: harmon-bids, government: harmon-county, records: bids, access: feed, url: "https://harmon.example/bids.rss", name: "Bids \u2067here" }
`;
  let small: { store: Store; dir: string; app: ReturnType<typeof createApp> };
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), "nor-web-tester3-"));
    const store = await openStore({ kind: "sqlite", dir });
    const cat = parseCatalog(YAML, "test/web/tester3.yaml");
    await importCatalog(
      store.db,
      cat,
      {
        governments: new Map(cat.governments.map((g) => [g.id, "tester3.yaml"])),
        sources: new Map(cat.sources.map((s) => [s.id, "tester3.yaml"])),
      },
      NOW - 5 * 86_400_000,
    );
    small = { store, dir, app: createApp({ db: store.db, now: () => NOW, origin: ORIGIN }) };
  });
  afterAll(async () => {
    await small?.store.close();
    if (small) rmSync(small.dir, { recursive: true, force: true });
  });

  it("/governments/ID and /sources/ID: the title ends in the site's name, in order; the page keeps the name whole in a <bdi>", async () => {
    for (const [path, shown] of [
      ["/governments/harmon-county", "Harmon County x · New on Record"],
      ["/sources/harmon-bids", "Bids here · Harmon County x · New on Record"],
    ] as const) {
      const res = await small.app.request(path);
      expect(res.status, path).toBe(200);
      const $ = load(await res.text());
      const title = $("head > title").text();
      expect(title, path).not.toMatch(BIDI);
      expect(title.replace(/\s+/g, " ").trim(), path).toBe(shown);
      expect($("h1 bdi").first().text(), path).toMatch(BIDI);
    }
  });
});
