import { load } from "cheerio";
import { parseAtomFeed, parseJsonFeed, parseRssFeed } from "feedsmith";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NEW_CAP } from "../../src/store/read/new-records.js";
import { buildFixture, EVIL, type Fixture, ORIGIN } from "./fixture.js";

let f: Fixture;
beforeAll(async () => {
  f = await buildFixture();
});
afterAll(async () => {
  await f?.close();
});

async function newPage(query = "", status = 200) {
  const res = await f.app.request(`/new${query}`);
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^text\/html/);
  return load(await res.text());
}

const titles = ($: ReturnType<typeof load>) =>
  $("table.new tbody tr .record")
    .map((_i, a) => $(a).text())
    .get();

describe("New on record", () => {
  it("shows the records first seen since yesterday (the nights of Nov 4 and 5), newest first", async () => {
    const $ = await newPage();
    expect($(".window").text()).toContain("4 new records since yesterday");
    expect(titles($)).toEqual([
      "<img src=x onerror=alert(1)>",
      "Record 22",
      "Record 12",
      "Record 31",
    ]);
    // P6: a record's link is its own URL; a non-http link is shown as text only.
    expect($("a.record").first().attr("href")).toBe("https://test.example/r/22");
  });

  it("filters by county, government kind and records kind", async () => {
    expect(titles(await newPage("?county=Summit"))).toEqual(["<img src=x onerror=alert(1)>"]);
    expect(titles(await newPage("?kind=village"))).toEqual(["Record 22", "Record 12", "Record 31"]);
    expect(titles(await newPage("?records=agendas&county=Franklin"))).toEqual([
      "Record 22",
      "Record 12",
    ]);
    expect(titles(await newPage("?records=minutes"))).toEqual([]);
    expect((await newPage("?records=minutes"))("main").text()).toContain(
      "No new records since yesterday",
    );
    expect((await newPage("?kind=city"))("select[name=kind] option[selected]").attr("value")).toBe(
      "city",
    );
  });

  it("bad filters are a 400 for the page, the feeds and the API", async () => {
    const $ = await newPage("?records=treasure", 400);
    expect($(".message").text()).toContain('Unknown kind of records "treasure"');
    const feed = await f.app.request("/new.atom?county=Nowhere");
    expect(feed.status).toBe(400);
    expect(await feed.text()).toContain('Unknown county "Nowhere"');
    const api = await f.app.request("/api/new?kind=empire");
    expect(api.status).toBe(400);
    expect(((await api.json()) as { error: string }).error).toContain(
      'Unknown kind of government "empire"',
    );
  });

  it("links its feeds with rel=alternate, carrying the filter", async () => {
    const $ = await newPage("?county=Franklin&records=agendas");
    const alt = $("link[rel=alternate]")
      .map((_i, l) => `${$(l).attr("type")} ${$(l).attr("href")}`)
      .get();
    expect(alt).toEqual([
      "application/atom+xml /new.atom?county=Franklin&records=agendas",
      "application/rss+xml /new.rss?county=Franklin&records=agendas",
      "application/feed+json /new.json?county=Franklin&records=agendas",
    ]);
  });
});

describe("the feeds of New on record", () => {
  const ids = [
    "urn:new-on-record:record:test-agendas:https%3A%2F%2Ftest.example%2Fr%2F22",
    "urn:new-on-record:record:test-agendas:https%3A%2F%2Ftest.example%2Fr%2F12",
    "urn:new-on-record:record:test-bids:https%3A%2F%2Ftest.example%2Fr%2F31",
  ];

  async function feed(path: string, type: RegExp) {
    const res = await f.app.request(`http://dir.example:8080${path}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(type);
    return res.text();
  }

  it("Atom: absolute self link from the configured origin (not the Host header), stable ids, the records' own links", async () => {
    const atom = parseAtomFeed(await feed("/new.atom?kind=village", /^application\/atom\+xml/));
    expect(atom.links?.find((l) => l.rel === "self")?.href).toBe(`${ORIGIN}/new.atom?kind=village`);
    expect(atom.entries?.map((e) => e.id)).toEqual(ids);
    expect(atom.entries?.[0]?.links?.[0]?.href).toBe("https://test.example/r/22");
    expect(atom.entries?.[0]?.title?.value).toBe("Record 22");
  });

  it("RSS: the same items, guids not permalinks, atom:link self", async () => {
    const rss = parseRssFeed(await feed("/new.rss?kind=village", /^application\/rss\+xml/));
    expect(rss.atom?.links?.[0]?.href).toBe(`${ORIGIN}/new.rss?kind=village`);
    expect(rss.items?.map((i) => i.guid?.value)).toEqual(ids);
    expect(rss.items?.map((i) => i.guid?.isPermaLink)).toEqual([false, false, false]);
    expect(rss.items?.[1]?.link).toBe("https://test.example/r/12");
  });

  it("JSON Feed 1.1: the same items; a record without an http link points at its source's page", async () => {
    const text = await feed("/new.json", /^application\/feed\+json/);
    expect(JSON.parse(text).version).toBe("https://jsonfeed.org/version/1.1");
    const json = parseJsonFeed(text);
    expect(json.feed_url).toBe(`${ORIGIN}/new.json`);
    // P26: the whole state's feed opens with the notice of its one page not read (akron-minutes).
    expect(json.items?.map((i) => i.id)).toEqual([
      "urn:new-on-record:not-read:source:akron-minutes:2026-11-04T14%3A00%3A00.000Z",
      "urn:new-on-record:record:evil-notices:e1",
      ...ids,
    ]);
    expect(json.items?.[1]?.url).toBe(`${ORIGIN}/sources/evil-notices`);
    expect(json.items?.[1]?.title).toBe("<img src=x onerror=alert(1)>");
    expect(json.items?.[1]?.summary).toContain(EVIL);
  });

  it("a value holding & or < is its exact text in the XML: no whitespace around its CDATA (ids, links, titles)", async () => {
    for (const path of ["/new.atom", "/new.rss", "/new.atom?kind=village&records=agendas"]) {
      const xml = await feed(path, /xml/);
      expect(xml, path).toContain("CDATA"); // the case under test is present
      expect(xml, path).not.toMatch(/>\s+<!\[CDATA\[|\]\]>\s+<\//);
    }
  });

  it("markup in titles stays text in the XML feeds: RSS descriptions are escaped HTML of the text", async () => {
    const atom = await feed("/new.atom", /atom/);
    expect(parseAtomFeed(atom).entries?.[1]?.title?.value).toBe("<img src=x onerror=alert(1)>");
    expect(atom).toContain('<summary type="text">');
    const rss = await feed("/new.rss", /rss/);
    // A reader renders RSS descriptions as HTML: ours hold no markup, only escaped text.
    const description = parseRssFeed(rss).items?.[1]?.description ?? "";
    expect(description).not.toMatch(/[<>]/);
    expect(load(`<p>${description}</p>`)("p").text()).toContain(EVIL);
  });
});

describe("a night with more new records than the cap", () => {
  it(`lists the newest ${NEW_CAP} and says the list was cut, on the page and in the API`, async () => {
    const db = f.store.db;
    const rows = Array.from({ length: NEW_CAP + 5 }, (_v, i) => ({
      source_id: "test-bids",
      record_id: `bulk-${String(i).padStart(4, "0")}`,
      title: `Bulk ${i}`,
      date: null,
      url: null,
      kind: null,
      first_seen_night: "2026-11-05",
      first_seen_at: new Date(Date.parse("2026-11-06T07:00:00.000Z") + i * 1000).toISOString(),
    }));
    for (let i = 0; i < rows.length; i += 100)
      await db
        .insertInto("records")
        .values(rows.slice(i, i + 100))
        .execute();
    try {
      const $ = await newPage();
      expect($("table.new tbody tr").length).toBe(NEW_CAP);
      expect($(".notice").text()).toContain(`the newest ${NEW_CAP} are shown`);
      expect(titles($)[0]).toBe(`Bulk ${NEW_CAP + 4}`);
      const api = (await (await f.app.request("/api/new")).json()) as {
        capped: boolean;
        items: unknown[];
      };
      expect(api.capped).toBe(true);
      expect(api.items.length).toBe(NEW_CAP);
    } finally {
      await db.deleteFrom("records").where("record_id", "like", "bulk-%").execute();
    }
  });
});
