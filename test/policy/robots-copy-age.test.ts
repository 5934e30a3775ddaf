import { describe, expect, it } from "vitest";
import { ROBOTS_REREAD_AFTER_MS, ROBOTS_TTL_MS } from "../../src/policy/constants.js";
import {
  robotsCopyServes,
  robotsCopyServesUntil,
  unreachableHolds,
} from "../../src/policy/robots/index.js";

const HOUR = 60 * 60 * 1000;
/** 03:00 New York time on 2026-11-05 (EST). */
const FOUND = Date.UTC(2026, 10, 5, 8, 0, 0);

describe("which stored robots.txt answer stands (P16, P20)", () => {
  it("P20: an unreachable holds for its night; outside a night, for the rest of the New York day it was found (or of the night it was found in)", () => {
    const a = { state: "unreachable", fetchedAt: FOUND, night: "2026-11-05" } as const;
    expect(unreachableHolds(a, FOUND + 12 * HOUR, "2026-11-05")).toBe(true);
    expect(unreachableHolds(a, FOUND + 12 * HOUR, "2026-11-06")).toBe(false);
    expect(unreachableHolds(a, FOUND + 12 * HOUR)).toBe(true);
    // 00:30 New York time on 2026-11-06: another day.
    expect(unreachableHolds(a, Date.UTC(2026, 10, 6, 5, 30))).toBe(false);
    // Found outside a night: the day it was found on.
    const b = { state: "unreachable", fetchedAt: FOUND } as const;
    expect(unreachableHolds(b, FOUND + 12 * HOUR)).toBe(true);
    // A past night caught up today: held today too.
    const c = { state: "unreachable", fetchedAt: FOUND, night: "2026-11-04" } as const;
    expect(unreachableHolds(c, FOUND + HOUR)).toBe(true);
    expect(robotsCopyServes(c, FOUND + HOUR)).toBe(true);
  });

  it("P16, P20: an unreachable found outside a night (nor discover) holds for the night named for that day, the whole of it, and for any night run that day (a past night caught up); not for the next day's night", () => {
    // 10:00 New York time on 2026-11-05, outside a night.
    const morning = { state: "unreachable", fetchedAt: FOUND + 7 * HOUR } as const;
    // That day's night, at 22:00 and past midnight.
    expect(unreachableHolds(morning, FOUND + 19 * HOUR, "2026-11-05")).toBe(true);
    expect(unreachableHolds(morning, FOUND + 23 * HOUR, "2026-11-05")).toBe(true);
    expect(robotsCopyServes(morning, FOUND + 19 * HOUR, "2026-11-05")).toBe(true);
    // A past night caught up that afternoon.
    expect(unreachableHolds(morning, FOUND + 11 * HOUR, "2026-11-04")).toBe(true);
    // The next day's night, and a past night caught up the next day.
    expect(unreachableHolds(morning, FOUND + 43 * HOUR, "2026-11-06")).toBe(false);
    expect(unreachableHolds(morning, FOUND + 31 * HOUR, "2026-11-04")).toBe(false);
    // An earlier night's answer of that day never holds for a later night.
    const nights = { ...morning, night: "2026-11-04" } as const;
    expect(unreachableHolds(nights, FOUND + 19 * HOUR, "2026-11-05")).toBe(false);
    // Nothing unreachable is ever sent on.
    expect(robotsCopyServesUntil(morning, "2026-11-05")).toBe(Number.NEGATIVE_INFINITY);
  });

  it("P16: an allowed copy read outside a night (nor discover) serves any night run the day it was read, as an unreachable holds (a past night caught up that day: no second read that day); not past that day, unless the night is named for it", () => {
    // 10:00 New York time on 2026-11-05, outside a night.
    const morning = { state: "rules", fetchedAt: FOUND + 7 * HOUR } as const;
    // 14:00: the night of 2026-11-04, caught up, goes by it, as by an unreachable.
    expect(
      unreachableHolds({ ...morning, state: "unreachable" }, FOUND + 11 * HOUR, "2026-11-04"),
    ).toBe(true);
    expect(robotsCopyServes(morning, FOUND + 11 * HOUR, "2026-11-04")).toBe(true);
    // Until the day ends (midnight in New York, 05:00 UTC in November): then that night reads it.
    const midnight = Date.UTC(2026, 10, 6, 5, 0, 0);
    expect(robotsCopyServes(morning, midnight - 1, "2026-11-04")).toBe(true);
    expect(robotsCopyServes(morning, midnight, "2026-11-04")).toBe(false);
    expect(robotsCopyServesUntil(morning, "2026-11-04")).toBe(midnight);
    // The night named for that day: the copy's whole day (ROBOTS_TTL_MS), as before.
    expect(robotsCopyServesUntil(morning, "2026-11-05")).toBe(morning.fetchedAt + ROBOTS_TTL_MS);
    // Read just before midnight: the hour after it still serves (ROBOTS_REREAD_AFTER_MS).
    const late = { state: "rules", fetchedAt: midnight - 10 * 60 * 1000 } as const;
    expect(robotsCopyServesUntil(late, "2026-11-04")).toBe(late.fetchedAt + ROBOTS_REREAD_AFTER_MS);
    // On DST's last day (2026-11-01 is 25 hours long in New York) the day still ends at midnight.
    const dst = { state: "rules", fetchedAt: Date.UTC(2026, 10, 1, 14, 0, 0) } as const;
    expect(robotsCopyServesUntil(dst, "2026-10-30")).toBe(Date.UTC(2026, 10, 2, 5, 0, 0));
    // A night's copy of that day does not serve another night (each night reads afresh).
    expect(
      robotsCopyServes({ ...morning, night: "2026-11-03" }, FOUND + 11 * HOUR, "2026-11-04"),
    ).toBe(false);
  });

  it("P16, P11: a copy serves a night that read it, or read within the hour; outside a night, under a day; never a day old; a copy from ahead of the clock only the night that read it", () => {
    const copy = { state: "rules", fetchedAt: FOUND, night: "2026-11-05" } as const;
    expect(robotsCopyServes(copy, FOUND + 5 * HOUR, "2026-11-05")).toBe(true);
    expect(robotsCopyServes(copy, FOUND + 20 * HOUR, "2026-11-06")).toBe(false);
    expect(robotsCopyServes(copy, FOUND + ROBOTS_REREAD_AFTER_MS - 1, "2026-11-06")).toBe(true);
    expect(robotsCopyServes(copy, FOUND + ROBOTS_TTL_MS - 1)).toBe(true);
    expect(robotsCopyServes(copy, FOUND + ROBOTS_TTL_MS)).toBe(false);
    expect(robotsCopyServes(copy, FOUND + ROBOTS_TTL_MS, "2026-11-05")).toBe(false);
    expect(robotsCopyServes(copy, FOUND - HOUR, "2026-11-05")).toBe(true);
    expect(robotsCopyServes(copy, FOUND - HOUR)).toBe(false);
    expect(robotsCopyServes({ ...copy, fetchedAt: Number.NaN }, FOUND)).toBe(false);
  });

  it("P16: a copy read outside a night on the day a night is named for serves that night (once a day: nor discover's in the morning, the night at 22:00), not the next day's", () => {
    // 10:00 New York time on 2026-11-05, outside a night.
    const morning = { state: "rules", fetchedAt: FOUND + 7 * HOUR } as const;
    expect(robotsCopyServes(morning, FOUND + 19 * HOUR, "2026-11-05")).toBe(true);
    expect(robotsCopyServes(morning, FOUND + 22 * HOUR, "2026-11-06")).toBe(false);
    expect(robotsCopyServes(morning, FOUND + 7 * HOUR + ROBOTS_TTL_MS, "2026-11-05")).toBe(false);
    // A night's copy of that day is the night's: the next night reads afresh whatever its name.
    expect(
      robotsCopyServes({ ...morning, night: "2026-11-04" }, FOUND + 19 * HOUR, "2026-11-05"),
    ).toBe(false);
  });

  it("P16: robotsCopyServesUntil is the first moment a serving copy no longer serves: it serves every moment before, none from it on (what a request admitted on it is checked against at sending)", () => {
    const nights = [undefined, "2026-11-04", "2026-11-05", "2026-11-06"] as const;
    const offsets = [
      -2 * HOUR,
      -1,
      0,
      1,
      HOUR / 2,
      HOUR - 1,
      HOUR,
      5 * HOUR,
      23 * HOUR,
      ROBOTS_TTL_MS - 1,
    ];
    let checked = 0;
    for (const state of ["rules", "allow-all"] as const)
      for (const read of nights)
        for (const night of nights)
          for (const at of offsets) {
            const a = { state, fetchedAt: FOUND, ...(read !== undefined ? { night: read } : {}) };
            const now = FOUND + at;
            if (!robotsCopyServes(a, now, night)) continue;
            const until = robotsCopyServesUntil(a, night);
            expect(until).toBeGreaterThan(now);
            expect(until).toBeLessThanOrEqual(FOUND + ROBOTS_TTL_MS);
            for (const t of [now, Math.floor((now + until) / 2), until - 1])
              expect(robotsCopyServes(a, t, night)).toBe(true);
            expect(robotsCopyServes(a, until, night)).toBe(false);
            checked++;
          }
    expect(checked).toBeGreaterThan(20);
    // A copy read within the hour before another night serves it only to that hour's end.
    expect(
      robotsCopyServesUntil(
        { state: "rules", fetchedAt: FOUND, night: "2026-11-04" },
        "2026-11-05",
      ),
    ).toBe(FOUND + ROBOTS_REREAD_AFTER_MS);
    // An unreachable answer lets nothing be sent.
    expect(robotsCopyServesUntil({ state: "unreachable", fetchedAt: FOUND }, undefined)).toBe(
      Number.NEGATIVE_INFINITY,
    );
  });
});
