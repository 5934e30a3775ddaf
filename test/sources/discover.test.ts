import { describe, expect, it } from "vitest";
import { discoverCandidates } from "../../src/sources/discover.js";
import { presetAccess } from "../../src/sources/platforms/names.js";

const home = `<!doctype html><html><head>
<link rel="alternate" type="application/rss+xml" title="News Flash" href="/RSSFeed.aspx?ModID=1&amp;CID=All-newsflash.xml">
<link rel="alternate" type="text/html" href="/es/">
<link rel="stylesheet" href="/site.css">
</head><body>
<a href="/AgendaCenter">Agendas &amp; Minutes</a>
<a href="https://go.boarddocs.com/oh/akron/Board.nsf/Public">Board of Education</a>
<a href="https://columbus.legistar.com/Calendar.aspx">City Council</a>
<a href="/Bids.aspx">Bid Postings</a>
<a href="javascript:void(0)">Menu</a>
<a href="/AgendaCenter">Agendas again</a>
<a href="/news/story-1">A story</a>
</body></html>`;

describe("discover", () => {
  it("P4, P5: a platform's page is offered with its preset's own way in (a form, a feed, an api), as the catalog would infer it", () => {
    const links = `<a href="https://columbus.legistar.com/Calendar.aspx">Council</a>
<a href="https://dayton.granicus.com/ViewPublisher.php?view_id=2">Meetings</a>
<a href="https://example.civicweb.net/Portal/MeetingSchedule.aspx">Meetings</a>`;
    const found = discoverCandidates(links, "https://www.example-oh.gov/");
    expect(found.map((c) => [c.platform, c.access])).toEqual([
      ["legistar-html", "form"],
      ["granicus", "feed"],
      ["icompass", "api"],
    ]);
    // The catalog infers the same way in from the preset when the entry leaves access out.
    for (const c of found) expect(c.access).toBe(presetAccess(c.platform ?? ""));
  });

  it("P4: finds advertised feeds first and the platform pages linked from a homepage", () => {
    const found = discoverCandidates(home, "https://www.example-oh.gov/");
    expect(found.map((c) => [c.url, c.access, c.platform ?? null])).toEqual([
      ["https://www.example-oh.gov/RSSFeed.aspx?ModID=1&CID=All-newsflash.xml", "feed", null],
      ["https://www.example-oh.gov/AgendaCenter", "page", "civicplus-agendacenter"],
      ["https://go.boarddocs.com/oh/akron/Board.nsf/Public", "api", "boarddocs"],
      ["https://columbus.legistar.com/Calendar.aspx", "form", "legistar-html"],
      ["https://www.example-oh.gov/Bids.aspx", "page", "civicplus-bids"],
    ]);
    expect(found[0]?.label).toBe("News Flash");
    expect(found[1]?.label).toBe("Agendas & Minutes");
  });

  it("never throws on broken markup", () => {
    expect(
      discoverCandidates("<a href='http://[bad'>x</a><link rel=alternate", "https://h.gov/"),
    ).toEqual([]);
  });

  it("P3: an address with user-info or a key the catalog refuses is never offered; its neighbour is", () => {
    const home = `<link rel="alternate" type="application/rss+xml" href="https://feeds.example-oh.gov/rss?token=abc123">
      <a href="https://user:pw@www.example-oh.gov/AgendaCenter">Agendas</a>
      <a href="/AgendaCenter">Agendas</a>`;
    const found = discoverCandidates(home, "https://www.example-oh.gov/");
    expect(found.map((c) => c.url)).toEqual(["https://www.example-oh.gov/AgendaCenter"]);
  });
});
