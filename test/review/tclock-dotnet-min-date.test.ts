import { describe, expect, it } from "vitest";
import { recordDay } from "../../src/policy/record-date.js";
import { toIsoDate } from "../../src/sources/dates.js";
import { extractApi } from "../../src/sources/extract/api.js";
import { dateEt } from "../../src/web/public/format.js";

/**
 * Outside tester (tclock): records' dates read from real answers. .NET JSON APIs (the Cuyahoga
 * County Council calendar in test/fixtures is one) write dates as /Date(ms)/, and write a date
 * that was never filled in as DateTime.MinValue, /Date(-62135596800000)/ (0001-01-01T00:00Z).
 * src/sources/dates.ts promises "an unreadable date is undefined, and the record simply has no
 * date"; a date it does give is ISO 8601 with a real offset (record-date.ts, the store's instant).
 */
const enc = (s: string) => new TextEncoder().encode(s);
const ISO =
  /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}:\d{2}(?:\.\d{3})?(?:Z|[+-](?:0\d|1[0-4]):[0-5]\d))?$/;

describe("tclock: a .NET API's empty date (DateTime.MinValue)", () => {
  it("P6: /Date(-62135596800000)/ gives the record no date, or a real one, never an offset of 16,663,795 hours shown as the record's date", () => {
    const answer = {
      value: [
        { Title: "Council Meeting", Start: "/Date(1796601600000)/", Id: "a", EventUrl: "/a" },
        {
          Title: "Meeting to be scheduled",
          Start: "/Date(-62135596800000)/",
          Id: "b",
          EventUrl: "/b",
        },
      ],
    };
    const x = extractApi(enc(JSON.stringify(answer)), "https://council.example.gov/api/calendar", {
      items: "value",
      title: "Title",
      date: "Start",
      id: "Id",
      link: "EventUrl",
    });
    expect(x.records).toHaveLength(2);
    expect(x.records[0]?.date).toBe("2026-12-06T19:00:00-05:00");
    const empty = x.records[1]?.date;
    // On main: "1901-12-31T19:04:00+16663795:04" (Date.UTC reads the year 1 as 1901), which
    // the directory shows as the record's date, as it is (dateEt).
    if (empty !== undefined) {
      expect(empty).toMatch(ISO);
      expect(recordDay(empty)).toBeDefined();
    }
    expect(dateEt(empty ?? null)).not.toContain("+16663795");
    // The reader alone: the year-1 instant is no date, or a well-formed one.
    const alone = toIsoDate("/Date(-62135596800000)/");
    if (alone !== undefined) expect(alone).toMatch(ISO);
  });

  it('P6: /Date(253402300799999)/ (DateTime.MaxValue, a .NET API\'s "no date") is no date, as 12/31/9999 written out is none', () => {
    // The text forms refuse a year past 2200 (dates.ts `valid`): no record is dated 9999.
    expect(toIsoDate("12/31/9999 11:59 PM")).toBeUndefined();
    expect(toIsoDate("9999-12-31T23:59:59Z")).toBeUndefined();
    // The .NET form of the same instant, on main "9999-12-31T18:59:59.999-05:00".
    expect(toIsoDate("/Date(253402300799999)/")).toBeUndefined();
    // A year-1 instant, the other end, as the text forms refuse a year before 1900.
    expect(toIsoDate("0001-01-01T00:00:00Z")).toBeUndefined();
    expect(toIsoDate("/Date(-62135596800000)/")).toBeUndefined();
  });
});
