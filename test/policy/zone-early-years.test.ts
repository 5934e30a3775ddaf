import { describe, expect, it } from "vitest";
import { formatInZone, instantOf, zoneOffsetMs } from "../../src/policy/zone.js";

/**
 * Instants in the years 0–99 (a .NET API's DateTime.MinValue is the year 1) are read in their
 * own year, not as 1900–1999 (Date.UTC's reading of a two-digit year): their offset is the
 * zone's, never 1900 years.
 */
describe("zone offsets in the years 1 to 99", () => {
  it("P6: an instant of the year 1 or 50 has the zone's own offset (UTC 0, New York's local mean time), not one of 1900 years", () => {
    const year1 = Date.parse("0001-01-01T00:00:00Z");
    const year50 = Date.parse("0050-06-01T12:00:00Z");
    expect(zoneOffsetMs(year1, "UTC")).toBe(0);
    expect(zoneOffsetMs(year50, "UTC")).toBe(0);
    expect(formatInZone(year50, "UTC")).toBe("0050-06-01 12:00:00.000 +00:00");
    // New York before standard time: local mean time, 4 h 56 min 2 s behind UTC.
    expect(zoneOffsetMs(year50, "America/New_York")).toBe(-(4 * 3600 + 56 * 60 + 2) * 1000);
    const wall = { year: 50, month: 6, day: 1, hour: 12, minute: 0, second: 0, ms: 0 };
    expect(instantOf(wall, "UTC", "earlier")).toBe(year50);
    // Years from 100 on were read right before, and still are.
    expect(zoneOffsetMs(Date.UTC(2026, 11, 8, 6), "America/New_York")).toBe(-5 * 3600_000);
  });
});
