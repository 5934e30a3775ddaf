import { describe, expect, it } from "vitest";
import { dateEt } from "../../src/web/public/format.js";

/**
 * A record's date on the pages and in the feeds is the day its government's page gave: the
 * readers write a local time with the government's own offset (catalog `timezone`), so a
 * late-evening meeting in Chicago or Los Angeles is not moved to the next day by New York's
 * clock.
 */
describe("a record's date as shown", () => {
  it("is the written day of a local time with its offset, whatever the zone", () => {
    expect(dateEt("2026-02-23T23:30:00-06:00")).toBe("Feb 23, 2026");
    expect(dateEt("2026-07-01T21:00:00-07:00")).toBe("Jul 1, 2026");
    expect(dateEt("2026-07-01T21:00:00.250-04:00")).toBe("Jul 1, 2026");
    expect(dateEt("2026-02-23")).toBe("Feb 23, 2026");
  });

  it("an instant written in UTC is shown as its New York day", () => {
    expect(dateEt("2026-02-24T03:30:00Z")).toBe("Feb 23, 2026");
    expect(dateEt("not a date")).toBe("not a date");
    expect(dateEt(null)).toBe("");
  });
});
