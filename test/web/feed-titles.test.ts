import { XMLParser, XMLValidator } from "fast-xml-parser";
import { parseAtomFeed, parseJsonFeed, parseRssFeed } from "feedsmith";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NewRecord } from "../../src/store/read/new-records.js";
import { type FeedFormat, renderFeed } from "../../src/web/public/feeds.js";
import { buildFixture, type Fixture } from "./fixture.js";

/**
 * A record's title is shown by a feed reader as the literal text its list had, whatever it
 * holds: markup-like text, `&`, a `]]>` (which ends a CDATA section), text that reads like a
 * CDATA section, an entity written out. Read back by two XML parsers: fast-xml-parser as XML
 * 1.0 reads it (entities and CDATA resolved) and feedsmith as feed readers do.
 */
const TITLES = [
  "<b>Bid</b> & more",
  "Bid 26-04 ]]> closes Friday",
  "Hearing > <![CDATA[x]]>  later",
  "&lt;not markup&gt; &amp; written out",
  "]]>",
];

const record = (title: string, i: number): NewRecord => ({
  sourceId: "test-bids",
  recordId: `t${i}`,
  title,
  date: "2026-11-20",
  url: `https://test.example/bids?id=${i}&view=1`,
  kind: null,
  firstSeenNight: "2026-11-05",
  firstSeenAt: "2026-11-06T04:00:00.000Z",
  alreadyListed: false,
  sourceName: "Bids & <i>quotes</i>",
  sourceRecords: "bids",
  governmentId: "village-of-test",
  governmentName: "Village of Test",
  governmentKind: "village",
  county: "Franklin",
});

const render = (format: FeedFormat, items: NewRecord[]) =>
  renderFeed(format, {
    origin: "https://directory.example",
    id: "urn:new-on-record:test",
    title: 'New on Record: search "<b>bid</b> & ]]>"',
    description: "Records whose titles match.",
    pagePath: "/search?q=bid&county=Franklin",
    selfPath: (f) => `/search.${f}?q=bid&county=Franklin`,
    items,
    updated: new Date("2026-11-06T04:00:00.000Z"),
  });

/**
 * XML 1.0 as a parser reads it: the predefined entities and character references resolved once,
 * CDATA as text (`htmlEntities` is what turns on character references in fast-xml-parser; the
 * feeds hold no other entity).
 */
const xml = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  processEntities: true,
  htmlEntities: true,
  trimValues: false,
  parseTagValue: false,
  isArray: (name) => name === "item" || name === "entry",
});
type Text = string | { "#text": string; "@type"?: string };
const text = (t: Text | undefined) => (typeof t === "object" ? t["#text"] : t);

describe("record titles in the feeds are the text the list had", () => {
  const items = TITLES.map(record);

  it('Atom: type="text" titles read back exactly, `]]>` and CDATA-like text included', () => {
    const atom = render("atom", items);
    expect(XMLValidator.validate(atom)).toBe(true);
    const doc = xml.parse(atom) as { feed: { title: Text; entry: { title: Text }[] } };
    expect(doc.feed.entry.map((e) => text(e.title))).toEqual(TITLES);
    expect(doc.feed.entry.map((e) => (e.title as { "@type": string })["@type"])).toEqual(
      TITLES.map(() => "text"),
    );
    expect(text(doc.feed.title)).toBe('New on Record: search "<b>bid</b> & ]]>"');
    const parsed = parseAtomFeed(atom);
    expect(parsed.entries?.map((e) => e.title?.value)).toEqual(TITLES);
    expect(parsed.entries?.map((e) => e.title?.type)).toEqual(TITLES.map(() => "text"));
  });

  it("RSS: titles are plain text with & < > as hexadecimal character references (RSS Best Practices Profile), never CDATA; descriptions stay escaped HTML", () => {
    const rss = render("rss", items);
    expect(XMLValidator.validate(rss)).toBe(true);
    const doc = xml.parse(rss) as {
      rss: {
        channel: { title: string; link: string; item: { title: string; link: string }[] };
      };
    };
    expect(doc.rss.channel.item.map((i) => i.title)).toEqual(TITLES);
    expect(doc.rss.channel.title).toBe('New on Record: search "<b>bid</b> & ]]>"');
    expect(doc.rss.channel.link).toBe("https://directory.example/search?q=bid&county=Franklin");
    expect(doc.rss.channel.item[0]?.link).toBe("https://test.example/bids?id=0&view=1");
    // As written: no CDATA in a title, a link or a guid, and no raw `<` or `&` in their text.
    const plain = [...rss.matchAll(/<(title|link|guid|category)\b[^>]*>([\s\S]*?)<\/\1>/g)];
    expect(plain.length).toBe(2 + 4 * TITLES.length);
    for (const [, , inner] of plain) {
      expect(inner).not.toContain("<![CDATA[");
      expect(inner).not.toMatch(/<|&(?!#x(?:26|3C|3E);)/);
    }
    expect(rss).toContain("<title>&#x3C;b&#x3E;Bid&#x3C;/b&#x3E; &#x26; more</title>");
    const parsed = parseRssFeed(rss);
    expect(parsed.items?.map((i) => i.title)).toEqual(TITLES);
    // The description is HTML: its text is escaped, so a reader shows it as text too.
    expect(parsed.items?.[0]?.description).toContain("Bids &#38; &#60;i&#62;quotes&#60;/i&#62;");
  });

  it("JSON Feed: titles are the same strings", () => {
    const json = parseJsonFeed(render("json", items));
    expect(json.items?.map((i) => i.title)).toEqual(TITLES);
  });
});

describe("the feeds over HTTP", () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await buildFixture();
    await f.store.db
      .insertInto("records")
      .values(
        TITLES.map((title, i) => ({
          source_id: "test-bids",
          record_id: `t${i}`,
          title,
          date: "2026-11-20",
          url: null,
          kind: null,
          first_seen_night: "2026-11-05",
          first_seen_at: "2026-11-06T04:00:05.000Z",
        })),
      )
      .execute();
    // On the agendas page: a meeting's agenda and its minutes, each with its own kind.
    await f.store.db
      .insertInto("records")
      .values(
        (["agendas", "Minutes"] as const).map((kind, i) => ({
          source_id: "test-agendas",
          record_id: `m${i}`,
          title: "Village Council: Regular Council Meeting",
          date: "2026-11-04",
          url: null,
          kind,
          first_seen_night: "2026-11-05",
          first_seen_at: "2026-11-06T04:00:05.000Z",
        })),
      )
      .execute();
  });

  it("an agenda and the minutes of one meeting are told apart: the minutes' own kind is in /new and in the feeds' summary and category", async () => {
    const json = (await (await f.app.request("/new.json?source=test-agendas")).json()) as {
      items: { id: string; summary: string; tags: string[] }[];
    };
    const item = (id: string) => json.items.find((i) => i.id.endsWith(`:${id}`));
    expect(item("m0")?.tags).toEqual(["agendas"]);
    expect(item("m0")?.summary).not.toMatch(/^Minutes\./);
    expect(item("m1")?.tags).toEqual(["minutes"]);
    expect(item("m1")?.summary).toMatch(/^Minutes\. /);
    const page = await (await f.app.request("/new?source=test-agendas")).text();
    expect(page).toContain("(Minutes)");
  });
  afterAll(async () => {
    await f?.close();
  });

  it("/new.rss and /new.atom carry the titles as stored, read back exactly", async () => {
    const rss = await (await f.app.request("/new.rss?source=test-bids")).text();
    const atom = await (await f.app.request("/new.atom?source=test-bids")).text();
    // The fixture's own bid first seen since yesterday, beside them.
    const sorted = [...TITLES, "Record 31"].sort();
    expect(
      parseRssFeed(rss)
        .items?.map((i) => i.title ?? "")
        .sort(),
    ).toEqual(sorted);
    expect(
      parseAtomFeed(atom)
        .entries?.map((e) => e.title?.value ?? "")
        .sort(),
    ).toEqual(sorted);
    const doc = xml.parse(rss) as { rss: { channel: { item: { title: string }[] } } };
    expect(doc.rss.channel.item.map((i) => i.title).sort()).toEqual(sorted);
  });
});
