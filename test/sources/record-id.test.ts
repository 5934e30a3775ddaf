import { describe, expect, it } from "vitest";
import {
  absoluteUrl,
  cleanText,
  dedupeRecords,
  recordId,
  withoutMarkup,
} from "../../src/sources/record-id.js";

describe("record helpers", () => {
  it("recordId prefers the platform id, then the link, then a hash of title and date", () => {
    expect(recordId({ platformId: " 42 ", url: "https://a.gov/x", title: "T" })).toBe("42");
    expect(recordId({ url: "https://a.gov/x", title: "T" })).toBe("https://a.gov/x");
    const h = recordId({ title: "Council", date: "2026-01-02" });
    expect(h).toMatch(/^h:[0-9a-f]{16}$/);
    expect(recordId({ title: "Council", date: "2026-01-02" })).toBe(h);
    expect(recordId({ title: "Council", date: "2026-01-03" })).not.toBe(h);
    // sha256("Council|") — fixed so the id is stable across versions.
    expect(recordId({ title: "Council" })).toBe("h:10d65850c92d2f4c");
  });

  it("P6: absoluteUrl resolves relative links and refuses non-http(s) schemes", () => {
    const base = "https://www.example.gov/AgendaCenter/Search/?x=1";
    expect(absoluteUrl("/ViewFile/Agenda/_01022026-1", base)).toBe(
      "https://www.example.gov/ViewFile/Agenda/_01022026-1",
    );
    expect(absoluteUrl("minutes.pdf#page=2", base)).toBe(
      "https://www.example.gov/AgendaCenter/Search/minutes.pdf",
    );
    expect(absoluteUrl(" //cdn.example.gov/a.pdf ", base)).toBe("https://cdn.example.gov/a.pdf");
    expect(absoluteUrl("a&amp;b=1", base)).toBe(
      "https://www.example.gov/AgendaCenter/Search/a&b=1",
    );
    for (const bad of [
      "javascript:void(0)",
      "JavaScript:alert(1)",
      "mailto:clerk@x.gov",
      "data:text/html,hi",
      "tel:5551212",
      "ftp://x.gov/f",
      "#top",
      "",
      undefined,
    ]) {
      expect(absoluteUrl(bad, base)).toBeUndefined();
    }
  });

  it("dedupeRecords keeps the first of each id", () => {
    const rs = [
      { id: "a", title: "first" },
      { id: "b", title: "b" },
      { id: "a", title: "second" },
    ];
    expect(dedupeRecords(rs)).toEqual([
      { id: "a", title: "first" },
      { id: "b", title: "b" },
    ]);
  });

  it("P6: a list's rows that share a link but show different records are each a record; the same row repeated is one; a platform's id is never split", () => {
    const L = "https://a.gov/meetings";
    const rs = [
      { id: L, url: L, title: "Council, Dec 8", date: "2026-12-08" },
      { id: "https://a.gov/x.pdf", url: "https://a.gov/x.pdf", title: "Bid" },
      { id: L, url: L, title: "Council, Dec 8", date: "2026-12-08" }, // a "featured" repeat
      { id: L, url: L, title: "Council, Dec 1", date: "2026-12-01" },
      { id: "p1", url: L, title: "Platform item" },
      { id: "p1", url: L, title: "Platform item, renamed" },
    ];
    const out = dedupeRecords(rs, { splitSharedLinks: true });
    expect(out.map((r) => r.title)).toEqual([
      "Council, Dec 8",
      "Bid",
      "Council, Dec 1",
      "Platform item",
    ]);
    // Known by the link and their own title and date: the same ids every night.
    expect(out[0]?.id).toMatch(/^https:\/\/a\.gov\/meetings#[0-9a-f]{16}$/);
    expect(out[2]?.id).toMatch(/^https:\/\/a\.gov\/meetings#[0-9a-f]{16}$/);
    expect(out[0]?.id).not.toBe(out[2]?.id);
    expect(
      dedupeRecords(rs.slice().reverse(), { splitSharedLinks: true })
        .map((r) => r.id)
        .sort(),
    ).toEqual(out.map((r) => r.id).sort());
    // A link one record shows keeps its id; without the option, the first of each id is kept.
    expect(out[1]?.id).toBe("https://a.gov/x.pdf");
    expect(dedupeRecords(rs)).toHaveLength(3);
  });

  it("P6, P11: a split record's id is made of its row's own date, not the page's reading: a row added elsewhere that turns the page day-first changes no id", async () => {
    const { extractPage } = await import("../../src/sources/extract/page.js");
    const page = (rows: string[]) =>
      new TextEncoder().encode(
        `<ul>${rows.map((r) => `<li><a href="/meeting">${r.split("|")[0]}</a> <span>${r.split("|")[1]}</span></li>`).join("")}</ul>`,
      );
    const recipe = { items: "li", title: "a", link: "a", date: "span" };
    const ids = (rows: string[]) =>
      extractPage(page(rows), "https://a.gov/list", recipe)
        .records.filter((r) => r.url === "https://a.gov/meeting")
        .map((r) => r.id);
    const before = ids(["Agenda|01/02/2026", "Minutes|01/02/2026"]);
    expect(before).toHaveLength(2);
    expect(ids(["Agenda|01/02/2026", "Minutes|01/02/2026", "Other|13/02/2026"])).toEqual(
      expect.arrayContaining(before),
    );
  });

  it("cleanText collapses whitespace and decodes leftover entities", () => {
    expect(cleanText("  Board\n\t of&nbsp;Control \u200b")).toBe("Board of Control");
    expect(cleanText("Parks &amp;amp; Rec &#8211; &#x2019;26")).toBe("Parks & Rec – ’26");
    expect(cleanText("&bogus; stays")).toBe("&bogus; stays");
  });
});

describe("withoutMarkup", () => {
  it("P6: markup is taken out, a < or > of the text stays, and a title of a million unclosed tags is read in one pass", () => {
    expect(withoutMarkup("<b>Notice</b> of <i>bids</i>")).toBe("Notice of bids");
    expect(withoutMarkup("Purchases < $50,000 and > $10,000")).toBe(
      "Purchases < $50,000 and > $10,000",
    );
    expect(withoutMarkup("a <!-- c --> b <?pi x?> c")).toBe("a b c");
    // Only elements are markup: a `<word>` of the title itself stays (tester-public D4).
    expect(withoutMarkup("Road Closure on Elm Street <Phase 2> & more")).toBe(
      "Road Closure on Elm Street <Phase 2> & more",
    );
    expect(withoutMarkup('<span class="x">Bid</span><br/>No. 7<o:p></o:p> <BR>')).toBe("Bid No. 7");
    // An element's name with words after it, no attribute, is text too; so is a `<!` that opens
    // no comment; CDATA keeps its text; custom elements and Word's `xml` are markup.
    for (const own of [
      "Ordinance amending <Section 2>",
      "Title VI plan <Title VI>",
      "Meeting <Time TBD>",
      "Agenda <!DRAFT> v2",
      "Budget <Item:Parks>",
    ])
      expect(withoutMarkup(own)).toBe(own);
    expect(withoutMarkup("<![CDATA[Agenda]]> for <mat-icon>x</mat-icon> <xml>Nov 5</xml>")).toBe(
      "Agenda for x Nov 5",
    );
    expect(withoutMarkup('<iframe src="x"></iframe><button type=submit>Go</button>')).toBe("Go");
    // Quadratic, this would scan the rest of the text at each of the 10^6 `<a`: minutes, not ms.
    const unclosed = "<a".repeat(1_000_000);
    expect(withoutMarkup(unclosed)).toBe(unclosed);
    expect(withoutMarkup(`<b>x</b>${unclosed}`)).toBe(`x ${unclosed}`.trim());
  });
});
