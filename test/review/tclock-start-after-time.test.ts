import { describe, expect, it } from "vitest";
import { type ScheduledRun, scheduleNights } from "../../src/cli/commands/start.js";
import { ManualClock } from "../../src/clock.js";
import { parseDailyAt } from "../../src/policy/schedule.js";
import { formatInZone } from "../../src/policy/zone.js";

/**
 * Outside tester (tclock): "once a night, none skipped" under `nor start`. docs/operations.md:
 * "A machine that slept through the time is the same: woken on that night's date with an hour
 * left, the night starts late". A machine that rebooted through the time (or a `nor start`
 * restarted by systemd or an upgrade a few minutes after 01:00) is in the same place: tonight's
 * night has not run, it is still tonight's date with the whole day left. The loop is driven on
 * an injected clock, as test/cli/start-scheduled-night.test.ts drives it.
 */
const NY = "America/New_York";
const ny = (t: number) => formatInZone(t, NY).slice(0, 16);

describe("tclock: nor start begun a few minutes after its daily time", () => {
  it("P13: `nor start` (re)started at 01:10, tonight's 01:00 night not run yet, starts it now, late, not tomorrow (the night of the date is never skipped)", async () => {
    // 01:10 New York on Dec 8: the machine came back from a reboot at 01:00.
    const clock = new ManualClock(Date.UTC(2026, 11, 8, 6, 10));
    const stop = new AbortController();
    const lines: string[] = [];
    const runs: { at: number; scheduled: ScheduledRun | undefined }[] = [];
    const loop = scheduleNights({
      clock,
      at: parseDailyAt("01:00", NY),
      say: (l) => lines.push(l),
      signal: stop.signal,
      // Nothing is open and tonight's night has not run on this store.
      stillOpen: async () => undefined,
      over: async () => undefined,
      busy: async () => undefined,
      runNight: async (_signal, scheduled) => {
        runs.push({ at: clock.now(), scheduled });
        stop.abort();
        return 0;
      },
    });
    // Bounded: each step wakes the loop's one sleep (at most hourly), never a wall-clock wait.
    for (let i = 0; i < 100 && !stop.signal.aborted; i++) {
      await new Promise((r) => setTimeout(r, 1));
      if (clock.pending > 0) await clock.step();
    }
    stop.abort();
    await loop;
    // On main the first night runs at 2026-12-09 01:00: the night of Dec 8 is never run.
    expect(
      runs.map((r) => ny(r.at)),
      lines.join("\n"),
    ).toEqual(["2026-12-08 01:10"]);
  });
});
