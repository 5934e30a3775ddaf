import { load } from "cheerio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { wayReader } from "../../src/night/way-reader.js";
import { shownText } from "../../src/policy/shown-text.js";
import { extractWay } from "../../src/sources/extract/index.js";
import { makeRecord as presetRecord } from "../../src/sources/platforms/support/records.js";
import { makeRecord } from "../../src/sources/record-id.js";
import { buildFixture, type Fixture } from "./fixture.js";

/**
 * A title a site wrote with control characters or noncharacters in it (a stray byte of an old
 * database, a pasted form feed) is shown without them: on the source's page, in "new", in
 * search, in the JSON API and the downloads, as the feeds already drop them. The page stays
 * valid HTML, and the words are the same everywhere.
 */
const RAW = "Control \u0001\b chars \uFFFE here \uD800 and \u0085 next line \u{10FFFF}";
const SHOWN = "Control chars here and next line";
const STORED = "Control \u0001\b chars \uFFFE here and \u0085 next line \u{10FFFF}";

describe("a crawled title as shown", () => {
  it("loses C0 and C1 controls (but tab, newline, return), noncharacters and lone surrogates, and the spaces close up", () => {
    expect(shownText(RAW)).toBe(SHOWN);
    expect(shownText("Bids\tdue\nMonday\r")).toBe("Bids\tdue\nMonday\r");
    // Right-to-left marks, emoji, accents and no-break spaces are text.
    const text = "Avis \u200Fעברית\u200F é 😀 \u00A0 5";
    expect(shownText(text)).toBe(text);
  });

  it("is stored as shown by a night, while the record keeps the id earlier nights gave it", () => {
    const r = makeRecord({ title: RAW, date: "2026-11-05" });
    expect(r.title).toBe(SHOWN);
    expect(r.id).not.toBe(makeRecord({ title: SHOWN, date: "2026-11-05" }).id);
    // The platform presets' records too.
    const p = presetRecord({ title: RAW, date: "2026-11-05" }, "minutes");
    expect(p.title).toBe(SHOWN);
    expect(p.id).toBe(presetRecord({ title: RAW, date: "2026-11-05" }, "minutes").id);
    expect(p.id).not.toBe(presetRecord({ title: SHOWN, date: "2026-11-05" }, "minutes").id);
  });

  it("P6: a title of only characters that are not shown is no title: a feed item falls back to its link, as a blank one does", () => {
    const rss = `<?xml version="1.0"?><rss version="2.0"><channel><title>Bids</title>
      <item><title>&#x7;&#x1; \u0085</title><link>https://x.gov/bids/1</link></item>
      <item><title>Road salt &#x7;</title><link>https://x.gov/bids/2</link></item>
      <item><title>  </title><link>https://x.gov/bids/3</link></item>
    </channel></rss>`;
    const e = extractWay(
      { url: "https://x.gov/bids.rss", access: "feed" } as Parameters<typeof extractWay>[0],
      new TextEncoder().encode(rss),
      "https://x.gov/bids.rss",
      "application/rss+xml",
    );
    expect(e.records.map((r) => [r.title, r.url])).toEqual([
      ["https://x.gov/bids/1", "https://x.gov/bids/1"],
      ["Road salt", "https://x.gov/bids/2"],
      ["https://x.gov/bids/3", "https://x.gov/bids/3"],
    ]);
    // A list page's item: its link text, and with none, no record.
    const html = `<ul>
      <li><a href="/m/1"><span class="t">&#x7;</span>Council minutes</a></li>
      <li><span class="t">&#x1;&#x2;</span><a href="/m/2"></a></li>
      <li><span class="t">Budget hearing</span><a href="/m/3">Open</a></li>
    </ul>`;
    const page = extractWay(
      {
        url: "https://x.gov/minutes",
        access: "page",
        extract: { items: "li", title: ".t", link: "a" },
      } as Parameters<typeof extractWay>[0],
      new TextEncoder().encode(html),
      "https://x.gov/minutes",
      "text/html",
    );
    expect(page.records.map((r) => [r.title, r.url])).toEqual([
      ["Council minutes", "https://x.gov/m/1"],
      ["Budget hearing", "https://x.gov/m/3"],
    ]);
  });

  it("P6: a platform preset's record titled only with characters not shown is no record, as the night reads it", () => {
    const body = new TextEncoder().encode(
      JSON.stringify([
        { id: "101", title: "\u0007\u0001", dateTime: "2026-11-05T18:00:00", documentList: [] },
        { id: "102", title: "Council", dateTime: "2026-11-05T18:00:00", documentList: [] },
      ]),
    );
    const url = "https://x.primegov.com/api/v2/PublicPortal/ListUpcomingMeetings";
    const way = {
      url,
      access: "api",
      platform: "primegov",
      timezone: "America/New_York",
    } as Parameters<typeof extractWay>[0];
    for (const e of [
      wayReader.extract(way, body, url, "application/json"),
      extractWay(way, body, url, "application/json"),
    ])
      expect(e.records.map((r) => r.title)).toEqual(["Council"]);
  });

  describe("from a row stored by an older version", () => {
    let f: Fixture;
    beforeAll(async () => {
      f = await buildFixture();
      await f.store.db
        .insertInto("records")
        .values({
          source_id: "test-bids",
          record_id: "raw-title",
          // A stored string holds no lone surrogate: SQLite keeps UTF-8.
          title: `Zebra ${STORED}`,
          date: null,
          url: "https://test.example/r/raw",
          kind: null,
          first_seen_night: "2026-11-05",
          first_seen_at: "2026-11-06T07:00:00.000Z",
        })
        .execute();
    });
    afterAll(async () => {
      await f?.close();
    });
    const bad = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\uFFFE\uFFFF]/;

    it.each(["/sources/test-bids", "/new", "/search?q=zebra"])(
      "%s shows the title without them",
      async (path) => {
        const res = await f.app.request(path);
        expect(res.status).toBe(200);
        const html = await res.text();
        expect(html).not.toMatch(bad);
        expect(load(html)("body").text()).toContain(`Zebra ${SHOWN}`);
      },
    );

    it("the JSON API and the downloads give the same words", async () => {
      const api = (await (await f.app.request("/api/sources/test-bids")).json()) as {
        newestRecords: { title: string }[];
      };
      const titles = api.newestRecords.map((r) => r.title);
      expect(titles).toContain(`Zebra ${SHOWN}`);
      const csv = await (await f.app.request("/downloads/records.csv")).text();
      expect(csv).not.toMatch(bad);
      expect(csv).toContain(`Zebra ${SHOWN}`);
      const news = await (await f.app.request("/api/new?window=7d")).json();
      expect(JSON.stringify(news)).toContain(`Zebra ${SHOWN}`);
    });
  });
});
