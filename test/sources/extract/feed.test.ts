import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { toIsoDate } from "../../../src/sources/dates.js";
import { extractFeed } from "../../../src/sources/extract/feed.js";
import { dateEt } from "../../../src/web/public/format.js";

const fx = (name: string) =>
  new Uint8Array(
    readFileSync(new URL(`../../fixtures/platforms/civicplus-rss/${name}`, import.meta.url)),
  );
const enc = (s: string) => new TextEncoder().encode(s);

describe("extractFeed on CivicPlus RSS fixtures (PROVENANCE counts)", () => {
  it("P6: Lake Wales Agenda Creator: 23 items, first and last as recorded, links noted not followed", () => {
    const x = extractFeed(
      fx("FL_lakewales_RSSFeed_ModID65_AgendaCreator.xml"),
      "https://www.lakewalesfl.gov/RSSFeed.aspx?ModID=65&CID=All-0",
    );
    expect(x.records).toHaveLength(23);
    expect(x.note).toBeUndefined();
    expect(x.records[0]).toEqual({
      id: "https://www.lakewalesfl.gov/AgendaCenter/PreviousVersions/1693/639120423760000000",
      title: "Agenda for the City Commission meeting on Tuesday April 21, 2026 at 6:00 p.m.",
      date: "2026-04-17T17:06:16-05:00",
      url: "https://www.lakewalesfl.gov/AgendaCenter/PreviousVersions/1693",
    });
    expect(x.records[1]?.title).toBe(
      "Agenda for Police Pension board meeting on April 28, 2025 at 1:00 p.m.",
    );
    expect(x.records.at(-1)?.title).toBe(
      "Citizens and Police Community Relations Advisory Committee",
    );
    expect(x.records.at(-1)?.date).toMatch(/^2026-04-06T/);
  });

  it("Bartow calendar: 28 items from Country Connections Line Dancers to Get Moving! Chair Yoga", () => {
    const x = extractFeed(
      fx("FL_bartow_RSSFeed_ModID58_Calendar.xml"),
      "https://www.cityofbartow.net/RSSFeed.aspx?ModID=58&CID=All-calendar.xml",
    );
    expect(x.records).toHaveLength(28);
    expect(x.records[0]).toMatchObject({
      title: "Country Connections Line Dancers",
      url: "https://www.cityofbartow.net/Calendar.aspx?EID=2131",
      date: "2025-04-30T11:46:23-05:00",
    });
    expect(x.records.at(-1)?.title).toBe("Get Moving! Chair Yoga");
    expect(x.records.at(-1)?.url).toContain("EID=3165");
  });

  it("Lake Wales News Flash: 9 items, the first RITES OF THE STARLING", () => {
    const x = extractFeed(
      fx("FL_lakewales_RSSFeed_ModID1_NewsFlash.xml"),
      "https://www.lakewalesfl.gov/RSSFeed.aspx?ModID=1&CID=All-newsflash.xml",
    );
    expect(x.records).toHaveLength(9);
    expect(x.records[0]?.title).toBe("RITES OF THE STARLING");
    expect(x.records[0]?.date).toBe("2026-04-17T08:16:41-05:00");
    expect(x.records.some((r) => r.title.includes("City Nature Challenge"))).toBe(true);
  });

  it("an empty channel is zero records with a note, not an error", () => {
    const x = extractFeed(
      fx("FL_bartow_RSSFeed_ModID65_empty.xml"),
      "https://www.cityofbartow.net/RSSFeed.aspx?ModID=65&CID=All-0",
    );
    expect(x).toEqual({ records: [], note: "feed has no items" });
  });

  it("a feed URL answering an HTML page yields no records and the note 'not a feed'", () => {
    const x = extractFeed(
      fx("FL_lakehamilton_AgendaCenter_rss_returned_HTML.html"),
      "https://www.townoflakehamilton.com/RSSFeed.aspx?ModID=65",
    );
    expect(x).toEqual({ records: [], note: "not a feed" });
    expect(extractFeed(enc("{ not json"), "https://x.gov/feed.json").note).toMatch(/^not a feed/);
    expect(extractFeed(enc('{"hello":"world"}'), "https://x.gov/feed.json").note).toBe(
      "not a feed",
    );
  });
});

describe("extractFeed on the other feed formats, detected from content", () => {
  it("reads Atom entries: alternate link, published date, id", () => {
    const atom = `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>Notices</title><id>urn:x</id><updated>2026-01-02T10:00:00Z</updated>
<entry><title type="html">Notice &amp;amp; hearing</title><id>urn:notice:7</id><link rel="alternate" href="/notices/7"/>
<updated>2026-01-03T10:00:00Z</updated><published>2026-01-02T09:00:00-05:00</published></entry></feed>`;
    expect(extractFeed(enc(atom), "https://county.example.gov/notices.atom").records).toEqual([
      {
        id: "urn:notice:7",
        title: "Notice & hearing",
        date: "2026-01-02T09:00:00-05:00",
        url: "https://county.example.gov/notices/7",
      },
    ]);
  });

  it("reads RSS 1.0 / RDF with dc:date", () => {
    const rdf = `<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
<channel rdf:about="https://v.example.gov/"><title>V</title><link>https://v.example.gov/</link><description>d</description></channel>
<item rdf:about="https://v.example.gov/minutes/3"><title>Minutes, March</title><link>https://v.example.gov/minutes/3</link><dc:date>2026-03-09</dc:date></item>
</rdf:RDF>`;
    expect(extractFeed(enc(rdf), "https://v.example.gov/rss").records).toEqual([
      {
        id: "https://v.example.gov/minutes/3",
        title: "Minutes, March",
        date: "2026-03-09",
        url: "https://v.example.gov/minutes/3",
      },
    ]);
  });

  it("a time a feed writes in UTC is that instant, midnight included: 00:00 GMT is the evening before in Ohio (a 7 pm meeting), never taken for a bare day", () => {
    // docs/catalog.md, src/sources/dates.ts: the platforms in the fixtures never write a day as
    // midnight UTC, and a 7 pm meeting in an Ohio winter written in UTC is exactly this.
    const rss = `<?xml version="1.0"?><rss version="2.0"><channel><title>Meetings</title>
<item><title>Council</title><link>https://v.example.gov/m/1</link><pubDate>Tue, 01 Dec 2026 00:00:00 GMT</pubDate></item>
<item><title>Trustees</title><link>https://v.example.gov/m/2</link><pubDate>Tue, 01 Dec 2026 00:00:00 -0500</pubDate></item>
</channel></rss>`;
    const atom = `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>M</title><id>urn:m</id><updated>2026-12-01T00:00:00Z</updated>
<entry><title>Council</title><id>urn:m:1</id><link href="https://v.example.gov/m/1"/><updated>2026-12-01T00:00:00Z</updated></entry></feed>`;
    const dates = (body: string) =>
      extractFeed(enc(body), "https://v.example.gov/feed").records.map((r) => r.date);
    expect(dates(rss)).toEqual(["2026-12-01T00:00:00Z", "2026-12-01T00:00:00-05:00"]);
    expect(dates(atom)).toEqual(["2026-12-01T00:00:00Z"]);
    // Shown as the day the instant falls on in Ohio, and the local midnight as its own day.
    expect(dateEt("2026-12-01T00:00:00Z")).toBe("Nov 30, 2026");
    expect(dateEt("2026-12-01T00:00:00-05:00")).toBe("Dec 1, 2026");
    // A day a feed writes as a day (dc:date) stays one.
    expect(toIsoDate("2026-12-01")).toBe("2026-12-01");
  });

  it("reads JSON Feed 1.1, and refuses javascript: links", () => {
    const json = JSON.stringify({
      version: "https://jsonfeed.org/version/1.1",
      title: "Bids",
      items: [
        {
          id: "b-1",
          title: "Road salt",
          url: "bids/1",
          date_published: "2026-02-01T12:00:00Z",
          tags: ["bids"],
        },
        { id: "b-2", title: "Bad link", url: "javascript:alert(1)" },
      ],
    });
    expect(extractFeed(enc(json), "https://city.example.gov/bids.json").records).toEqual([
      {
        id: "b-1",
        title: "Road salt",
        date: "2026-02-01T12:00:00Z",
        url: "https://city.example.gov/bids/1",
        kind: "bids",
      },
      { id: "b-2", title: "Bad link" },
    ]);
  });

  it("decodes a windows-1252 feed by its XML declaration", () => {
    const head = `<?xml version="1.0" encoding="windows-1252"?><rss version="2.0"><channel><title>c</title><link>https://c.gov/</link><item><title>Caf`;
    const body = new Uint8Array([
      ...enc(head),
      0xe9,
      ...enc(" hearing</title><link>https://c.gov/1</link></item></channel></rss>"),
    ]);
    expect(extractFeed(body, "https://c.gov/rss").records[0]?.title).toBe("Café hearing");
  });
});
