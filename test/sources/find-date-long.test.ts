import { describe, expect, it } from "vitest";
import { DATE_TEXT_MAX, findDate } from "../../src/sources/extract/find-date.js";

/**
 * An outside tester's finding (P13, P14): findDate looked for a date inside a text with
 * patterns whose month and weekday words ran on (`jan[a-z]*`, `mon[a-z]*`), so at every "jan"
 * or "mon" of a long run of letters the search read to the end of the run and back: quadratic.
 * Measured on dist: 200,000 characters of "jan" 7.7 s of CPU, of "mon" 13.9 s; 20,000, 73 ms.
 * A page's date cell, a CSV field or a JSON value can be that long (the body up to 20 MiB).
 * The words are now bounded by the longest a month or weekday is written ("september",
 * "wednesday": nine letters), and the search is linear. Sized so that the old code would run
 * past the suite's 60 s limit (600,000 characters: some 70 s and 125 s by the square), never a
 * time of the test's own.
 */
describe("P13, P14: a date looked for in a long text costs the text's length, not its square", () => {
  it("P13, P14: 600,000 characters of 'jan', then of 'mon', hold no date and are read in one pass", () => {
    expect(findDate("jan".repeat(200_000))).toBeUndefined();
    expect(findDate("mon".repeat(200_000))).toBeUndefined();
  });

  it("P6: a date after a long run of such letters is still found", () => {
    expect(findDate(`${"jan".repeat(1_000)} Board meeting January 5, 2026 6:00 PM`)).toBe(
      "2026-01-05T18:00:00-05:00",
    );
    expect(findDate(`${"mon".repeat(1_000)} Wednesday, Sept. 2, 2026`)).toBe("2026-09-02");
    expect(findDate("Agenda 2nd of September, 2026")).toBe("2026-09-02");
  });
});

describe("P13, P14: a long text is looked through for its date to DATE_TEXT_MAX characters", () => {
  it("P13, P14: a date within the first DATE_TEXT_MAX characters is found; one after them is not looked for", () => {
    const filler = "a\n".repeat(9_500_000);
    expect(findDate(`Posted January 5, 2026 ${filler}`)).toBe("2026-01-05");
    const before = " ".repeat(DATE_TEXT_MAX - "January 5, 2026".length);
    expect(findDate(`${before}January 5, 2026`)).toBe("2026-01-05");
    expect(findDate(`${before}xJanuary 5, 2026`)).toBeUndefined();
    expect(findDate(`${filler}January 5, 2026`)).toBeUndefined();
  });
});
