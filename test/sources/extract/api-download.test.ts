import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { WayIn } from "../../../src/sources/catalog/types.js";
import { extractApi } from "../../../src/sources/extract/api.js";
import { extractDownload } from "../../../src/sources/extract/download.js";
import { getPath } from "../../../src/sources/extract/fields.js";
import { extractWay } from "../../../src/sources/extract/index.js";
import { exactIntegers } from "../../../src/sources/extract/json.js";

const fx = (path: string) =>
  new Uint8Array(readFileSync(new URL(`../../fixtures/platforms/${path}`, import.meta.url)));
const enc = (s: string) => new TextEncoder().encode(s);

describe("extractApi: JSON answers mapped by dotted path", () => {
  it("P6: Cuyahoga County Council calendar: 53 events, /Date(ms)/ shown in New York time", () => {
    const x = extractApi(
      fx("ohio-county-html/OH_cuyahoga_county_council_calendar.json"),
      "https://council.cuyahogacounty.gov/api/calendar",
      {
        items: "",
        title: "Title",
        date: "Start",
        id: "Id",
        link: "EventUrl",
      },
    );
    expect(x.records).toHaveLength(53);
    expect(x.records[0]).toEqual({
      id: "40c2433f-1747-44a7-9ec4-7541636005c9",
      title: "Public Works, Procurement & Contracting Committee Meeting - 02/21/2024",
      date: "2024-02-21T10:00:00-05:00",
      url: "https://council.cuyahogacounty.gov/2024/02/21/council/public-works-procurement-contracting-committee-meeting---01-31-2024",
    });
    expect(x.records.at(-1)?.title).toBe("Council Meeting - 8/6/2024");
    expect(x.records.at(-1)?.date).toBe("2024-08-06T17:00:00-04:00");
  });

  it("CMHA admin-ajax: 6 events, ISO offsets kept across the DST change", () => {
    const x = extractApi(
      fx("ohio-county-html/OH_cincinnati_metro_housing_authority_calendar_admin-ajax.json"),
      "https://cintimha.com/wp-admin/admin-ajax.php?action=get_calendar_events",
      {
        items: "",
        title: "title",
        date: "start",
        id: "id",
        link: "url",
      },
    );
    expect(x.records.map((r) => [r.id, r.date])).toEqual([
      ["24946", "2024-08-20T18:00:00-04:00"],
      ["27622", "2024-08-22T18:00:00-04:00"],
      ["24947", expect.stringMatching(/^2024-09-24T/)],
      ["24948", expect.stringMatching(/^2024-10-29T/)],
      ["24949", "2024-11-26T18:00:00-05:00"],
      ["24950", "2024-12-17T17:45:00-05:00"],
    ]);
    expect(x.records[0]?.title).toBe("Board of Commissioners Meeting - RESCHEDULED");
  });

  it("P7: follows @odata.nextLink, nested paths and {field} link templates", () => {
    const answer = {
      "@odata.nextLink": "https://api.example.gov/events?$skip=2",
      d: {
        value: [
          {
            id: 7,
            eventName: "Zoning <b>Board</b>",
            startDateTime: "2026-03-09T18:00:00",
            body: { name: "ZBA" },
          },
          { id: 8 },
        ],
      },
    };
    const x = extractApi(enc(JSON.stringify(answer)), "https://api.example.gov/events", {
      items: "d.value",
      title: "eventName",
      date: "startDateTime",
      id: "id",
      link: "/meetings/{id}",
      kind: "body.name",
      next: "@odata.nextLink",
    });
    expect(x).toEqual({
      records: [
        {
          id: "7",
          title: "Zoning Board",
          date: "2026-03-09T18:00:00-04:00",
          url: "https://api.example.gov/meetings/7",
          kind: "ZBA",
        },
      ],
      next: "https://api.example.gov/events?$skip=2",
    });
    expect(getPath({ a: { "b.c": 1 } }, "a.b.c")).toBe(1);
  });

  it("answers that are not what was mapped are notes, not crashes", () => {
    const spec = { items: "value", title: "t" };
    expect(extractApi(enc("<html>busy</html>"), "https://x.gov/api", spec)).toEqual({
      records: [],
      note: "not JSON: an HTML page",
      notThisWay: true,
    });
    expect(extractApi(enc('{"error":"x"}'), "https://x.gov/api", spec).note).toBe(
      'no array at "value" in the JSON answer',
    );
    expect(extractApi(enc('{"value":[]}'), "https://x.gov/api", spec).note).toBe("empty list");
  });
  it("P6: a < or > in an API title is text, not a tag; real markup is still taken out", () => {
    const answer = [
      { id: 1, t: "Purchases < $25,000 and > $5,000" },
      { id: 2, t: "<b>Zoning</b> &lt;i&gt;Board&lt;/i&gt; <!-- x --> 1<2" },
    ];
    const x = extractApi(enc(JSON.stringify(answer)), "https://api.example.gov/items", {
      items: "",
      title: "t",
      id: "id",
    });
    expect(x.records.map((r) => r.title)).toEqual([
      "Purchases < $25,000 and > $5,000",
      "Zoning Board 1<2",
    ]);
  });
});

describe("extractDownload: CSV and JSON files with column mapping", () => {
  it("P4: reads a CSV with a BOM, quoted commas and named columns", () => {
    const csv =
      '\ufeffBid Number,Bid Title,Due Date,Document\n2026-01,"Salt, road",03/02/2026 2:00 PM,/bids/2026-01.pdf\n2026-02,Culvert pipe,2026-03-09,\n,,,\n';
    const x = extractDownload(enc(csv), "https://county.example.gov/bids/open.csv", {
      title: "Bid Title",
      date: "Due Date",
      id: "Bid Number",
      link: "Document",
    });
    expect(x.records).toEqual([
      {
        id: "2026-01",
        title: "Salt, road",
        date: "2026-03-02T14:00:00-05:00",
        url: "https://county.example.gov/bids/2026-01.pdf",
      },
      { id: "2026-02", title: "Culvert pipe", date: "2026-03-09" },
    ]);
  });

  it("P6: rows that share a link but show different records are each a record, known by their own date: a row added that turns the file day-first changes no id", () => {
    const spec = { title: "Permit", date: "Issued", link: "Portal" };
    const ids = (rows: string[]) =>
      extractDownload(
        enc(`Permit,Issued,Portal\n${rows.join("\n")}\n`),
        "https://city.example.gov/permits.csv",
        spec,
      ).records.map((r) => [r.title, r.id]);
    const two = ids([
      "Fence,01/02/2026,/portal",
      "Deck,01/02/2026,/portal",
      "Deck,01/02/2026,/portal",
    ]);
    expect(two.map(([t]) => t)).toEqual(["Fence", "Deck"]);
    for (const [, id] of two)
      expect(id).toMatch(/^https:\/\/city\.example\.gov\/portal#[0-9a-f]{16}$/);
    expect(
      ids(["Fence,01/02/2026,/portal", "Deck,01/02/2026,/portal", "Shed,13/02/2026,/portal"]),
    ).toEqual(expect.arrayContaining(two));
  });

  it("P6: items of a JSON file or an API answer that share a link but show different records are each a record", () => {
    const items = [
      { t: "Fence", d: "/Date(1767330000000)/", l: "/portal" },
      { t: "Deck", d: "/Date(1767416400000)/", l: "/portal" },
      { t: "Deck", d: "/Date(1767416400000)/", l: "/portal" },
    ];
    const spec = { title: "t", date: "d", link: "l" };
    const file = extractDownload(enc(JSON.stringify(items)), "https://c.gov/permits.json", spec);
    const api = extractApi(enc(JSON.stringify({ value: items })), "https://c.gov/api", {
      ...spec,
      items: "value",
    });
    for (const x of [file, api]) {
      expect(x.records.map((r) => r.title)).toEqual(["Fence", "Deck"]);
      for (const r of x.records) expect(r.id).toMatch(/^https:\/\/c\.gov\/portal#[0-9a-f]{16}$/);
    }
  });

  it("reads JSON files, says so for a zip that is no workbook and for an HTML page in place of the file", () => {
    const json = extractDownload(
      enc('[{"n":"Minutes","d":"2026-01-05"}]'),
      "https://x.gov/list.json",
      { title: "n", date: "d" },
    );
    expect(json.records).toEqual([
      { id: expect.stringMatching(/^h:/), title: "Minutes", date: "2026-01-05" },
    ]);
    expect(
      extractDownload(enc("PK\u0003\u0004rest"), "https://x.gov/bids", { title: "t" }).note,
    ).toBe("a zip file, not an XLSX workbook");
    expect(
      extractDownload(enc("<!DOCTYPE html><p>moved"), "https://x.gov/bids.csv", { title: "t" })
        .note,
    ).toBe("not a CSV file (HTML)");
  });
});

describe("extractWay dispatch", () => {
  it("routes by access, and by platform to the preset", () => {
    const feed: WayIn = {
      access: "feed",
      url: "https://www.lakewalesfl.gov/RSSFeed.aspx?ModID=65&CID=All-0",
    };
    const body = fx("civicplus-rss/FL_lakewales_RSSFeed_ModID65_AgendaCreator.xml");
    expect(extractWay(feed, body, feed.url).records).toHaveLength(23);
    const page: WayIn = { access: "page", url: "https://x.gov/", extract: { items: "li" } };
    expect(
      extractWay(page, enc("<ul><li>A</li><li>B</li></ul>"), page.url).records.map((r) => r.title),
    ).toEqual(["A", "B"]);
    const viaPreset: WayIn = { access: "feed", url: feed.url, platform: "civicplus-rss" };
    expect(extractWay(viaPreset, body, feed.url).records.length).toBeGreaterThan(0);
    expect(() =>
      extractWay({ access: "feed", url: feed.url, platform: "nope" }, body, feed.url),
    ).toThrow(/unknown platform "nope"/);
    expect(() =>
      extractWay({ access: "api", url: "https://x.gov/" }, body, "https://x.gov/"),
    ).toThrow(/no api field mapping/);
  });
});

describe("JSON integers too long for a number", () => {
  it("P6: two ids past 2^53 that differ by one stay two records, each as the site wrote it; strings and other numbers are left as they are", () => {
    const body = `{"value":[{"id":9007199254740993,"t":"A \\"9007199254740993\\" x"},{"id":9007199254740992,"t":"B"},{"id":-12345678901234567,"t":"C","n":1.5e3,"d":1700000000000}]}`;
    const x = extractApi(enc(body), "https://x.gov/api", { items: "value", title: "t", id: "id" });
    expect(x.records.map((r) => [r.id, r.title])).toEqual([
      ["9007199254740993", 'A "9007199254740993" x'],
      ["9007199254740992", "B"],
      ["-12345678901234567", "C"],
    ]);
    expect(exactIntegers('{"a":1,"b":"12345678901234567","c":12345678901234567}')).toBe(
      '{"a":1,"b":"12345678901234567","c":"12345678901234567"}',
    );
  });
});
