import { describe, expect, it } from "vitest";
import { preset, run } from "./helpers.js";

const P = "civicplus-rss";

describe("civicplus-rss preset", () => {
  it("P4: is a feed preset and asks for RSS", () => {
    const p = preset(P);
    expect(p.access).toBe("feed");
    const u = "https://www.lakewalesfl.gov/RSSFeed.aspx?ModID=65&CID=All-0";
    expect(p.firstRequest(u, 0)).toMatchObject({ method: "GET", url: u });
  });

  it("Agenda Center feed: 23 items; the meeting date comes from the title, not pubDate", () => {
    const x = run(
      P,
      "civicplus-rss/FL_lakewales_RSSFeed_ModID65_AgendaCreator.xml",
      "https://www.lakewalesfl.gov/RSSFeed.aspx?ModID=65&CID=All-0",
    );
    expect(x.records).toHaveLength(23);
    expect(x.records[0]).toEqual({
      // The guid is the link plus .NET ticks that change on each edit: the id is the link.
      id: "https://www.lakewalesfl.gov/AgendaCenter/PreviousVersions/1693",
      title: "Agenda for the City Commission meeting on Tuesday April 21, 2026 at 6:00 p.m.",
      date: "2026-04-21T18:00:00-04:00",
      url: "https://www.lakewalesfl.gov/AgendaCenter/PreviousVersions/1693",
      kind: "agendas",
    });
    // pubDate is 2026; the meeting was April 28, 2025; the update added minutes.
    expect(x.records[1]).toMatchObject({
      title: "Agenda for Police Pension board meeting on April 28, 2025 at 1:00 p.m.",
      date: "2025-04-28T13:00:00-04:00",
      kind: "minutes",
    });
    // A title with no date falls back to the posting time (Mon, 06 Apr 2026).
    expect(x.records.at(-1)).toMatchObject({
      title: "Citizens and Police Community Relations Advisory Committee",
    });
    expect(x.records.at(-1)!.date!.slice(0, 10)).toBe("2026-04-06");
  });

  it("Calendar feed: 28 items dated by calendarEvent:EventDates and the start time, not pubDate", () => {
    const x = run(
      P,
      "civicplus-rss/FL_bartow_RSSFeed_ModID58_Calendar.xml",
      "https://www.cityofbartow.net/RSSFeed.aspx?ModID=58&CID=All-calendar.xml",
    );
    expect(x.records).toHaveLength(28);
    expect(x.records[0]).toEqual({
      id: "https://www.cityofbartow.net/Calendar.aspx?EID=2131",
      title: "Country Connections Line Dancers",
      date: "2026-04-20T09:00:00-04:00",
      url: "https://www.cityofbartow.net/Calendar.aspx?EID=2131",
      kind: "other",
    });
    expect(x.records.at(-1)).toMatchObject({
      title: "Get Moving! Chair Yoga",
      url: "https://www.cityofbartow.net/Calendar.aspx?EID=3165",
    });
  });

  it("News Flash feed: 9 notices dated by pubDate, off-site links kept as links (P6: never followed)", () => {
    const x = run(
      P,
      "civicplus-rss/FL_lakewales_RSSFeed_ModID1_NewsFlash.xml",
      "https://www.lakewalesfl.gov/RSSFeed.aspx?ModID=1&CID=All-newsflash.xml",
    );
    expect(x.records).toHaveLength(9);
    expect(x.records[0]).toMatchObject({
      title: "RITES OF THE STARLING",
      date: "2026-04-17T08:16:41-05:00",
      kind: "notices",
    });
    expect(x.records.find((r) => r.title === "City Nature Challenge")?.url).toMatch(
      /^https:\/\/www\.eventbrite\.com\//,
    );
  });

  it("an empty channel is zero records with a note", () => {
    const x = run(
      P,
      "civicplus-rss/FL_bartow_RSSFeed_ModID65_empty.xml",
      "https://www.cityofbartow.net/RSSFeed.aspx?ModID=65&CID=All-0",
    );
    expect(x.records).toEqual([]);
    expect(x.note).toBe("the feed has no items");
  });

  it("a feed URL that answers with HTML: no records, and the note says so", () => {
    const x = run(
      P,
      "civicplus-rss/FL_lakehamilton_AgendaCenter_rss_returned_HTML.html",
      "https://www.townoflakehamilton.com/RSSFeed.aspx?ModID=65&CID=All-0",
    );
    expect(x.records).toEqual([]);
    expect(x.note).toBe(
      'feed URL answered with an HTML page ("Custom404 • Lake Hamilton, FL • CivicEngage"), not RSS',
    );
  });
});
