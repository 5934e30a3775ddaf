import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { PageRecipe } from "../../../src/sources/catalog/types.js";
import { extractPage } from "../../../src/sources/extract/page.js";

const fx = (path: string) =>
  new Uint8Array(readFileSync(new URL(`../../fixtures/platforms/${path}`, import.meta.url)));
const enc = (s: string) => new TextEncoder().encode(s);

describe("extractPage on Ohio county pages (PROVENANCE counts)", () => {
  it("P6: Cuyahoga Board of Control: 5 meetings, dates from the Date column, links noted", () => {
    const recipe: PageRecipe = {
      items: "table.table-striped tbody tr",
      title: "td:nth-child(2)",
      link: "td:nth-child(2) a",
      date: "td:first-child",
    };
    const base =
      "https://cuyahogacounty.gov/boards-and-commissions/board-details/internal/board-of-control";
    const x = extractPage(fx("ohio-county-html/OH_cuyahoga_board_of_control.html"), base, recipe);
    expect(x.records).toHaveLength(5);
    expect(x.records[0]).toEqual({
      id: "https://cuyahogacounty.gov/boards-and-commissions/bc-event-detail//2024/01/29/boards-and-commissions/01-29-24---board-of-control-meeting",
      title: "01/29/24 - Board of Control Meeting",
      date: "2024-01-29",
      url: "https://cuyahogacounty.gov/boards-and-commissions/bc-event-detail//2024/01/29/boards-and-commissions/01-29-24---board-of-control-meeting",
    });
    expect(x.records.map((r) => r.date)).toEqual([
      "2024-01-29",
      "2024-01-22",
      "2024-01-16",
      "2024-01-08",
      "2024-01-02",
    ]);
  });

  it("P6/P7: NEORSD document library page 2: 10 documents, kind column, next page link", () => {
    const recipe: PageRecipe = {
      items: "#fileList tr:has(> td > a[href*='I_Library.php'])",
      title: "td:first-child a",
      link: "td:first-child a",
      date: "td:first-child",
      kind: "td:nth-child(3)",
      next: "#fileList a:contains('Next')",
    };
    const url =
      "https://www.neorsd.org/document-library/?PAGE=2&BUDGETCENTER_ID=NULL&CONTENT_TYPE_ID=NULL&LibraryItem=agenda&Active=1&Archive=1&Search=Submit";
    const x = extractPage(
      fx("ohio-county-html/OH_neorsd_document_library_agendas.html"),
      url,
      recipe,
    );
    expect(x.records).toHaveLength(10);
    expect(x.records[0]).toEqual({
      id: "https://www.neorsd.org/I_Library.php?SOURCE=library/BA-062019.pdf&a=download_file&LIBRARY_RECORD_ID=7463",
      title: "Board Agenda - June 20, 2019",
      date: "2019-06-20",
      url: "https://www.neorsd.org/I_Library.php?SOURCE=library/BA-062019.pdf&a=download_file&LIBRARY_RECORD_ID=7463",
      kind: "Board Agenda",
    });
    expect(x.records.some((r) => r.title === "Board Agenda - Minutes - May 16, 2019")).toBe(true);
    expect(x.records.at(-1)?.title).toBe("Board Agenda - Minutes - March 21, 2019");
    expect(x.next).toBe(
      "https://www.neorsd.org/document-library/?PAGE=3&BUDGETCENTER_ID=NULL&CONTENT_TYPE_ID=NULL&LibraryItem=agenda&Active=1&Archive=1&Search=Submit",
    );
  });

  it("P6: Summit County Board of Control: 136 agendas of 410 /BOC/ links, MM-DD-YY link text as date; a link two rows share is two records", () => {
    const base =
      "https://co.summitoh.net/index.php/offices/boards-agencies-a-commissions/board-of-control";
    const body = fx("ohio-county-html/OH_summit_county_board_of_control.html");
    const agendas = extractPage(body, base, { items: "a[href*='/BOC/Agenda/']", date: ":scope" });
    expect(agendas.records).toHaveLength(136);
    expect(agendas.records[0]).toMatchObject({
      title: "10-02-19",
      date: "2019-10-02",
      url: "https://co.summitoh.net/images/stories/Finance/BOC/Agenda/19Agenda/10-02-19BOCAGENDA.pdf",
    });
    expect(agendas.records.at(-1)?.date).toBe("2017-01-04");
    expect(agendas.records.filter((r) => r.date?.startsWith("2018"))).toHaveLength(49);
    // 410 /BOC/ anchors (PROVENANCE); two anchors have no text (a blank `&nbsp;` link beside
    // the real one), so 408 records: a record needs a title. One href appears twice: the minutes
    // of 02-28-18 link the 03-07-18 file, two rows the page shows, two records, each known by
    // the link and its own title (record-id.ts `splitSharedLinks`), neither merged away.
    const all = extractPage(body, base, { items: "a[href*='/BOC/']" }).records;
    expect(all).toHaveLength(408);
    const shared =
      "https://co.summitoh.net/images/stories/Finance/BOC/Minutes/18minutes/03-07-18BOCMINUTES.pdf";
    expect(
      all.filter((r) => r.url === shared).map((r) => [r.title, r.id.startsWith(`${shared}#`)]),
    ).toEqual([
      ["03-07-18", true],
      ["02-28-18", true],
    ]);
  });

  it("Cuyahoga Board of Elections: 30 events, 9 titled Board Meeting, first at 9:30 EDT", () => {
    const recipe: PageRecipe = {
      items: "ul.es-item-list > li.es-item",
      title: ".es-item-title",
      link: ".es-item-title a",
      date: ".meta",
    };
    const x = extractPage(
      fx("ohio-county-html/OH_cuyahoga_board_of_elections_calendar.html"),
      "https://boe.cuyahogacounty.gov/calendar?pageSize=96&it=Current+Events",
      recipe,
    );
    expect(x.records).toHaveLength(30);
    expect(x.records[0]).toMatchObject({
      title: "Cleveland Department of Aging Event",
      date: "2024-07-11T09:00:00-04:00",
    });
    const board = x.records.filter((r) => r.title === "Board Meeting");
    expect(board).toHaveLength(9);
    expect(board[0]?.date).toBe("2024-07-25T09:30:00-04:00");
    expect(x.records.at(-1)).toMatchObject({ title: "Christmas (Office Closed)" });
    expect(x.records.at(-1)?.date).toMatch(/^2024-12-25/);
  });
});

describe("extractPage on Ohio city pages (PROVENANCE counts)", () => {
  it("METRO RTA Akron: 13 board rows and 12 committee rows; a special meeting's date inside its text", () => {
    const recipe: PageRecipe = {
      items: "table.table-purple tbody tr",
      title: "td:first-child",
      date: "td:first-child",
      link: "td:nth-child(2) a",
    };
    const x = extractPage(
      fx("ohio-city-html/OH_akron_metro_rta_board_meetings.html"),
      "https://www.akronmetro.org/metro-board-meetings.aspx",
      recipe,
    );
    expect(x.records).toHaveLength(25);
    expect(x.records[0]).toEqual({
      id: "https://www.akronmetro.org/Data/Sites/2/board-packet-1.30.24.pdf",
      title: "January 30, 2024",
      date: "2024-01-30",
      url: "https://www.akronmetro.org/Data/Sites/2/board-packet-1.30.24.pdf",
    });
    expect(x.records[1]?.title).toMatch(/^SPECIAL MEETING Tuesday, February 20, 2024 3:30 pm/);
    expect(x.records[1]?.date).toBe("2024-02-20T15:30:00-05:00");
    // December's row has no packet yet: no link, a hashed id.
    const dec = x.records[12];
    expect(dec?.title).toBe("December 17, 2024");
    expect(dec?.url).toBeUndefined();
    expect(dec?.id).toMatch(/^h:[0-9a-f]{16}$/);
  });

  it("Cleveland Landmarks: 44 PDF links, 43 under /landmark/agenda/2021/PDF/, January 14 first", () => {
    const body = fx("ohio-city-html/OH_cleveland_landmarks_agenda.html");
    const url = "https://planning.clevelandohio.gov/landmark/agenda.php";
    const all = extractPage(body, url, { items: "a[href$='.pdf'], a[href$='.PDF']" });
    expect(all.records).toHaveLength(44);
    const x = extractPage(body, url, { items: "a[href*='/landmark/agenda/2021/PDF/']" });
    expect(x.records).toHaveLength(43);
    expect(x.records[0]).toMatchObject({
      title: "January 14",
      url: "https://planning.clevelandohio.gov/landmark/agenda/2021/PDF/CLC-1-14-2021-AGENDA.pdf",
    });
    expect(all.records.find((r) => r.url?.endsWith("Landmarks-11-11-2021.pdf"))?.title).toBe(
      "November 11",
    );
  });

  it("P6: Cleveland Design Review: 136 agenda PDF links, one repeated as it was, one shared by two meetings, so 135 records; January 15 first", () => {
    const x = extractPage(
      fx("ohio-city-html/OH_cleveland_design_review_schedule.html"),
      "https://planning.clevelandohio.gov/designreview/schedule.php",
      {
        items: "a[href*='/designreview/drcagenda/2021/PDF/']",
      },
    );
    // One presentation repeated as it was: one record. NE_Agenda_10-19-21.pdf is linked by
    // "October 19" and "November 2": two meetings the page lists, two records.
    expect(x.records).toHaveLength(135);
    expect(
      x.records.filter((r) => r.url?.endsWith("/NE_Agenda_10-19-21.pdf")).map((r) => r.title),
    ).toEqual(["October 19", "November 2"]);
    expect(x.records[0]).toMatchObject({
      title: "January 15",
      url: "https://planning.clevelandohio.gov/designreview/drcagenda/2021/PDF/CPC-Agenda-WebEx-meeting-011521.pdf",
    });
  });
});

describe("extractPage mechanics", () => {
  it("reads the charset from <meta>, honours <base href>, attributes via @, and drops bad links", () => {
    const html = `<html><head><meta charset="windows-1252"><base href="https://files.example.gov/docs/"></head><body>
<ul><li data-id="n1"><a href="a.pdf">Caf\u00e9 notice</a><time datetime="2026-03-08T03:00">Mar 8</time></li>
<li data-id="n2"><a href="javascript:void(0)">No link</a></li></ul><a class="older" href="?page=2">Older</a></body></html>`;
    const bytes = new Uint8Array([...html].map((c) => c.charCodeAt(0)));
    const x = extractPage(bytes, "https://www.example.gov/notices", {
      items: "li",
      id: "@data-id",
      title: "a",
      date: "time@datetime",
      next: "a.older",
    });
    expect(x.records).toEqual([
      {
        id: "n1",
        title: "Café notice",
        date: "2026-03-08T03:00:00-04:00",
        url: "https://files.example.gov/docs/a.pdf",
      },
      { id: "n2", title: "No link" },
    ]);
    expect(x.next).toBe("https://files.example.gov/docs/?page=2");
  });

  it("says why a page gave nothing, and never offers this same page as next (P7 ends)", () => {
    const x = extractPage(
      enc(`<p>No Meetings</p><a class="n" href="/list">next</a>`),
      "https://x.gov/list",
      { items: "li", next: "a.n" },
    );
    expect(x).toEqual({ records: [], note: "no items matched the recipe" });
  });
});

describe("extractPage: text as a browser shows it, links as a browser follows them (outside tester)", () => {
  const recipe: PageRecipe = { items: "tr.r", title: "td.t a", link: "td.t a", date: "td.d" };

  it("P6: a <br> and the edges of block elements separate words in titles and dates; inline tags do not", () => {
    const html = `<html><body><table>
<tr class="r"><td class="t"><a href="/docs/a.pdf">Regular Council Meeting<br>Agenda</a></td><td class="d">11/03/2026</td></tr>
<tr class="r"><td class="t"><a href="/docs/b.pdf"><div>Board of Zoning Appeals</div><div>Minutes</div></a></td><td class="d">Regular Meeting<br>11/04/2026</td></tr>
<tr class="r"><td class="t"><a href="/docs/c.pdf"><p>Bid 2026-14</p><p>Road Salt</p></a></td><td class="d">11/05/2026</td></tr>
<tr class="r"><td class="t"><a href="/docs/d.pdf"><b>Re</b>gular <span>Meet</span>ing<h3>Special</h3>Session</a></td><td class="d"><span>Nov</span> 6, 2026</td></tr>
</table></body></html>`;
    const x = extractPage(enc(html), "http://x.example/list", recipe);
    expect(x.records.map((r) => [r.title, r.date])).toEqual([
      ["Regular Council Meeting Agenda", "2026-11-03"],
      ["Board of Zoning Appeals Minutes", "2026-11-04"],
      ["Bid 2026-14 Road Salt", "2026-11-05"],
      ["Regular Meeting Special Session", "2026-11-06"],
    ]);
    // The item's own text (no title selector) is separated the same way, cell from cell.
    const own = extractPage(enc(html), "http://x.example/list", { items: "tr.r" });
    expect(own.records[0]?.title).toBe("Regular Council Meeting Agenda 11/03/2026");
  });

  it("P6: an href that wraps with a newline or tab is the link a browser follows (tab, CR, LF removed)", () => {
    const html = `<table><tr class="r"><td class="t"><a href="/docs/Agenda
2026-11-03.pdf">Agenda</a></td><td class="d">11/03/2026</td></tr>
<tr class="r"><td class="t"><a href="\t/docs/Minutes\r\n\t2026-11-03.pdf ">Minutes</a></td></tr>
<tr class="r"><td class="t"><a href="/docs/Bid 14.pdf">Bid</a></td></tr></table>`;
    const x = extractPage(enc(html), "http://x.example/list", recipe);
    expect(x.records.map((r) => r.url)).toEqual([
      "http://x.example/docs/Agenda2026-11-03.pdf",
      "http://x.example/docs/Minutes2026-11-03.pdf",
      "http://x.example/docs/Bid%2014.pdf",
    ]);
  });

  it("P6: a page whose <meta> says UTF-16 but has no BOM is read as UTF-8 and gives its records", () => {
    const page = `<!DOCTYPE html><html><head><meta http-equiv="Content-Type" content="text/html; charset=utf-16"></head><body><table><tr class="r"><td><a href="/bid/1">Road salt bid</a></td></tr></table></body></html>`;
    const x = extractPage(enc(page), "http://x.example/meta-utf16", {
      items: "tr.r",
      title: "td a",
      link: "td a",
    });
    expect(x.records).toEqual([
      { id: "http://x.example/bid/1", title: "Road salt bid", url: "http://x.example/bid/1" },
    ]);
  });
});
