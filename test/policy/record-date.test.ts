import { describe, expect, it } from "vitest";
import { recordDay } from "../../src/policy/record-date.js";

describe("a record's own date: its day in Ohio", () => {
  it("a bare day, a local time with its offset, and a time in UTC", () => {
    expect(recordDay("2026-11-04")).toBe("2026-11-04");
    expect(recordDay("2026-11-04T19:00:00-05:00")).toBe("2026-11-04");
    // 8 pm of Dec 4 in Ohio, written in UTC as Dec 5.
    expect(recordDay("2026-12-05T01:00:00Z")).toBe("2026-12-04");
    expect(recordDay("2026-12-05T18:00:00.000Z")).toBe("2026-12-05");
    // An offset of nothing (RFC 3339's -00:00) is a time in UTC: 7:30 pm of Nov 4 in Ohio.
    expect(recordDay("2026-11-05T00:30:00-00:00")).toBe("2026-11-04");
    expect(recordDay("Tuesday")).toBeUndefined();
    expect(recordDay(null)).toBeUndefined();
  });
});
