import { describe, expect, it } from "vitest";
import { preset, run } from "./helpers.js";

describe("civicplus-bids preset", () => {
  it("Lake Hamilton's Bids.aspx with no open bids: zero records, the page's own words as the note", () => {
    const x = run(
      "civicplus-bids",
      "civicplus-bids/FL_lakehamilton_Bids.aspx_no_open_bids.html",
      "https://www.townoflakehamilton.com/Bids.aspx",
    );
    expect(x.records).toEqual([]);
    expect(x.note).toBe("There are no open bid postings at this time.");
  });

  it("P6: bid links (Bids.aspx?bidID=n) are records by bidID, not fetched", () => {
    // No populated Bids.aspx was found in any crawled repo (PROVENANCE); this checks the
    // link rule the listings use, on a minimal page.
    const html =
      '<html><body><a href="/Bids.aspx?bidID=123">RFP 2026-01 Paving</a><a href="Bids.aspx?bidID=123">RFP 2026-01 Paving</a></body></html>';
    const x = preset("civicplus-bids").extract(
      new TextEncoder().encode(html),
      "https://www.example.gov/Bids.aspx",
    );
    expect(x.records).toEqual([
      {
        id: "bid:123",
        title: "RFP 2026-01 Paving",
        url: "https://www.example.gov/Bids.aspx?bidID=123",
        kind: "bids",
      },
    ]);
  });

  it("P6: a bid's title broken by <br> or a block keeps its words apart, as a browser shows it", () => {
    const html =
      '<html><body><a href="/Bids.aspx?bidID=7">Bid 2026-14<br>Road Salt</a><a href="/Bids.aspx?bidID=8"><div>RFP 9</div><div>Paving</div></a></body></html>';
    const x = preset("civicplus-bids").extract(
      new TextEncoder().encode(html),
      "https://www.example.gov/Bids.aspx",
    );
    expect(x.records.map((r) => r.title)).toEqual(["Bid 2026-14 Road Salt", "RFP 9 Paving"]);
  });
});
