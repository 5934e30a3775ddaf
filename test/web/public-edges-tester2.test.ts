import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { load } from "cheerio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCatalog } from "../../src/sources/catalog/load.js";
import { importCatalog } from "../../src/sources/catalog-import.js";
import { openStore, type Store } from "../../src/store/db.js";
import { SqlNightStore } from "../../src/store/night-store.js";
import { createApp } from "../../src/web/app.js";
import { buildFixture, type Fixture, NOW, ORIGIN } from "./fixture.js";

/**
 * What an outside tester found at the edges of the public site: a 304 that lost its Vary, a
 * robots.txt that ignored an unknown parameter, a NUL written into a 404 page, bidi overrides
 * that reordered the words around a title, wording ("1 counties", an unreadable `q`, an emoji
 * search), and addresses written with a trailing slash.
 */

/** A directory of one county whose names and titles carry bidi overrides and isolates. */
const RLO = "\u202E";
const BIDI = /[\u202A-\u202E\u2066-\u2069]/;
const COUNTY = `Lick${RLO}ing`;
const SMALL = `
governments:
  - { id: village-of-bidi, name: "Village of ${RLO}Bidi", kind: village, county: "${COUNTY}" }
sources:
  - { id: bidi-bids, government: village-of-bidi, records: bids, access: feed, url: "https://bidi.example/bids.rss", name: "Bids \u2067here" }
`;

let f: Fixture;
let small: { store: Store; dir: string; app: ReturnType<typeof createApp> };

beforeAll(async () => {
  f = await buildFixture();
  const dir = mkdtempSync(join(tmpdir(), "nor-web-tester2-"));
  const store = await openStore({ kind: "sqlite", dir });
  // The catalog names only Ohio's counties (src/sources/catalog/counties.ts): the county with
  // the override is put in the store as an earlier import may have left it, past the check.
  const parsed = parseCatalog(SMALL.replace(COUNTY, "Licking"), "test/web/tester2.yaml");
  const cat = {
    ...parsed,
    governments: parsed.governments.map((g) => ({ ...g, county: COUNTY })),
  };
  await importCatalog(
    store.db,
    cat,
    {
      governments: new Map(cat.governments.map((g) => [g.id, "tester2.yaml"])),
      sources: new Map(cat.sources.map((s) => [s.id, "tester2.yaml"])),
    },
    NOW - 5 * 86_400_000,
  );
  const night = new SqlNightStore(store.db);
  const n = "2026-11-05";
  const startedAt = Date.parse(`${n}T06:00:00.000Z`);
  const at = startedAt + 22 * 3_600_000;
  await night.openNight(n, startedAt, startedAt + 6 * 3_600_000);
  await night.syncSources(
    cat.sources.map((s) => ({
      id: s.id,
      government: s.government,
      url: s.url,
      site: new URL(s.url).origin,
    })),
    startedAt,
  );
  await night.commit(n, {
    sourceId: "bidi-bids",
    outcome: { kind: "ok", url: "https://bidi.example/bids.rss" },
    records: [
      {
        id: "https://bidi.example/r/1",
        title: `Road salt ${RLO}bid`,
        date: "2026-11-05",
        url: "https://bidi.example/r/1",
      },
      { id: "r2", title: `Snow ${RLO}plow bid`, date: "2026-11-05" },
    ],
    validators: [],
    flags: [],
    startedAt: at,
    endedAt: at + 1000,
  });
  await night.finishNight(n, at + 60_000);
  // As if the page had been read on a night before (its record new on record: fixture.ts).
  await store.db.updateTable("records").set({ already_listed: 0 }).execute();
  small = { store, dir, app: createApp({ db: store.db, now: () => NOW, origin: ORIGIN }) };
});
afterAll(async () => {
  await f?.close();
  await small?.store.close();
  if (small) rmSync(small.dir, { recursive: true, force: true });
});

describe("a 304 carries the Vary its 200 would (RFC 9110 §15.4.5)", () => {
  const paths = [
    "/",
    "/new",
    "/api/new",
    "/new.atom",
    "/new.rss",
    "/new.json",
    "/meetings.ics",
    "/sitemap.xml",
    "/robots.txt",
    "/assets/site.css",
    "/favicon.svg",
    "/api/openapi.json",
    "/downloads/governments.csv",
    "/downloads/records.json",
  ];
  it("pages, feeds, the API, the files and the downloads (whose 304 the route makes itself)", async () => {
    for (const path of paths) {
      for (const enc of [{ "accept-encoding": "gzip" }, {}]) {
        const first = await f.app.request(path, { headers: enc });
        expect(first.status, path).toBe(200);
        const vary = first.headers.get("vary");
        expect(vary, path).toMatch(/accept-encoding/i);
        const tag = first.headers.get("etag") ?? "";
        const again = await f.app.request(path, {
          headers: { ...enc, "if-none-match": tag },
        });
        expect(again.status, path).toBe(304);
        expect(again.headers.get("vary"), path).toBe(vary);
      }
    }
  });
});

describe("query parameters of the small files", () => {
  it("robots.txt refuses one it does not read, in plain text, as the sitemap does", async () => {
    for (const path of ["/robots.txt?x=1", "/sitemap.xml?x=1"]) {
      const res = await f.app.request(path);
      expect(res.status, path).toBe(400);
      expect(res.headers.get("content-type"), path).toMatch(/^text\/plain/);
      expect(await res.text(), path).toContain('"x"');
    }
    expect((await f.app.request("/robots.txt")).status).toBe(200);
  });

  it("the style sheet and the icons ignore their query (a cache-buster)", async () => {
    for (const path of ["/assets/site.css?v=2", "/favicon.svg?x=1", "/favicon.ico?x=1"]) {
      expect((await f.app.request(path)).status, path).toBe(200);
    }
  });
});

describe("request input said back has no raw control characters", () => {
  const CONTROL =
    /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;
  const cases: [string, number, string][] = [
    ["/sources/%00", 404, "%00"],
    ["/governments/a%7Fb", 404, "a%7Fb"],
    ["/counties/%C2%85", 404, "%C2%85"],
    ["/api/sources/%00", 404, "%00"],
    ["/api/governments/%1B%5B31m", 404, "%1B[31m"],
    ["/api/counties/%00", 404, "%00"],
    ["/nothing/%00", 404, "%00"],
    ["/nothing%00.atom", 404, "%00"],
    ["/api/nothing%00", 404, "%00"],
    ["/new?county=%00", 400, "%00"],
    ["/api/new?kind=%01", 400, "%01"],
    ["/new.atom?records=%C2%9B", 400, "%C2%9B"],
    ["/api/new?night=%00", 400, "%00"],
    ["/api/new?window=%07", 400, "%07"],
    ["/api/search?q=x&page=%00", 400, "%00"],
    ["/api/new?%00=1", 400, "%00"],
    ["/api/new?government=%00", 400, "%00"],
    // Marks that reorder the text around them (a right-to-left override, an isolate).
    ["/api/new?county=%E2%80%AE", 400, "%E2%80%AE"],
    ["/new?county=a%E2%81%A6b", 400, "a%E2%81%A6b"],
    ["/api/sources/x%E2%80%8Fy", 404, "x%E2%80%8Fy"],
  ];
  it("an id, a path, a value or a name is shown with its controls escaped, in pages, text and JSON", async () => {
    for (const [path, status, shown] of cases) {
      const res = await f.app.request(path);
      expect(res.status, path).toBe(status);
      const body = await res.text();
      const text = path.startsWith("/api/") ? (JSON.parse(body) as { error: string }).error : body;
      expect(CONTROL.test(text), `${path}: ${JSON.stringify(text)}`).toBe(false);
      expect(text, path).toContain(shown);
    }
  });

  it("the search page shows no control character of q", async () => {
    const res = await f.app.request("/search?q=zoning%00%1B");
    expect(res.status).toBe(200);
    expect(CONTROL.test(await res.text())).toBe(false);
  });
});

describe("site-supplied text cannot reorder the words around it", () => {
  const pages = [
    "/",
    "/governments",
    "/governments?county=Lick%E2%80%AEing",
    `/counties/${encodeURIComponent(COUNTY)}`,
    "/governments/village-of-bidi",
    "/sources/bidi-bids",
    "/new",
    "/new?source=bidi-bids",
    "/search?q=salt",
    "/search?q=bidi",
    // Filtered: the filter's words say the names too.
    "/search?q=salt&government=village-of-bidi",
    "/search?q=salt&county=Lick%E2%80%AEing",
    "/search?q=zzz&source=bidi-bids",
    "/new?government=village-of-bidi",
  ];
  it("every text with a bidi override or isolate is inside a <bdi> (the <title> and a select's options aside)", async () => {
    for (const path of pages) {
      const res = await small.app.request(path);
      expect(res.status, path).toBe(200);
      const $ = load(await res.text());
      let seen = 0;
      $("body *")
        .contents()
        .each((_i, node) => {
          if (node.type !== "text" || !BIDI.test(node.data)) return;
          // A select's option is a line of its own, with nothing around it to reorder.
          if ($(node).closest("option").length > 0) return;
          seen++;
          expect($(node).closest("bdi").length, `${path}: ${JSON.stringify(node.data)}`).toBe(1);
        });
      expect(seen, path).toBeGreaterThan(0);
    }
  });
});

/**
 * Whether a plain text keeps its bidi marks to itself, paragraph by paragraph (UAX #9 P1: a
 * paragraph's end closes every isolate): each mark inside an isolate (U+2066–U+2068 … U+2069)
 * that is closed before the paragraph ends, and no PDI without an isolate to close.
 */
function contained(text: string): string | undefined {
  for (const paragraph of text.split(/[\n\r\u001C-\u001E\u0085\u2029]/)) {
    let depth = 0;
    for (const ch of paragraph) {
      if (/[\u2066-\u2068]/.test(ch)) depth++;
      else if (ch === "\u2069") {
        if (depth === 0) return "a PDI with no isolate open";
        depth--;
      } else if (/[\u061C\u200E\u200F\u202A-\u202E]/.test(ch) && depth === 0)
        return `U+${ch.codePointAt(0)?.toString(16)} outside an isolate`;
    }
    if (depth !== 0) return `${depth} isolate(s) left open`;
  }
  return undefined;
}

describe("feeds: site-supplied text cannot reorder the words around it either", () => {
  it("a catalog name or record title with an override or a lone isolate sits in a closed isolate (FSI … PDI) in feed titles, descriptions and items", async () => {
    const feeds = [
      "/new.json?source=bidi-bids",
      "/new.json?government=village-of-bidi",
      "/new.json?county=Lick%E2%80%AEing",
      "/new.json",
      "/search.json?q=salt&government=village-of-bidi",
      "/search.json?q=bid&source=bidi-bids",
      // The search's own words, with an override, and with a paragraph's end before one.
      "/search.json?q=salt%E2%80%AE",
      "/search.json?q=salt%E2%80%A9%E2%80%AEbid",
    ];
    let seen = 0;
    for (const path of feeds) {
      const res = await small.app.request(path);
      expect(res.status, path).toBe(200);
      const feed = (await res.json()) as {
        title: string;
        description: string;
        items: { title: string; content_text: string }[];
      };
      const texts = [
        feed.title,
        feed.description,
        ...feed.items.flatMap((i) => [i.title, i.content_text]),
      ];
      expect(feed.items.length, path).toBeGreaterThan(0);
      for (const t of texts) {
        if (BIDI.test(t)) seen++;
        expect(contained(t), `${path}: ${JSON.stringify(t)}`).toBeUndefined();
      }
    }
    expect(seen).toBeGreaterThan(5);
    // Atom and RSS say the same texts.
    for (const path of [
      "/new.atom?source=bidi-bids",
      "/new.rss?source=bidi-bids",
      "/search.atom?q=salt%E2%80%AE",
      "/search.rss?q=salt%E2%80%AE",
    ]) {
      const $ = load(await (await small.app.request(path)).text(), { xml: true });
      const texts = $("title, subtitle, summary, description, content")
        .map((_i, el) => $(el).text())
        .get();
      expect(
        texts.some((t) => BIDI.test(t)),
        path,
      ).toBe(true);
      for (const t of texts) expect(contained(t), `${path}: ${JSON.stringify(t)}`).toBeUndefined();
    }
  });

  it("the isolate's own marks are balanced first: one left open is closed, a stray PDI dropped; text without marks is as it was", async () => {
    const { isolated } = await import("../../src/web/public/format.js");
    expect(isolated("Village of Akron")).toBe("Village of Akron");
    expect(isolated("Bids \u2067here")).toBe("\u2068Bids \u2067here\u2069\u2069");
    expect(isolated("a\u2069b\u202Ec")).toBe("\u2068ab\u202Ec\u2069");
    // A paragraph's end inside would close ours: the text is one line.
    expect(isolated("salt\u2029\u202Ebid\nx")).toBe("\u2068salt \u202Ebid x\u2069");
    for (const t of [
      "Bids \u2067here",
      "a\u2069b\u202Ec",
      "\u2066x\u2069\u2069\u2067",
      "\u200Fy",
      "a\r\n\u202Eb",
    ])
      expect(contained(isolated(t)), JSON.stringify(t)).toBeUndefined();
  });
});

describe("the calendar and a page's title keep the marks to their names too", () => {
  it("a filtered calendar's name and each event's description isolate the names; a page's <title> has none of the marks", async () => {
    const body = await (await small.app.request("/meetings.ics?government=village-of-bidi")).text();
    const lines = body.split(/\r\n(?! )/).map((l) => l.replace(/\r\n /g, ""));
    const texts = lines.filter((l) => /^(X-WR-CALNAME|DESCRIPTION|X-WR-CALDESC|SUMMARY):/.test(l));
    expect(texts.some((t) => BIDI.test(t))).toBe(true);
    for (const t of texts)
      if (!t.startsWith("SUMMARY:")) expect(contained(t), JSON.stringify(t)).toBeUndefined();
    for (const m of ["%E2%80%8F", "%E2%80%8E", "%D8%9C", "%E2%80%AE"]) {
      const $ = load(await (await small.app.request(`/search?q=salt${m}`)).text());
      expect($("title").text(), m).not.toMatch(/[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/);
    }
  });

  it("a record page's name and its government's are isolated apart: an isolate left open in one never takes ' of ' with it", async () => {
    const feed = (await (await small.app.request("/new.json?source=bidi-bids")).json()) as {
      title: string;
    };
    let depth = 0;
    let atOf = -1;
    for (let i = 0; i < feed.title.length; i++) {
      const ch = feed.title[i] as string;
      if (/[\u2066-\u2068]/.test(ch)) depth++;
      else if (ch === "\u2069") depth--;
      if (feed.title.startsWith(" of ", i) && atOf === -1) atOf = depth;
    }
    expect(atOf, JSON.stringify(feed.title)).toBe(0);
  });
});

describe("wording", () => {
  it("a county that is none of Ohio's is refused the same way whatever the directory lists", async () => {
    // Any of Ohio's 88 counties is read since 55b2600, so the refusal no longer counts the
    // directory's counties (it once said "knows 1 county" / "knows 2 counties").
    for (const app of [small.app, f.app]) {
      const res = await app.request("/api/new?county=Nowhere");
      expect(res.status).toBe(400);
      const { error } = (await res.json()) as { error: string };
      expect(error).toContain(`Unknown county "Nowhere": not one of Ohio's 88 counties`);
    }
  });

  it("a q that is not percent-encoded UTF-8 is said to be unreadable, never searched as its escapes", async () => {
    for (const path of [
      "/api/search?q=%FF",
      "/search?q=%FF",
      "/search.atom?q=%FF",
      "/api/new?county=%E2%82",
    ]) {
      const res = await f.app.request(path);
      expect(res.status, path).toBe(400);
      expect(await res.text(), path).toMatch(/could not be read[\s\S]*not percent-encoded UTF-8/);
    }
    // A tracking tag a page does not read is still only dropped, however it is written.
    const page = await f.app.request("/governments?utm_source=%FF");
    expect(page.status).toBe(302);
    expect(page.headers.get("location")).toBe("/governments");
  });

  it("a search of only emoji says why it has no word to find", async () => {
    const q = encodeURIComponent("🏛️📜");
    const api = await f.app.request(`/api/search?q=${q}`);
    expect(api.status).toBe(400);
    expect(((await api.json()) as { error: string }).error).toMatch(/emoji[\s\S]*not indexed/);
    const feed = await f.app.request(`/search.rss?q=${q}`);
    expect(feed.status).toBe(400);
    expect(await feed.text()).toMatch(/emoji[\s\S]*not indexed/);
    const page = load(await (await f.app.request(`/search?q=${q}`)).text());
    expect(page(".no-word").text()).toMatch(/emoji[\s\S]*not indexed/);
    // An empty q is still asked for a word.
    const empty = await f.app.request("/api/search?q=");
    expect(((await empty.json()) as { error: string }).error).toBe("q= needs a word to find.");
  });
});

describe("addresses with a trailing slash", () => {
  it("a known address is sent to itself without the slash (301), its query kept, for GET and HEAD", async () => {
    const cases: [string, string][] = [
      ["/governments/", "/governments"],
      ["/site-owners/", "/site-owners"],
      ["/new/", "/new"],
      ["/new/?window=7d", "/new?window=7d"],
      ["/downloads/", "/downloads"],
      ["/governments/village-of-test/", "/governments/village-of-test"],
      ["/new.atom/", "/new.atom"],
      ["/new.atom/?window=30d", "/new.atom?window=30d"],
      ["/api/new/", "/api/new"],
      ["/counties/Franklin//", "/counties/Franklin"],
    ];
    for (const [from, to] of cases) {
      for (const method of ["GET", "HEAD"]) {
        const res = await f.app.request(from, { method });
        expect(res.status, `${method} ${from}`).toBe(301);
        expect(res.headers.get("location"), `${method} ${from}`).toBe(to);
      }
    }
  });

  it("other methods are not redirected; an unknown file's address is a plain-text 404", async () => {
    const post = await f.app.request("/governments/", { method: "POST" });
    expect(post.status).not.toBe(301);
    const res = await f.app.request("/nothing.atom/");
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    const page = await f.app.request("/nothing/");
    expect(page.status).toBe(404);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
  });

  it("/counties sends to the list of counties on the front page", async () => {
    const res = await f.app.request("/counties");
    expect(res.status).toBe(301);
    expect(res.headers.get("location")).toBe("/#counties");
    const $ = load(await (await f.app.request("/")).text());
    expect($("#counties").text()).toBe("Counties");
    expect(
      $("#counties").nextAll("ul.counties").first().find("a[href='/counties/Franklin']").length,
    ).toBe(1);
    expect((await f.app.request("/counties/")).headers.get("location")).toBe("/counties");
  });
});
