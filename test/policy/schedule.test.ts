import { describe, expect, it } from "vitest";
import { scheduleNights } from "../../src/cli/commands/start.js";
import { ManualClock } from "../../src/clock.js";
import { lastRunAtOrBefore, nextRunAfter, parseDailyAt } from "../../src/policy/schedule.js";
import { formatInZone } from "../../src/policy/zone.js";

const NY = "America/New_York";
const HOUR = 3_600_000;
const at = (text: string, zone = NY) => parseDailyAt(text, zone);
const ny = (t: number) => formatInZone(t, NY);

/** The instants `nor start`'s loop runs the night at, on an injected clock from `start`. */
async function runsFrom(start: number, daily: string, count: number): Promise<number[]> {
  const clock = new ManualClock(start);
  const stop = new AbortController();
  const runs: number[] = [];
  const loop = scheduleNights({
    clock,
    at: at(daily),
    say: () => {},
    signal: stop.signal,
    runNight: async () => {
      runs.push(clock.now());
      if (runs.length === count) stop.abort();
      return 0;
    },
  });
  // Each step wakes the one sleeper (the loop) at its next run; bounded, never a wall-clock wait.
  for (let i = 0; i < 60 * count && runs.length < count; i++) await clock.step();
  stop.abort();
  await loop;
  return runs;
}

describe("when the night runs (croner, `M H * * *` in the zone)", () => {
  it("01:00 New York: later today, or tomorrow once it has passed", () => {
    const beforeOne = Date.UTC(2026, 10, 5, 5, 59, 0); // 00:59 EST
    expect(ny(nextRunAfter(beforeOne, at("01:00")))).toBe("2026-11-05 01:00:00.000 -05:00");
    const atOne = Date.UTC(2026, 10, 5, 6, 0, 0); // 01:00 EST exactly: the next is tomorrow
    expect(ny(nextRunAfter(atOne, at("01:00")))).toBe("2026-11-06 01:00:00.000 -05:00");
    const evening = Date.UTC(2026, 10, 6, 3, 0, 0); // 22:00 EST on the 5th
    expect(ny(nextRunAfter(evening, at("01:00")))).toBe("2026-11-06 01:00:00.000 -05:00");
    // Another zone, configured.
    const la = nextRunAfter(Date.UTC(2026, 10, 5, 12, 0, 0), at("23:15", "America/Los_Angeles"));
    expect(formatInZone(la, "America/Los_Angeles")).toBe("2026-11-05 23:15:00.000 -08:00");
  });

  it("fall-back day (2026-11-01): 01:00 runs once, at 01:00 EDT, then 01:00 EST 25 h later", async () => {
    const runs = await runsFrom(Date.UTC(2026, 9, 31, 12, 0, 0), "01:00", 3);
    expect(runs.map(ny)).toEqual([
      "2026-11-01 01:00:00.000 -04:00",
      "2026-11-02 01:00:00.000 -05:00",
      "2026-11-03 01:00:00.000 -05:00",
    ]);
    expect(runs[1]! - runs[0]!).toBe(25 * HOUR);
    // 01:30 happens twice that night: it runs the first time only, even when asked from
    // inside the repeated hour after that first run.
    const first = nextRunAfter(Date.UTC(2026, 9, 31, 12, 0, 0), at("01:30"));
    expect(ny(first)).toBe("2026-11-01 01:30:00.000 -04:00");
    const repeated = first + HOUR - 15 * 60_000; // 01:15 EST, the second pass
    expect(ny(repeated)).toBe("2026-11-01 01:15:00.000 -05:00");
    expect(ny(nextRunAfter(repeated, at("01:30")))).toBe("2026-11-02 01:30:00.000 -05:00");
  });

  it("spring-forward day (2027-03-14): 01:00 runs at 01:00 EST, then 01:00 EDT 23 h later", async () => {
    const runs = await runsFrom(Date.UTC(2027, 2, 13, 12, 0, 0), "01:00", 3);
    expect(runs.map(ny)).toEqual([
      "2027-03-14 01:00:00.000 -05:00",
      "2027-03-15 01:00:00.000 -04:00",
      "2027-03-16 01:00:00.000 -04:00",
    ]);
    expect(runs[1]! - runs[0]!).toBe(23 * HOUR);
  });

  it("spring-forward day: a time the clock skips (02:30) runs when it has jumped, at 03:00 EDT", async () => {
    const runs = await runsFrom(Date.UTC(2027, 2, 13, 12, 0, 0), "02:30", 2);
    expect(runs.map(ny)).toEqual([
      "2027-03-14 03:00:00.000 -04:00",
      "2027-03-15 02:30:00.000 -04:00",
    ]);
  });

  it("P13: the daily time last come round at or before now (what `nor start` begun after it owes), the changes of the clocks included", () => {
    const last = (now: number, daily: string) => ny(lastRunAtOrBefore(now, at(daily)));
    // 01:10 New York, Dec 8: 01:00 that day; at 01:00 exactly, that very time; at 00:59, the day before.
    expect(last(Date.UTC(2026, 11, 8, 6, 10), "01:00")).toBe("2026-12-08 01:00:00.000 -05:00");
    expect(last(Date.UTC(2026, 11, 8, 6, 0), "01:00")).toBe("2026-12-08 01:00:00.000 -05:00");
    expect(last(Date.UTC(2026, 11, 8, 5, 59), "01:00")).toBe("2026-12-07 01:00:00.000 -05:00");
    // Fall-back day: 01:30 runs once, the first time (EDT), 25 h before the next.
    expect(last(Date.UTC(2026, 10, 2, 6, 20), "01:30")).toBe("2026-11-01 01:30:00.000 -04:00");
    // Spring-forward day: 02:30 came round at 03:00 EDT.
    expect(last(Date.UTC(2027, 2, 14, 7, 5), "02:30")).toBe("2027-03-14 03:00:00.000 -04:00");
    expect(last(Date.UTC(2027, 2, 15, 6, 29), "02:30")).toBe("2027-03-14 03:00:00.000 -04:00");
  });

  it("refuses a time that is not HH:MM and an unknown zone", () => {
    expect(() => at("1am")).toThrow(/HH:MM/);
    expect(() => at("24:00")).toThrow(/HH:MM/);
    expect(() => at("01:00", "Ohio/Akron")).toThrow(/unknown time zone/);
  });
});
