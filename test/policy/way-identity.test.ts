import { describe, expect, it } from "vitest";
import {
  newOnSwitchedList,
  pairAcrossWays,
  switchedListSaysNew,
  type WayRow,
  wayLink,
  wayShown,
} from "../../src/policy/way-identity.js";

const row = (
  id: string,
  title: string,
  date: string | null,
  url: string | null = null,
): WayRow => ({
  id,
  title,
  date,
  url,
});

describe("one record across ways in (policy)", () => {
  it("P6: on the same list read by a mended recipe, a linkless record read on another day is the one stored under its title, one to one only; across two ways it is not", () => {
    const stored = [
      row("h:old1", "Notice of hearing 1", "2026-12-11"),
      row("h:old2", "Regular meeting", "2026-12-12"),
      row("h:old3", "Regular meeting", "2026-12-13"),
      row("h:old4", "Bid 4", "2026-12-14", "https://city.gov/bid/4"),
    ];
    const tonight = [
      row("h:new1", "NOTICE of hearing 1", "2026-11-01"),
      row("h:new2", "Regular meeting", "2026-11-02"),
      row("h:new4", "Bid 4", "2026-11-04", "https://city.gov/bids/4"),
    ];
    const pairs = pairAcrossWays(tonight, tonight, stored, true);
    // A title two stored records share pairs nothing; two links that differ are two records.
    expect([...pairs].map(([id, s]) => [id, s.id])).toEqual([["h:new1", "h:old1"]]);
    expect(pairAcrossWays(tonight, tonight, stored).size).toBe(0);
  });

  it("P6: by title alone, only a record the list showed at its last read is paired: one held under that title that left the list before is not, and of two sharing a title the one still shown is", () => {
    const stored = [
      row("h:2025", "Annual budget hearing", "2025-12-01"),
      row("h:old1", "Notice of hearing 1", "2026-12-11"),
      row("h:m1", "Regular meeting", "2026-12-12"),
      row("h:m0", "Regular meeting", "2025-12-12"),
    ];
    const tonight = [
      row("h:2026", "Annual budget hearing", "2026-11-22"),
      row("h:new1", "Notice of hearing 1", "2026-11-01"),
      row("h:new2", "Regular meeting", "2026-11-02"),
    ];
    const shown = new Set(["h:old1", "h:m1"]);
    const pairs = pairAcrossWays(tonight, tonight, stored, shown);
    expect([...pairs].map(([id, s]) => [id, s.id])).toEqual([
      ["h:new1", "h:old1"],
      ["h:new2", "h:m1"],
    ]);
  });

  it("P6: a link is the same whatever its scheme, www. or host case; its path and query are not", () => {
    expect(wayLink("http://WWW.City.gov/a?b=1#top")).toBe(wayLink("https://city.gov/a?b=1"));
    expect(wayLink("https://city.gov/a?b=1")).not.toBe(wayLink("https://city.gov/a?b=2"));
    expect(wayLink("https://city.gov/A")).not.toBe(wayLink("https://city.gov/a"));
    expect(wayLink("mailto:clerk@city.gov")).toBeUndefined();
    expect(wayLink(null)).toBeUndefined();
  });

  it("P6: a day and title is the same whatever the case, spacing, punctuation, accents or time of day", () => {
    expect(wayShown("PARKS  COMMISSION", "2026-10-20")).toBe(
      wayShown("Parks Commission.", "2026-10-20T18:00:00-04:00"),
    );
    expect(wayShown("Café Permit", "2026-10-20")).toBe(wayShown("cafe permit", "2026-10-20"));
    expect(wayShown("Parks Commission", "2026-10-21")).not.toBe(
      wayShown("Parks Commission", "2026-10-20"),
    );
    expect(wayShown("Parks", null)).toBeUndefined();
    expect(wayShown("...", "2026-10-20")).toBeUndefined();
  });

  it("P4, P6: pairs by link, else (one of them without a link) by day and title, one to one only", () => {
    const stored = [
      row("101", "Council", "2026-11-02", "https://c.gov/m/101"),
      row("102", "Zoning", "2026-10-28"),
      row("103", "Parks", "2026-10-20", "https://c.gov/m/103"),
      row("104", "Hearing", "2026-11-03"),
      row("105", "Levy", "2026-11-01", "https://c.gov/m/105"),
    ];
    const tonight = [
      row("https://www.c.gov/m/101", "COUNCIL", "2026-11-02", "https://www.c.gov/m/101"),
      row("h:z", "ZONING", "2026-10-28"),
      // Its link differs from the stored record's: two records, whatever its day and title.
      row("https://c.gov/docs/parks.pdf", "Parks", "2026-10-20", "https://c.gov/docs/parks.pdf"),
      // Two rows of one day and title: neither is told to be the stored one.
      row("h:a", "Hearing", "2026-11-03"),
      row("h:b", "Hearing", "2026-11-03"),
      // No link tonight, the stored one has one: by its day and title.
      row("h:l", "Levy", "2026-11-01"),
      row("h:new", "Library", "2026-11-12"),
    ];
    const pairs = pairAcrossWays(tonight, tonight, stored);
    expect(Object.fromEntries([...pairs].map(([id, s]) => [id, s.id]))).toEqual({
      "https://www.c.gov/m/101": "101",
      "h:z": "102",
      "h:l": "105",
    });
  });

  it("P6: a link two stored records show pairs neither by it", () => {
    const stored = [
      row("1", "Agenda", "2026-11-02", "https://c.gov/cal"),
      row("2", "Minutes", "2026-11-02", "https://c.gov/cal"),
    ];
    const pairs = pairAcrossWays(
      [row("https://c.gov/cal", "Notice", "2026-11-09", "https://c.gov/cal")],
      [row("https://c.gov/cal", "Notice", "2026-11-09", "https://c.gov/cal")],
      stored,
    );
    expect(pairs.size).toBe(0);
  });

  it("P7: a switched way's first read says new what the source did not hold only when most of its first page was held", () => {
    expect(switchedListSaysNew(3, 5)).toBe(true);
    expect(switchedListSaysNew(1, 2)).toBe(false);
    expect(switchedListSaysNew(2, 6)).toBe(false);
    expect(switchedListSaysNew(0, 0)).toBe(false);
  });

  it("P7: of those, a row dated before every held row with a day is beyond the other way's window: not new", () => {
    const at = (id: string, date: string | null, held: boolean) => ({ id, date, held });
    const held = [
      at("a", "2026-11-20", true),
      at("c", "2026-11-18", true),
      at("d", null, true),
      at("e", "2026-11-15", true),
      at("b", "2026-11-10T18:00:00-05:00", true),
    ];
    expect(
      newOnSwitchedList([
        at("new", "2026-11-25", false),
        ...held,
        at("same-day", "2026-11-10", false),
        at("older", "2026-11-09", false),
        at("undated", null, false),
      ]).sort(),
    ).toEqual(["new", "same-day", "undated"]);
    // No held row with a day: the page alone says it, as before.
    expect(
      newOnSwitchedList([at("a", null, true), at("b", null, true), at("old", "2020-01-01", false)]),
    ).toEqual(["old"]);
    // Most not held: nothing new.
    expect(newOnSwitchedList([at("a", "2026-11-20", true), at("x", "2026-11-21", false)])).toEqual(
      [],
    );
  });
});
