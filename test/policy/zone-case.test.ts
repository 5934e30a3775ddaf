import { describe, expect, it } from "vitest";
import { parseDailyAt } from "../../src/policy/schedule.js";
import { ianaZoneProblem, isIanaZone } from "../../src/policy/zone.js";
import { IANA_LINK_NAMES } from "../../src/policy/zone-names.js";

/**
 * A time zone is an IANA name as IANA writes it. Intl reads a zone in any case
 * (`America/New_york` is New York to it), so the case is checked apart, and a name whose case
 * differs from IANA's is refused with the right spelling.
 */
describe("IANA zone names are case-sensitive", () => {
  it.each([
    ["America/New_york", "America/New_York"],
    ["AMERICA/NEW_YORK", "America/New_York"],
    ["America/Indiana/INDIANAPOLIS", "America/Indiana/Indianapolis"],
    ["US/EASTERN", "US/Eastern"],
    ["Asia/KOLKATA", "Asia/Kolkata"],
    ["America/Port_Of_Spain", "America/Port_of_Spain"],
    ["Antarctica/Dumontdurville", "Antarctica/DumontDUrville"],
    ["Etc/Gmt+5", "Etc/GMT+5"],
    ["Etc/Utc", "Etc/UTC"],
    // All lower case, as typed in a hurry (an outside tester's finding: it got the general rule).
    ["america/new_york", "America/New_York"],
    ["america/chicago", "America/Chicago"],
    ["us/eastern", "US/Eastern"],
  ])("%s is refused, naming %s", (wrong, right) => {
    expect(isIanaZone(wrong)).toBe(false);
    expect(ianaZoneProblem(wrong)).toBe(
      `must be written as IANA writes it, ${right} (time zone names are case-sensitive)`,
    );
    expect(isIanaZone(right)).toBe(true);
  });

  it("the daily time's zone is held to the same spelling", () => {
    expect(() => parseDailyAt("01:00", "America/New_york")).toThrow(/IANA time zone/);
    expect(parseDailyAt("01:00", "America/New_York").zone).toBe("America/New_York");
  });

  it("every zone Intl lists and every IANA link, as written, is still accepted", () => {
    const re = /^[A-Z][A-Za-z_-]*(?:\/[A-Z0-9][A-Za-z0-9_+-]*)+$/;
    const names = [...Intl.supportedValuesOf("timeZone"), ...IANA_LINK_NAMES].filter(
      (n) => n === "UTC" || re.test(n),
    );
    expect(names.length).toBeGreaterThan(400);
    expect(names.filter((n) => !isIanaZone(n))).toEqual([]);
  });

  it("abbreviations and unknown names keep the general rule", () => {
    for (const zone of ["EST", "utc", "mars/olympus", "Mars/Olympus", "America/NewYork"])
      expect(ianaZoneProblem(zone)).toMatch(/^must be an IANA time zone such as/);
  });
});
