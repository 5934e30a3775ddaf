import { describe, expect, it } from "vitest";
import { RECHECK_EVERY_NIGHTS, RECHECK_SOON_NIGHTS } from "../../src/policy/constants.js";
import { addDays } from "../../src/policy/night-date.js";
import { isRecheckNight } from "../../src/policy/recheck.js";

const MARKED = "2026-11-05";

describe("isRecheckNight (P25)", () => {
  it("P25: rechecks on the three nights soon after the marking, then once a week", () => {
    const on: number[] = [];
    for (let k = -10; k <= 60; k++) if (isRecheckNight(MARKED, addDays(MARKED, k))) on.push(k);
    expect(on).toEqual([1, 2, 3, 10, 17, 24, 31, 38, 45, 52, 59]);
  });

  const rows: [number, boolean][] = [
    [-1, false],
    [0, false],
    [1, true],
    [2, true],
    [3, true],
    [4, false],
    [9, false],
    [10, true],
    [11, false],
    [17, true],
    [24, true],
    [366, false],
    [3 + 7 * 52, true],
  ];
  it.each(rows)("P25: %i nights after the marking → %s", (k, expected) => {
    expect(isRecheckNight(MARKED, addDays(MARKED, k))).toBe(expected);
  });

  it("P25: never the marking night, and at most soon + one per week in any 8 weeks", () => {
    expect(isRecheckNight(MARKED, MARKED)).toBe(false);
    let count = 0;
    for (let k = 1; k <= 56; k++) if (isRecheckNight(MARKED, addDays(MARKED, k))) count++;
    expect(count).toBe(
      RECHECK_SOON_NIGHTS + Math.floor((56 - RECHECK_SOON_NIGHTS) / RECHECK_EVERY_NIGHTS),
    );
  });

  it("P25: works across month and year ends", () => {
    expect(isRecheckNight("2026-12-30", "2027-01-02")).toBe(true); // k = 3
    expect(isRecheckNight("2026-12-30", "2027-01-09")).toBe(true); // k = 10
    expect(isRecheckNight("2026-12-30", "2027-01-08")).toBe(false);
  });
});
