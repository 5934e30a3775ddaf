import { describe, expect, it } from "vitest";
import { RECHECK_EVERY_NIGHTS, RECHECK_SOON_NIGHTS } from "../../src/policy/constants.js";
import { addDays, daysBetween } from "../../src/policy/night-date.js";
import {
  isRecheckNight,
  lastRecheckNightBefore,
  recheckOwed,
  recheckTonight,
} from "../../src/policy/recheck.js";

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

describe("recheckOwed (P25, P13)", () => {
  const at = (k: number) => addDays(MARKED, k);

  it("P25: the latest recheck night before a night: none before the second night, then the calendar's", () => {
    const got: [number, number | undefined][] = [];
    for (const k of [-1, 0, 1, 2, 3, 4, 5, 9, 10, 11, 16, 17, 18, 24, 25])
      got.push([
        k,
        ((d) => (d === undefined ? undefined : daysBetween(MARKED, d)))(
          lastRecheckNightBefore(MARKED, at(k)),
        ),
      ]);
    expect(got).toEqual([
      [-1, undefined],
      [0, undefined],
      [1, undefined],
      [2, 1],
      [3, 2],
      [4, 3],
      [5, 3],
      [9, 3],
      [10, 3],
      [11, 10],
      [16, 10],
      [17, 10],
      [18, 17],
      [24, 17],
      [25, 24],
    ]);
  });

  it("P25, P13: a recheck night not reached owes one recheck on the next night that runs, never more; one reached owes nothing", () => {
    // Reached on every recheck night: nothing owed on any other night.
    for (let k = 1; k <= 40; k++) {
      const before = lastRecheckNightBefore(MARKED, at(k));
      expect(recheckOwed(MARKED, at(k), before), `${k}`).toBe(false);
    }
    // Night 10 not reached (last reached night 3): owed on 11, and on 12 when 11 was not
    // reached either; not once it was reached on 11, nor after a later recheck night's reach.
    expect(recheckOwed(MARKED, at(11), at(3))).toBe(true);
    expect(recheckOwed(MARKED, at(12), at(3))).toBe(true);
    expect(recheckOwed(MARKED, at(12), at(11))).toBe(false);
    expect(recheckOwed(MARKED, at(16), at(11))).toBe(false);
    // The checker off from night 9 to 30: night 31 owes one (night 24's), night 32 none.
    expect(recheckOwed(MARKED, at(31), at(8))).toBe(true);
    expect(recheckOwed(MARKED, at(32), at(31))).toBe(false);
    // The three nights soon after all missed: one owed on night 4, none on 5 once it was reached.
    expect(recheckOwed(MARKED, at(4), undefined)).toBe(true);
    expect(recheckOwed(MARKED, at(5), at(4))).toBe(false);
    // Reached only before the marking (a night it was read): owed from the second night on.
    expect(recheckOwed(MARKED, at(1), at(0))).toBe(false);
    expect(recheckOwed(MARKED, at(2), at(0))).toBe(true);
    // The marking night and before: never.
    expect(recheckOwed(MARKED, MARKED, undefined)).toBe(false);
    expect(recheckOwed(MARKED, at(-3), undefined)).toBe(false);
  });

  it("P25: an owed recheck reached up to three nights before a weekly night stands for it: never two nights running once reached, 4 to 10 nights from one weekly ask reached to the next", () => {
    // Owed since night 10 (its site down to 15), reached on 16: not again on 17, then 24.
    expect(recheckTonight(MARKED, at(17), at(16))).toBe(false);
    expect(recheckOwed(MARKED, at(18), at(16))).toBe(false);
    expect(recheckTonight(MARKED, at(24), at(16))).toBe(true);
    // Reached on 13: 17 is asked (four nights after).
    expect(recheckTonight(MARKED, at(17), at(13))).toBe(true);
    // The soon nights are each asked whatever was reached the night before.
    expect(recheckTonight(MARKED, at(2), at(1))).toBe(true);
    expect(recheckTonight(MARKED, at(3), at(2))).toBe(true);
    expect(recheckTonight(MARKED, at(10), at(3))).toBe(true);
    // Random nights, the page reached or not when asked (seeded): an ask reached is never
    // followed by one the next night in the weekly phase, and every ask reached there is followed
    // by the next within 10 nights when every later ask is reached.
    let seed = 7;
    const rand = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let run = 0; run < 200; run++) {
      let last: string | undefined = at(0);
      const reachedAsks: number[] = [];
      const failUntil = Math.floor(rand() * 60);
      for (let k = 1; k <= 90; k++) {
        if (!recheckTonight(MARKED, at(k), last)) continue;
        const reached = k > failUntil || rand() < 0.5;
        if (reached) {
          if (k > RECHECK_SOON_NIGHTS + 1)
            expect(
              reachedAsks.at(-1),
              `run ${run}: night ${k} after ${reachedAsks.at(-1)}`,
            ).not.toBe(k - 1);
          if (reachedAsks.length > 0 && k > failUntil + 1 && (reachedAsks.at(-1) ?? 0) > failUntil)
            expect(k - (reachedAsks.at(-1) ?? 0), `run ${run}: night ${k}`).toBeLessThanOrEqual(10);
          reachedAsks.push(k);
          last = at(k);
        }
      }
    }
  });
});
