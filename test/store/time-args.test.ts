import { describe, expect, it } from "vitest";
import { UsageError } from "../../src/errors.js";
import { formatInZone, SITE_OWNER_ZONE, zoneOffsetMs } from "../../src/policy/zone.js";
import { parseTimeArg, parseTimeWindow } from "../../src/store/time-args.js";

const utc = (s: string) => Date.parse(s);

describe("time arguments for nor log (P27: a site owner's time finds the request)", () => {
  it("P27: a date-time without a zone is New York time (EST in November)", () => {
    expect(parseTimeArg("2026-11-05 03:12", "--since")).toEqual({
      start: utc("2026-11-05T08:12:00Z"),
      end: utc("2026-11-05T08:13:00Z"),
    });
    expect(parseTimeArg("2026-11-05T03:12", "--since").start).toBe(utc("2026-11-05T08:12:00Z"));
  });

  it("P27: New York summer time is EDT (−04:00)", () => {
    expect(parseTimeArg("2026-07-04 12:00", "--since").start).toBe(utc("2026-07-04T16:00:00Z"));
  });

  it("the span of a time is its written precision: minute, second, fraction", () => {
    const sec = parseTimeArg("2026-11-05 03:12:04", "--until");
    expect(sec.end - sec.start).toBe(1000);
    const ms = parseTimeArg("2026-11-05T03:12:04.570", "--until");
    expect(ms.start).toBe(utc("2026-11-05T08:12:04.570Z"));
    expect(ms.end - ms.start).toBe(1);
    expect(parseTimeArg("2026-11-05T03:12:04.5", "--until").end - ms.start).toBe(30);
  });

  it("an explicit zone is honoured: Z, ±HH:MM, ±HHMM", () => {
    expect(parseTimeArg("2026-11-05T08:12Z", "--since").start).toBe(utc("2026-11-05T08:12:00Z"));
    expect(parseTimeArg("2026-11-05T03:12-05:00", "--since").start).toBe(
      utc("2026-11-05T08:12:00Z"),
    );
    expect(parseTimeArg("2026-11-05T10:12:30+0200", "--since").start).toBe(
      utc("2026-11-05T08:12:30Z"),
    );
  });

  it("a bare date is that whole day in New York, 23 or 25 hours long around DST", () => {
    expect(parseTimeArg("2026-11-05", "--since")).toEqual({
      start: utc("2026-11-05T05:00:00Z"),
      end: utc("2026-11-06T05:00:00Z"),
    });
    const fallBack = parseTimeArg("2026-11-01", "--since");
    expect(fallBack.end - fallBack.start).toBe(25 * 3_600_000);
    const springForward = parseTimeArg("2026-03-08", "--since");
    expect(springForward.end - springForward.start).toBe(23 * 3_600_000);
  });

  it("the autumn hour that happens twice: --since takes the first, --until the second", () => {
    const t = parseTimeArg("2026-11-01 01:30", "--since");
    expect(t.start).toBe(utc("2026-11-01T05:30:00Z")); // 01:30 EDT
    expect(t.end).toBe(utc("2026-11-01T06:31:00Z")); // to the end of 01:30 EST
  });

  it("a time skipped in spring reads with the offset before the jump", () => {
    expect(parseTimeArg("2026-03-08 02:30", "--since").start).toBe(utc("2026-03-08T07:30:00Z"));
  });

  it.each([
    "yesterday",
    "2026-13-01",
    "2026-02-30",
    "2026-11-05 24:00",
    "2026-11-05 03:60",
    "2026-11-05T03:12+25:00",
    "11/05/2026",
    "",
  ])("a bad time (%j) is a UsageError naming the value", (bad) => {
    expect(() => parseTimeArg(bad, "--since")).toThrow(UsageError);
    expect(() => parseTimeArg(bad, "--since")).toThrow(`"${bad}"`);
  });

  it("--since after --until is a UsageError", () => {
    expect(() => parseTimeWindow({ since: "2026-11-05 04:00", until: "2026-11-05 03:00" })).toThrow(
      /--since "2026-11-05 04:00" is not before --until/,
    );
    expect(parseTimeWindow({ since: "2026-11-05 03:11", until: "2026-11-05 03:13" })).toEqual({
      since: utc("2026-11-05T08:11:00Z"),
      until: utc("2026-11-05T08:14:00Z"),
    });
  });

  it("the table shows New York wall time with its offset", () => {
    expect(formatInZone(utc("2026-11-05T08:12:04.007Z"), SITE_OWNER_ZONE)).toBe(
      "2026-11-05 03:12:04.007 -05:00",
    );
    expect(formatInZone(utc("2026-07-04T16:00:00Z"), SITE_OWNER_ZONE)).toBe(
      "2026-07-04 12:00:00.000 -04:00",
    );
  });

  it("the offset shown is the zone's at that instant, across the autumn fold and the spring gap, in zones off the hour", () => {
    // The hour either side of New York's changes, every 7 min 30 s, and zones whose offset is
    // not whole hours: each shown offset is zoneOffsetMs's for the same instant.
    const starts = [utc("2026-11-01T04:00:00Z"), utc("2026-03-08T05:00:00Z")];
    for (const zone of [SITE_OWNER_ZONE, "Asia/Kolkata", "Asia/Kathmandu", "Pacific/Chatham"])
      for (const from of starts)
        for (let t = from; t < from + 4 * 3_600_000; t += 450_000) {
          const off = Math.round(zoneOffsetMs(t, zone) / 60_000);
          const hhmm = `${off < 0 ? "-" : "+"}${String(Math.floor(Math.abs(off) / 60)).padStart(2, "0")}:${String(Math.abs(off) % 60).padStart(2, "0")}`;
          expect(formatInZone(t, zone).endsWith(` ${hhmm}`), `${zone} ${t}`).toBe(true);
        }
    expect(formatInZone(utc("2026-11-01T05:30:00Z"), SITE_OWNER_ZONE)).toBe(
      "2026-11-01 01:30:00.000 -04:00",
    );
    expect(formatInZone(utc("2026-11-01T06:30:00Z"), SITE_OWNER_ZONE)).toBe(
      "2026-11-01 01:30:00.000 -05:00",
    );
  });
});
