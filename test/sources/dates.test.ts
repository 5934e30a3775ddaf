import { describe, expect, it } from "vitest";
import { toIsoDate } from "../../src/sources/dates.js";

describe("toIsoDate", () => {
  it.each([
    ["Aug 23, 2022", "2022-08-23"],
    ["08/23/2022", "2022-08-23"],
    ["8/3/22", "2022-08-03"],
    ["2022-08-23", "2022-08-23"],
    ["20220823", "2022-08-23"],
    ["Tuesday, February 17, 2026", "2026-02-17"],
    ["Sept 5, 2023", "2023-09-05"],
    ["September 5th, 2023", "2023-09-05"],
    ["23 Aug 2022", "2022-08-23"],
  ])("reads the date-only form %j as %s", (input, want) => {
    expect(toIsoDate(input)).toBe(want);
  });

  it.each([
    ["August 23, 2022 6:00 PM", "2022-08-23T18:00:00-04:00"],
    ["January 13, 2026 at 12:30 a.m.", "2026-01-13T00:30:00-05:00"],
    ["01/13/2026 9:05 AM", "2026-01-13T09:05:00-05:00"],
    ["Tue, 23 Aug 2022 18:00:00 -0400", "2022-08-23T18:00:00-04:00"],
    ["Wed, 02 Oct 2002 13:00:00 GMT", "2002-10-02T13:00:00Z"],
    ["Wed, 02 Oct 2002 13:00:00 EST", "2002-10-02T13:00:00-05:00"],
    ["2022-08-23T18:00:00Z", "2022-08-23T18:00:00Z"],
    ["2022-08-23T18:00:00.250+0530", "2022-08-23T18:00:00.250+05:30"],
    ["/Date(1700000000000)/", "2023-11-14T17:13:20-05:00"],
  ])("reads the date-time %j as %s", (input, want) => {
    expect(toIsoDate(input)).toBe(want);
  });

  it("uses the New York offset in force at that instant, across both DST changes", () => {
    // 2026: DST begins Sun Mar 8 02:00 EST, ends Sun Nov 1 02:00 EDT.
    expect(toIsoDate("2026-03-07 10:00")).toBe("2026-03-07T10:00:00-05:00");
    expect(toIsoDate("2026-03-08 01:59")).toBe("2026-03-08T01:59:00-05:00");
    expect(toIsoDate("2026-03-08 03:00")).toBe("2026-03-08T03:00:00-04:00");
    expect(toIsoDate("2026-10-31 23:00")).toBe("2026-10-31T23:00:00-04:00");
    expect(toIsoDate("2026-11-01 03:00")).toBe("2026-11-01T03:00:00-05:00");
    // The nonexistent 02:30 takes the offset before the change; the doubled 01:30 the first.
    expect(toIsoDate("2026-03-08 02:30")).toBe("2026-03-08T02:30:00-05:00");
    expect(toIsoDate("2026-11-01 01:30")).toBe("2026-11-01T01:30:00-04:00");
    // An instant is shown in the zone at that instant.
    expect(toIsoDate(`/Date(${Date.UTC(2026, 6, 1, 12)})/`)).toBe("2026-07-01T08:00:00-04:00");
  });

  it("takes another zone and day-first order when told", () => {
    expect(toIsoDate("2026-07-01 12:00", { zone: "America/Chicago" })).toBe(
      "2026-07-01T12:00:00-05:00",
    );
    expect(toIsoDate("03/04/2026", { order: "dmy" })).toBe("2026-04-03");
    expect(toIsoDate("03/04/2026")).toBe("2026-03-04");
  });

  it.each([
    "",
    "garbage",
    "13/13/2022",
    "Feb 30, 2022",
    "2022-02-29",
    "Smarch 3, 2022",
    "Aug 23, 2022 and then some",
    "25:00 08/23/2022",
    "/Date(abc)/",
    "99999999",
  ])("returns undefined for %j and never throws", (input) => {
    expect(toIsoDate(input)).toBeUndefined();
  });

  it("never throws on any string", async () => {
    const fc = await import("fast-check");
    fc.assert(
      fc.property(fc.string(), (s) => {
        const r = toIsoDate(s);
        return r === undefined || /^\d{4}-\d{2}-\d{2}/.test(r);
      }),
      { numRuns: 500 },
    );
  });
});

describe("findDate", () => {
  it("takes the first date written inside a longer text, with its time when it reads", async () => {
    const { findDate } = await import("../../src/sources/extract/find-date.js");
    expect(findDate("SPECIAL MEETING Tuesday, February 20, 2024 3:30 pm 416 Kenmore Blvd.")).toBe(
      "2024-02-20T15:30:00-05:00",
    );
    expect(findDate("Board Agenda - Minutes - May 16, 2019")).toBe("2019-05-16");
    expect(findDate("July 11, 2024 9:00 AM - 11:00 AM")).toBe("2024-07-11T09:00:00-04:00");
    expect(findDate("01/29/24 - Board of Control Meeting")).toBe("2024-01-29");
    expect(findDate("Posted 2026-03-09, revised")).toBe("2026-03-09");
    expect(findDate("Council Meeting")).toBeUndefined();
  });
});

describe("day-first or month-first, decided by the values (P6: the list's own dates)", () => {
  it("a part over 12 decides for its value, and the time is kept", async () => {
    const { findDate } = await import("../../src/sources/extract/find-date.js");
    expect(toIsoDate("23/08/2022 18:00")).toBe("2022-08-23T18:00:00-04:00");
    expect(toIsoDate("08/23/2022 6:00 PM", { order: "dmy" })).toBe("2022-08-23T18:00:00-04:00");
    expect(findDate("Board meeting 23/08/2022 18:30, Room 2")).toBe("2022-08-23T18:30:00-04:00");
    expect(toIsoDate("13/13/2022")).toBeUndefined();
  });

  it("all the values of one answer decide together; undecided or contradicting answers decide nothing", async () => {
    const { dayOrderOf } = await import("../../src/sources/dates.js");
    expect(dayOrderOf(["01/02/2026 18:00", "13/02/2026 09:00", undefined])).toBe("dmy");
    expect(dayOrderOf(["3/2/2026 5:00:00 PM", "12/14/2026 5:00:00 PM"])).toBe("mdy");
    expect(dayOrderOf(["01/02/2026", "03/04/2026"])).toBeUndefined();
    expect(dayOrderOf(["13/02/2026", "02/13/2026"])).toBeUndefined();
    // ISO dates are never numeric day/month pairs.
    expect(dayOrderOf(["2026-02-13", "Posted 2026-12-01"])).toBeUndefined();
  });

  it("DD/MM answers keep their times: 01/02/2026 18:00 beside 13/02/2026 is 1 February at 18:00", async () => {
    const { answerDates } = await import("../../src/sources/dates.js");
    const values = ["01/02/2026 18:00", "13/02/2026 9:30 AM"];
    const opts = answerDates(values, undefined);
    expect(values.map((v) => toIsoDate(v, opts))).toEqual([
      "2026-02-01T18:00:00-05:00",
      "2026-02-13T09:30:00-05:00",
    ]);
    // The same first value in a month-first answer is 2 January.
    const us = answerDates(["01/02/2026 18:00", "02/13/2026 9:30 AM"], undefined);
    expect(toIsoDate("01/02/2026 18:00", us)).toBe("2026-01-02T18:00:00-05:00");
  });

  it("a non-New-York government's times carry its own offset, across its own DST change", async () => {
    const { answerDates } = await import("../../src/sources/dates.js");
    const chicago = answerDates(["03/07/2026 6:00 PM", "03/09/2026 6:00 PM"], "America/Chicago");
    expect(toIsoDate("03/07/2026 6:00 PM", chicago)).toBe("2026-03-07T18:00:00-06:00");
    expect(toIsoDate("03/09/2026 6:00 PM", chicago)).toBe("2026-03-09T18:00:00-05:00");
    expect(toIsoDate("2026-07-01 12:00", { zone: "America/Phoenix" })).toBe(
      "2026-07-01T12:00:00-07:00",
    );
    // A time that names its zone keeps it; a date alone stays a date.
    expect(toIsoDate("2026-07-01T12:00:00-04:00", chicago)).toBe("2026-07-01T12:00:00-04:00");
    expect(toIsoDate("03/07/2026", chicago)).toBe("2026-03-07");
  });
});

describe("the time as pages write it beside the date (kept, never dropped)", () => {
  const chicago = { zone: "America/Chicago" };

  it.each([
    ["February 17, 2026 - 6:00 PM", "2026-02-17T18:00:00-06:00"],
    ["13/02/2026 – 18:30", "2026-02-13T18:30:00-06:00"],
    ["2/17/2026 @ 6 PM", "2026-02-17T18:00:00-06:00"],
    ["2/17/2026 | 6:00 PM", "2026-02-17T18:00:00-06:00"],
    ["2/17/2026 12:00 Noon", "2026-02-17T12:00:00-06:00"],
    ["Feb 17, 2026 noon", "2026-02-17T12:00:00-06:00"],
    ["2/17/2026 6:00 PM - 8:00 PM", "2026-02-17T18:00:00-06:00"],
    ["2/17/2026 6:00 - 8:00 PM", "2026-02-17T18:00:00-06:00"],
    ["2/17/2026 11:00 - 1:00 PM", "2026-02-17T11:00:00-06:00"],
    ["2/17/2026 9:30 a.m. to 11:00 a.m.", "2026-02-17T09:30:00-06:00"],
    ["2026/02/17 18:00", "2026-02-17T18:00:00-06:00"],
    ["2026/02/17", "2026-02-17"],
    ["17-Feb-2026", "2026-02-17"],
  ])("%j reads as %s", (input, want) => {
    expect(toIsoDate(input, chicago)).toBe(want);
  });

  it("a generic zone written after the time (ET, CT, MT, PT) is that zone's wall time, with its offset that day", () => {
    expect(toIsoDate("2/17/2026 6:00 PM ET", chicago)).toBe("2026-02-17T18:00:00-05:00");
    expect(toIsoDate("7/17/2026 6:00 PM ET", chicago)).toBe("2026-07-17T18:00:00-04:00");
    expect(toIsoDate("7/17/2026 6:00 PM CT")).toBe("2026-07-17T18:00:00-05:00");
    expect(toIsoDate("7/17/2026 6:00 - 8:00 PM PT")).toBe("2026-07-17T18:00:00-07:00");
    // A range of dates, or words after the date, are not a time: the date alone is not guessed.
    expect(toIsoDate("2/17/2026 - 3/1/2026")).toBeUndefined();
    expect(toIsoDate("2/17/2026 - Cancelled")).toBeUndefined();
  });

  it("inside a longer text, a time after a separator is kept", async () => {
    const { findDate } = await import("../../src/sources/extract/find-date.js");
    expect(findDate("Board Agenda - June 20, 2019 - 6:00 PM, Room 2", chicago)).toBe(
      "2019-06-20T18:00:00-05:00",
    );
    expect(findDate("Council 2/17/2026 @ 6:30 PM (Chambers)", chicago)).toBe(
      "2026-02-17T18:30:00-06:00",
    );
    expect(findDate("Budget hearing 2/17/2026 - agenda posted", chicago)).toBe("2026-02-17");
  });
});

describe("times the store can order (an outside tester found two it could not)", () => {
  it("P6: a leap second is read as the last instant of the minute before it", () => {
    expect(toIsoDate("2026-12-31T23:59:60Z")).toBe("2026-12-31T23:59:59.999Z");
    expect(toIsoDate("Thu, 31 Dec 2026 23:59:60 GMT")).toBe("2026-12-31T23:59:59.999Z");
    expect(toIsoDate("2026-12-31T18:59:60-05:00")).toBe("2026-12-31T18:59:59.999-05:00");
  });

  it("P6: an offset no place has (over 14 hours, 60 minutes) is no time: the date is not taken", () => {
    expect(toIsoDate("2026-12-02T12:00:00+23:00")).toBeUndefined();
    expect(toIsoDate("Wed, 02 Dec 2026 12:00:00 +2300")).toBeUndefined();
    expect(toIsoDate("2026-12-02T12:00:00+05:60")).toBeUndefined();
    // The widest real offsets still read.
    expect(toIsoDate("2026-12-02T12:00:00+14:00")).toBe("2026-12-02T12:00:00+14:00");
    expect(toIsoDate("2026-12-02T12:00:00-12:00")).toBe("2026-12-02T12:00:00-12:00");
  });

  it("P6: a .NET /Date(ms)/ keeps the text forms' range (1900 to 2200) and offsets: DateTime.MinValue and MaxValue, and an offset no place has, are no date", () => {
    // DateTime.MinValue (0001-01-01T00:00Z) and MaxValue (9999-12-31T23:59:59.999Z).
    expect(toIsoDate("/Date(-62135596800000)/")).toBeUndefined();
    expect(toIsoDate("/Date(-62135596800000+0000)/")).toBeUndefined();
    expect(toIsoDate("/Date(253402300799999)/")).toBeUndefined();
    expect(toIsoDate("/Date(253402300799999-0500)/")).toBeUndefined();
    // The range is the date in the government's zone, as a text form's: 1900-01-01T00:00Z is
    // 1899-12-31 in New York, a day later reads; 2201-01-01T00:00Z is 2200-12-31 there, a day
    // later is 2201.
    expect(toIsoDate("/Date(-2208988800000)/")).toBeUndefined();
    expect(toIsoDate("/Date(-2208902400000)/")).toBe("1900-01-01T19:00:00-05:00");
    expect(toIsoDate("/Date(7289654400000)/")).toBe("2200-12-31T19:00:00-05:00");
    expect(toIsoDate("/Date(7289740800000)/")).toBeUndefined();
    // The offset form: the milliseconds are the instant, the offset the zone it was written in.
    expect(toIsoDate("/Date(1796601600000-0500)/")).toBe("2026-12-06T19:00:00-05:00");
    expect(toIsoDate("/Date(1796601600000+0100)/")).toBe("2026-12-06T19:00:00-05:00");
    expect(toIsoDate("/Date(1796601600000+1400)/")).toBe("2026-12-06T19:00:00-05:00");
    expect(toIsoDate("/Date(1796601600000+1500)/")).toBeUndefined();
    expect(toIsoDate("/Date(1796601600000-0560)/")).toBeUndefined();
  });

  it("P6: inside a longer text, a time whose offset did not read is not taken as local time: the day alone", async () => {
    const { findDate } = await import("../../src/sources/extract/find-date.js");
    expect(findDate("Posted Tue, 03 Nov 2026 18:00:00 +1500 by the clerk")).toBe("2026-11-03");
    expect(findDate("Hearing 11/04/2026 7:00 PM +1500, Room 2")).toBe("2026-11-04");
    expect(findDate("Hearing 11/04/2026 7:00 PM, Room 2")).toBe("2026-11-04T19:00:00-05:00");
  });
});

describe("date texts outside testers found misread", () => {
  it('dates: "12:00 Midnight" is the start of the day, not noon', async () => {
    const { findDate } = await import("../../src/sources/extract/find-date.js");
    expect(toIsoDate("December 1, 2026 12:00 Midnight")).toBe("2026-12-01T00:00:00-05:00");
    expect(findDate("Bids due December 1, 2026 12:00 Midnight, Room 2")).toBe(
      "2026-12-01T00:00:00-05:00",
    );
    expect(findDate("Bids due 2026-12-01 12:00 Midnight")).toBe("2026-12-01T00:00:00-05:00");
    // "12 midnight" and "midnight" alone are the same instant as "12:00 a.m.".
    expect(toIsoDate("December 1, 2026 12 midnight")).toBe("2026-12-01T00:00:00-05:00");
    expect(toIsoDate("12/01/2026 Midnight")).toBe("2026-12-01T00:00:00-05:00");
    expect(toIsoDate("December 1, 2026 12:00 a.m.")).toBe("2026-12-01T00:00:00-05:00");
  });

  it('dates: "12:00 Noon" is 12:00, and stays so beside midnight', async () => {
    const { findDate } = await import("../../src/sources/extract/find-date.js");
    expect(toIsoDate("December 1, 2026 12:00 Noon")).toBe("2026-12-01T12:00:00-05:00");
    expect(toIsoDate("December 1, 2026 12 noon")).toBe("2026-12-01T12:00:00-05:00");
    expect(toIsoDate("December 1, 2026 12:00 p.m.")).toBe("2026-12-01T12:00:00-05:00");
    expect(findDate("Opening December 1, 2026 12:00 Noon, Room 2")).toBe(
      "2026-12-01T12:00:00-05:00",
    );
  });

  it('dates: "2026-12-01 6:00 PM" (an ISO day, then a 12-hour time) keeps its time, as local time', async () => {
    const { findDate } = await import("../../src/sources/extract/find-date.js");
    // The same output as "December 1, 2026 6:00 PM": the government's zone, its offset that day.
    expect(toIsoDate("2026-12-01 6:00 PM")).toBe(toIsoDate("December 1, 2026 6:00 PM"));
    expect(toIsoDate("2026-12-01 6:00 PM")).toBe("2026-12-01T18:00:00-05:00");
    expect(toIsoDate("2026-07-01 6:00 PM", { zone: "America/Chicago" })).toBe(
      "2026-07-01T18:00:00-05:00",
    );
    expect(toIsoDate("2026-12-01 06:00 p.m.")).toBe("2026-12-01T18:00:00-05:00");
    expect(toIsoDate("2026-12-01 - 6 PM ET")).toBe("2026-12-01T18:00:00-05:00");
    expect(findDate("Council 2026-12-01 6:00 PM, Chambers")).toBe("2026-12-01T18:00:00-05:00");
    // A two-digit hour followed by PM inside a text is not cut to 06:00.
    expect(findDate("Council 2026-12-01 06:00 PM, Chambers")).toBe("2026-12-01T18:00:00-05:00");
    // Words after the day are still no time.
    expect(toIsoDate("2026-12-01 Cancelled")).toBeUndefined();
    expect(findDate("Posted 2026-12-01, revised")).toBe("2026-12-01");
  });

  it('dates: "1st December 2026" (an ordinal day before the month name) is 2026-12-01', async () => {
    const { findDate } = await import("../../src/sources/extract/find-date.js");
    expect(toIsoDate("1st December 2026")).toBe("2026-12-01");
    expect(toIsoDate("21st Dec 2026")).toBe("2026-12-21");
    expect(toIsoDate("2nd of December, 2026")).toBe("2026-12-02");
    expect(toIsoDate("Tuesday 1st December 2026 6:00 PM")).toBe("2026-12-01T18:00:00-05:00");
    expect(findDate("Minutes of 1st December 2026 meeting")).toBe("2026-12-01");
    expect(findDate("Minutes of 23rd Dec 2026 meeting")).toBe("2026-12-23");
    // Already read before: the plain day first, and the ordinal after the month.
    expect(toIsoDate("1 December 2026")).toBe("2026-12-01");
    expect(toIsoDate("December 1st, 2026")).toBe("2026-12-01");
  });

  it('dates: a two-digit year is read 00–49 as 20xx and 50–99 as 19xx ("12/01/69" is 1969)', () => {
    expect(toIsoDate("12/01/69")).toBe("1969-12-01");
    expect(toIsoDate("1-Dec-69")).toBe("1969-12-01");
    expect(toIsoDate("12/01/50")).toBe("1950-12-01");
    expect(toIsoDate("12/01/49")).toBe("2049-12-01");
    // Meetings a year or two ahead, and old records, still read as before.
    expect(toIsoDate("12/01/27")).toBe("2027-12-01");
    expect(toIsoDate("12/01/75")).toBe("1975-12-01");
    expect(toIsoDate("Tue, 01 Dec 26 18:00:00 GMT")).toBe("2026-12-01T18:00:00Z");
  });
});
