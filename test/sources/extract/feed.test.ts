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
    expect(x).toEqual({ records: [], note: "not a feed", notThisWay: true });
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

describe("extractFeed: what may come before the feed, < and > in titles, xml:base (outside tester)", () => {
  const item = `<item><title>Council agenda</title><link>http://x.example/a1</link><guid>a1</guid></item>`;
  const one = [{ id: "a1", title: "Council agenda", url: "http://x.example/a1" }];

  it("P4: a feed after an xml-stylesheet processing instruction, comments and whitespace is read, RSS and Atom", () => {
    const styled = `<?xml version="1.0" encoding="UTF-8"?>\n<?xml-stylesheet type="text/xsl" href="/rss.xsl"?>\n<!-- built 2026-11-03 -->\n<?xml-stylesheet type="text/css" href="/rss.css"?>\n<rss version="2.0"><channel><title>t</title>${item}</channel></rss>`;
    expect(extractFeed(enc(styled), "http://x.example/styled.xml")).toEqual({ records: one });
    const atom = `<?xml version="1.0" encoding="utf-8"?>\n<?xml-stylesheet type="text/xsl" href="/atom.xsl"?>\n<feed xmlns="http://www.w3.org/2005/Atom"><title>t</title><id>x</id><updated>2026-11-03T00:00:00Z</updated><entry><title>Minutes</title><link href="/m/1"/><id>tag:m,1</id><updated>2026-11-03T10:00:00Z</updated></entry></feed>`;
    expect(extractFeed(enc(atom), "http://x.example/atom.xml").records).toEqual([
      {
        id: "tag:m,1",
        title: "Minutes",
        url: "http://x.example/m/1",
        date: "2026-11-03T10:00:00Z",
      },
    ]);
  });

  it("P4: an RSS 0.91 feed with its Netscape DOCTYPE (PUBLIC or SYSTEM, comments around it) is read", () => {
    const rss091 = `<?xml version="1.0" encoding="ISO-8859-1"?>\n<!DOCTYPE rss PUBLIC "-//Netscape Communications//DTD RSS 0.91//EN" "http://my.netscape.com/publish/formats/rss-0.91.dtd">\n<rss version="0.91"><channel><title>t</title><link>http://x.example/</link><description>d</description><language>en-us</language>${item}</channel></rss>`;
    expect(extractFeed(enc(rss091), "http://x.example/rss091.xml")).toEqual({ records: one });
    const system = `<!-- a --><!DOCTYPE rss SYSTEM 'rss-0.91.dtd'><!-- b -->\n<rss version="0.91"><channel><title>t</title>${item}</channel></rss>`;
    expect(extractFeed(enc(system), "http://x.example/rss.xml")).toEqual({ records: one });
  });

  it("P4: a DOCTYPE that declares entities (XXE, billion laughs) or a second DOCTYPE is still not a feed", () => {
    const laughs = `<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><rss version="2.0"><channel><title>&b;</title>${item}</channel></rss>`;
    expect(extractFeed(enc(laughs), "http://x.example/f.xml")).toEqual({
      records: [],
      note: "not a feed",
      notThisWay: true,
    });
    const xxe = `<?xml version="1.0"?><!DOCTYPE rss SYSTEM "x.dtd" [<!ENTITY x SYSTEM "file:///etc/passwd">]><rss version="2.0"><channel><title>&x;</title>${item}</channel></rss>`;
    expect(extractFeed(enc(xxe), "http://x.example/f.xml").note).toBe("not a feed");
    const twice = `<!DOCTYPE rss><!DOCTYPE rss><rss version="2.0"><channel><title>t</title>${item}</channel></rss>`;
    expect(extractFeed(enc(twice), "http://x.example/f.xml").note).toBe("not a feed");
    for (const open of [`<?xml version="1.0"`, "<!-- never closed", "<!DOCTYPE rss PUBLIC"])
      expect(extractFeed(enc(`${open}<rss></rss>`), "http://x.example/f.xml").note).toBe(
        "not a feed",
      );
    // An HTML page with a stylesheet instruction is still a page.
    expect(
      extractFeed(
        enc(`<?xml-stylesheet href="a.css"?><!DOCTYPE html><html></html>`),
        "http://x.example/",
      ).note,
    ).toBe("not a feed");
  });

  it("P6: a < or > in a title is text, not a tag; real markup is still taken out", () => {
    const rss = `<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>
<item><title>Purchases &lt; $50,000 and &gt; $10,000 approved</title><link>http://x.example/lt</link></item>
<item><title>&lt;b&gt;Notice&lt;/b&gt; of &lt;i&gt;hearing&lt;/i&gt;&lt;!-- x --&gt;</title><link>http://x.example/b</link></item>
<item><title>Bids 1&lt;2 &lt; 3 &lt;= 4 &lt;&lt; 5</title><link>http://x.example/c</link><category>Bids &lt; $5k</category></item>
</channel></rss>`;
    expect(extractFeed(enc(rss), "http://x.example/lt.xml").records).toEqual([
      {
        id: "http://x.example/lt",
        title: "Purchases < $50,000 and > $10,000 approved",
        url: "http://x.example/lt",
      },
      { id: "http://x.example/b", title: "Notice of hearing", url: "http://x.example/b" },
      {
        id: "http://x.example/c",
        title: "Bids 1<2 < 3 <= 4 << 5",
        url: "http://x.example/c",
        kind: "Bids < $5k",
      },
    ]);
  });

  it("P6: an Atom entry's relative link resolves against xml:base (the entry's, within the feed's, within the feed's address)", () => {
    const atom = (feedBase: string, entryBase: string) =>
      `<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom"${feedBase}><title>t</title><id>x</id><updated>2026-11-03T00:00:00Z</updated><entry${entryBase}><title>Minutes Nov 3</title><link href="2026-11-03.pdf"/><id>tag:m,1</id><updated>2026-11-03T10:00:00-05:00</updated></entry></feed>`;
    const urlOf = (feedBase: string, entryBase = "") =>
      extractFeed(enc(atom(feedBase, entryBase)), "http://x.example/feeds/xmlbase.xml").records[0]
        ?.url;
    expect(urlOf(` xml:base="http://docs.example.gov/minutes/"`)).toBe(
      "http://docs.example.gov/minutes/2026-11-03.pdf",
    );
    expect(urlOf(` xml:base="/minutes/"`)).toBe("http://x.example/minutes/2026-11-03.pdf");
    expect(urlOf(` xml:base="/minutes/"`, ` xml:base="2026/"`)).toBe(
      "http://x.example/minutes/2026/2026-11-03.pdf",
    );
    expect(urlOf("", ` xml:base="https://docs.example.gov/e/"`)).toBe(
      "https://docs.example.gov/e/2026-11-03.pdf",
    );
    expect(urlOf("")).toBe("http://x.example/feeds/2026-11-03.pdf");
  });
});
