import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NewRecord } from "../../src/store/read/new-records.js";
import { createApp } from "../../src/web/app.js";
import { icalText, renderIcal } from "../../src/web/public/ical.js";
import { buildFixture, type Fixture, NOW, ORIGIN } from "./fixture.js";

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

describe("the calendar over HTTP", () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await buildFixture();
  });
  afterAll(async () => {
    await f?.close();
  });

  it("the same records make the same calendar, whatever the clock says: its ETag holds and a client's If-None-Match gets 304", async () => {
    const at = (now: number) => createApp({ db: f.store.db, now: () => now, origin: ORIGIN });
    const first = await at(NOW).request("/meetings.ics?county=Summit");
    const etag = first.headers.get("etag");
    const text = await first.text();
    expect(text).toContain("BEGIN:VEVENT");
    // A minute later (the same day, the same records): the same bytes.
    const later = at(NOW + 60_000);
    const again = await later.request("/meetings.ics?county=Summit");
    expect(await again.text()).toBe(text);
    expect(again.headers.get("etag")).toBe(etag);
    const cached = await later.request("/meetings.ics?county=Summit", {
      headers: { "if-none-match": etag ?? "" },
    });
    expect(cached.status).toBe(304);
    // Each event is stamped with when its record was first seen (RFC 5545 §3.8.7.2).
    const stamps = text.split("\r\n").filter((l) => l.startsWith("DTSTAMP:"));
    expect(stamps.length).toBeGreaterThan(0);
    for (const s of stamps) expect(s).toMatch(/^DTSTAMP:20261106T04\d{4}Z$/);
  });
});
