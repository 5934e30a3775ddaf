import { describe, expect, it } from "vitest";
import { ConfigError, NorError } from "../../src/errors.js";
import { addDays, daysBetween, nightOf } from "../../src/policy/night-date.js";

describe("nightOf", () => {
  const rows: [string, number, string | undefined, string][] = [
    ["08:00 UTC is 03:00 in Ohio, same date", Date.UTC(2026, 10, 5, 8), undefined, "2026-11-05"],
    [
      "03:59 UTC is still the day before in Ohio (EST)",
      Date.UTC(2026, 10, 6, 3, 59),
      undefined,
      "2026-11-05",
    ],
    ["05:00 UTC is midnight EST", Date.UTC(2026, 10, 6, 5, 0), undefined, "2026-11-06"],
    [
      "summer: 03:59 UTC is 23:59 EDT the day before",
      Date.UTC(2026, 6, 1, 3, 59),
      undefined,
      "2026-06-30",
    ],
    ["summer: 04:00 UTC is midnight EDT", Date.UTC(2026, 6, 1, 4, 0), undefined, "2026-07-01"],
    ["UTC zone", Date.UTC(2026, 0, 1, 0, 0), "UTC", "2026-01-01"],
    ["Tokyo is ahead", Date.UTC(2025, 11, 31, 15, 0), "Asia/Tokyo", "2026-01-01"],
  ];
  it.each(rows)("P27: nights are named by the Ohio date: %s", (_n, now, tz, night) => {
    expect(tz === undefined ? nightOf(now) : nightOf(now, tz)).toBe(night);
  });

  it("P27: an unknown time zone is broken config (ConfigError naming it)", () => {
    expect(() => nightOf(0, "Mars/Olympus")).toThrow(ConfigError);
    expect(() => nightOf(0, "Mars/Olympus")).toThrow(/Mars\/Olympus/);
  });
});

describe("addDays / daysBetween", () => {
  const rows: [string, number, string][] = [
    ["2026-11-05", 1, "2026-11-06"],
    ["2026-11-05", 0, "2026-11-05"],
    ["2026-11-05", -5, "2026-10-31"],
    ["2026-12-31", 1, "2027-01-01"],
    ["2028-02-28", 1, "2028-02-29"], // leap year
    ["2027-02-28", 1, "2027-03-01"],
    ["2026-03-07", 1, "2026-03-08"], // US DST starts 2026-03-08
    ["2026-10-31", 1, "2026-11-01"], // US DST ends 2026-11-01
    ["2026-01-01", 365, "2027-01-01"],
  ];
  it.each(rows)("P25: %s + %i = %s", (a, n, b) => {
    expect(addDays(a, n)).toBe(b);
    expect(daysBetween(a, b)).toBe(n);
    expect(daysBetween(b, a) + n).toBe(0);
  });

  it("P25: malformed or impossible dates are bugs (NorError naming the input)", () => {
    for (const bad of ["2026-11-5", "2026/11/05", "2026-02-30", "2026-13-01", "", "yesterday"]) {
      expect(() => addDays(bad, 1)).toThrow(NorError);
      expect(() => daysBetween(bad, "2026-11-05")).toThrow(bad === "" ? /""/ : bad);
    }
    expect(() => addDays("2026-11-05", 1.5)).toThrow(NorError);
  });
});
