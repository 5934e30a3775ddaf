import { type CheerioAPI, load } from "cheerio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildFixture, type Fixture, ORIGIN } from "./fixture.js";

/**
 * A query parameter a public address does not read is a 400 that names it, never silently
 * ignored; so is one of its own given twice (they all hold one value). One check for every
 * public route (src/web/public/filters.ts `reads`): pages, feeds, calendar, downloads, the API.
 * The directory's own links and forms only ever send what their target reads.
 */
let f: Fixture;
beforeAll(async () => {
  f = await buildFixture();
  // A search with two pages of results, so the pages' own "Next" and "Previous" links are crawled.
  await f.store.db
    .insertInto("records")
    .values(
      Array.from({ length: 25 }, (_v, i) => ({
        source_id: "test-agendas",
        record_id: `zoning-${i}`,
        title: `Zoning appeal ${i}`,
        date: "2026-11-05",
        url: null,
        kind: null,
        first_seen_night: "2026-11-05",
        first_seen_at: new Date(Date.parse("2026-11-06T04:10:00.000Z") + i).toISOString(),
      })),
    )
    .execute();
});
afterAll(async () => {
  await f?.close();
});

/** Static files answer whatever their query says (a stylesheet's cache-buster); the rest do not. */
const STATIC = new Set(["/assets/site.css", "/favicon.svg", "/favicon.ico", "/robots.txt"]);

/** Each public GET route, as an address with its path parameters filled in from the fixture. */
function publicPaths(): string[] {
  const paths = new Set<string>();
  for (const r of f.app.routes) {
    if (r.method !== "GET" || r.path.includes("*")) continue;
    if (r.path === "/console" || r.path.startsWith("/console/") || STATIC.has(r.path)) continue;
    paths.add(
      r.path
        .replace(/\/counties\/:county$/, "/counties/Franklin")
        .replace(/\/governments\/:id$/, "/governments/village-of-test")
        .replace(/\/sources\/:id$/, "/sources/test-agendas"),
    );
  }
  return [...paths].sort();
}

const speaks = (path: string) =>
  path.startsWith("/api/")
    ? /^application\/json/
    : /\.(atom|rss|json|ics|csv|xml)$/.test(path)
      ? /^text\/plain/
      : /^text\/html/;

describe("a query parameter a route does not read, or one given twice: a 400 naming it (a page: a redirect without it)", () => {
  it("every public route, page, feed, calendar, download and API alike, refuses ?x=1 in its own format", async () => {
    const paths = publicPaths();
    for (const must of [
      "/",
      "/sources/test-agendas",
      "/governments/village-of-test",
      "/counties/Franklin",
      "/api/sources/test-agendas",
      "/api/governments/village-of-test",
      "/api/counties/Franklin",
      "/api/counties",
      "/api/openapi.json",
      "/downloads/governments.csv",
      "/downloads/records.json",
      "/new.atom",
      "/search.json",
      "/meetings.ics",
      "/sitemap.xml",
      "/site-owners",
    ]) {
      expect(paths).toContain(must);
    }
    for (const p of paths) {
      const res = await f.app.request(`${p}?x=1`);
      if (speaks(p).test("text/html")) {
        // A page, for people: sent to itself without the parameter it does not read.
        expect(res.status, p).toBe(302);
        expect(res.headers.get("location"), p).toBe(p);
        continue;
      }
      expect(res.status, p).toBe(400);
      expect(res.headers.get("content-type"), p).toMatch(speaks(p));
      const body = await res.text();
      expect(body, p).toMatch(/Unknown query parameter (&quot;|\\?"|&#34;)x/);
    }
  });

  it("a page reached by a shared link with a tracking tag opens: the tag is dropped by a redirect, what the page reads kept", async () => {
    for (const [from, to] of [
      ["/?fbclid=IwAR0abc", "/"],
      ["/new?window=7d&utm_source=newsletter&county=Franklin", "/new?window=7d&county=Franklin"],
      ["/sources/test-agendas?utm_medium=social", "/sources/test-agendas"],
      ["/search?q=record&gclid=1", "/search?q=record"],
      ["//evil.example/?x=1", "/evil.example/"],
    ] as const) {
      const res = await f.app.request(from);
      if (from.startsWith("//")) {
        // Never sent to another site: at most to a path of this one.
        expect(res.headers.get("location") ?? "/", from).toMatch(/^\/(?!\/)/);
        continue;
      }
      expect(res.status, from).toBe(302);
      expect(res.headers.get("location"), from).toBe(to);
      expect((await f.app.request(to)).status, to).toBe(200);
    }
  });

  it("a parameter given twice is refused by name, whichever value came first", async () => {
    const cases: [string, string][] = [
      ["/new?county=Franklin&county=Summit", "county"],
      ["/new?window=7d&window=30d", "window"],
      ["/api/new?window=7d&window=30d", "window"],
      ["/api/new?county=Franklin&county=Franklin", "county"],
      ["/new.rss?night=2026-11-04&night=2026-11-05", "night"],
      ["/governments?kind=city&kind=village", "kind"],
      ["/api/governments?kind=city&kind=village", "kind"],
      ["/search?q=record&q=zoning", "q"],
      ["/api/search?q=record&page=1&page=2", "page"],
      ["/search.atom?q=record&records=bids&records=minutes", "records"],
      ["/meetings.ics?source=test-agendas&source=test-bids", "source"],
      ["/downloads/records.csv?government=village-of-test&government=city-of-akron", "government"],
      // An empty one and a value: still two.
      ["/new?county=&county=Franklin", "county"],
    ];
    for (const [path, name] of cases) {
      const res = await f.app.request(path);
      expect(res.status, path).toBe(400);
      const body = await res.text();
      expect(body, path).toMatch(
        new RegExp(`(&quot;|\\\\?"|&#34;)${name}(&quot;|\\\\?"|&#34;) is given more than once`),
      );
    }
  });

  it("the reviewer's addresses: each unread parameter is a 400 (a page: a redirect)", async () => {
    for (const p of [
      "/api/counties?x=1",
      "/api/sources/test-agendas?x=1",
      "/api/governments/village-of-test?x=1",
      "/api/counties/Franklin?x=1",
      "/api/openapi.json?x=1",
      "/downloads/governments.csv?foo=1",
    ]) {
      expect((await f.app.request(p)).status, p).toBe(400);
    }
    // A page for people is sent to itself without it (a shared link's tag must not break it).
    expect((await f.app.request("/sources/test-agendas?x=1")).status).toBe(302);
    // Unknown ids are still 404 without a stray parameter.
    expect((await f.app.request("/api/sources/nope")).status).toBe(404);
  });

  it("a search feed has no pages: page= is a 400, as docs/api.md says; the search page and /api/search still page", async () => {
    for (const fmt of ["atom", "rss", "json"]) {
      for (const page of ["1", "2", "51"]) {
        const res = await f.app.request(`/search.${fmt}?q=zoning&page=${page}`);
        expect(res.status, `${fmt} ${page}`).toBe(400);
        expect(await res.text()).toContain('"page"');
      }
      expect((await f.app.request(`/search.${fmt}?q=zoning`)).status).toBe(200);
    }
    const two = (await (await f.app.request("/api/search?q=zoning&page=2")).json()) as {
      page: number;
      records: unknown[];
    };
    expect(two.page).toBe(2);
    expect(two.records).toHaveLength(5);
    expect((await f.app.request("/search?q=zoning&page=2")).status).toBe(200);
    const doc = (await (await f.app.request("/api/openapi.json")).json()) as {
      paths: Record<string, { get: { parameters: { name: string }[] } }>;
    };
    expect(doc.paths["/api/search"]?.get.parameters.map((p) => p.name)).toContain("page");
  });
});

/** The addresses a page links to or its GET forms send with their values as shown. */
function linksOf($: CheerioAPI): string[] {
  const out: string[] = [];
  const own = (href: string | undefined) => {
    if (!href) return;
    const h = href.startsWith(ORIGIN) ? href.slice(ORIGIN.length) : href;
    if (!h.startsWith("/") || h.startsWith("//")) return;
    out.push(h.split("#")[0] ?? h);
  };
  $("a[href], link[href]").each((_i, el) => own($(el).attr("href")));
  $("form").each((_i, form) => {
    if (($(form).attr("method") ?? "get").toLowerCase() !== "get") return;
    const p = new URLSearchParams();
    $(form)
      .find("input[name], select[name]")
      .each((_j, el) => {
        const name = $(el).attr("name") ?? "";
        if (el.tagName === "select") {
          const selected = $(el).find("option[selected]");
          p.append(
            name,
            (selected.length ? selected : $(el).find("option").first()).attr("value") ?? "",
          );
        } else if (!["checkbox", "radio", "submit"].includes($(el).attr("type") ?? "")) {
          p.append(name, $(el).attr("value") ?? "");
        }
      });
    const q = p.toString();
    own(`${$(form).attr("action") ?? ""}${q ? `?${q}` : ""}`);
  });
  return out;
}

describe("the pages' own links and forms are all accepted", () => {
  it("a crawl of the directory from its front page: no link or form the pages emit gets a 400", async () => {
    const seen = new Map<string, number>();
    const queue = ["/", "/search?q=zoning", "/search?q=zoning&page=2", "/new?window=30d"];
    while (queue.length > 0 && seen.size < 2_000) {
      const path = queue.shift() ?? "";
      if (seen.has(path) || path.startsWith("/console")) continue;
      const res = await f.app.request(path);
      seen.set(path, res.status);
      if (!(res.headers.get("content-type") ?? "").startsWith("text/html")) {
        await res.arrayBuffer();
        continue;
      }
      for (const next of linksOf(load(await res.text()))) if (!seen.has(next)) queue.push(next);
    }
    const refused = [...seen].filter(([, status]) => status === 400);
    expect(refused).toEqual([]);
    const notOk = [...seen].filter(([, status]) => status !== 200);
    expect(notOk).toEqual([]);
    // The crawl reached the links and forms that carry parameters, of every kind of route.
    const withQuery = [...seen.keys()].filter((p) => p.includes("?"));
    for (const shape of [
      /^\/new\?.*window=7d/,
      /^\/new\?.*night=/,
      /^\/new\?.*county=/,
      /^\/new\?.*records=/,
      /^\/new\.atom\?/,
      /^\/api\/new\?/,
      /^\/governments\?.*kind=/,
      /^\/search\?q=.*&page=2/,
      /^\/search\.json\?q=/,
      /^\/api\/search\?q=/,
      /^\/meetings\.ics\?county=/,
      /^\/meetings\.ics\?government=/,
    ]) {
      expect(
        withQuery.some((p) => shape.test(p)),
        String(shape),
      ).toBe(true);
    }
    expect(seen.size).toBeGreaterThan(50);
  });
});
