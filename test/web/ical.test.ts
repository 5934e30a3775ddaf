import { describe, expect, it } from "vitest";
import type { NewRecord } from "../../src/store/read/new-records.js";
import { icalText, renderIcal } from "../../src/web/public/ical.js";

const record = (title: string): NewRecord => ({
  sourceId: "s",
  recordId: "r",
  title,
  date: "2026-12-08",
  url: null,
  kind: null,
  firstSeenNight: "2026-12-02",
  firstSeenAt: "2026-12-03T08:00:00.000Z",
  sourceName: "Meetings",
  sourceRecords: "meetings",
  governmentId: "g",
  governmentName: "Village of Test",
  governmentKind: "village",
  county: "Franklin",
});

describe("iCalendar text (RFC 5545 §3.3.11)", () => {
  it("keeps characters outside the BMP (a surrogate pair) whole, and removes only lone surrogates and controls", () => {
    expect(icalText("Meeting 😀 at 𝔸 hall")).toBe("Meeting 😀 at 𝔸 hall");
    expect(icalText("lone \uD800 high, lone \uDC00 low, \u0001 control")).toBe(
      "lone  high\\, lone  low\\,  control",
    );
    const ics = renderIcal({
      origin: "https://directory.example",
      name: "Upcoming",
      items: [record(`${"Budget hearing ".repeat(4)}😀 and more 😀😀😀 words`)],
      now: Date.parse("2026-12-03T09:00:00.000Z"),
    });
    expect(ics).not.toContain("\uFFFD");
    const unfolded = ics.replace(/\r\n /g, "");
    expect(unfolded).toContain(
      `SUMMARY:${"Budget hearing ".repeat(4)}😀 and more 😀😀😀 words\r\n`,
    );
    // Folding counts octets and never splits a character.
    for (const line of ics.split("\r\n")) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(75);
    expect(Buffer.from(ics, "utf8").toString("utf8")).toBe(ics);
  });
});
