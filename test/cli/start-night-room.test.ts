import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  BEFORE_NEXT_NIGHT_MS,
  MIN_LATE_NIGHT_MS,
  nightArgs,
  runStart,
  type ScheduledRun,
} from "../../src/cli/commands/start.js";
import { ManualClock } from "../../src/clock.js";
import { NorError } from "../../src/errors.js";
import { parseNightDeadline } from "../../src/night/duration.js";
import { MIN_NIGHT_DEADLINE_MS } from "../../src/policy/constants.js";
import { openStore } from "../../src/store/db.js";

/**
 * P13 under `nor start`: a night the schedule begins is given a `--deadline` that ends 5 min
 * before the next night is due, and `nor night` refuses one under its 1 min floor (a night that
 * can ask nothing would write off the day's sources). So the schedule never begins a night with
 * less room than that: a catch-up night with under an hour left is not begun (said, with when the
 * next runs), nothing is closed or written off, and the next night runs at its time, whole.
 */
const NY = "America/New_York";
const MIN = 60_000;
const dir = mkdtempSync(join(tmpdir(), "nor-start-room-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const deadlineOf = (args: string[]) =>
  args.includes("--deadline") ? args[args.indexOf("--deadline") + 1] : undefined;

describe("the room a night nor start begins is given", () => {
  const opts = { catalog: ["c.yaml"] } as Parameters<typeof nightArgs>[0];
  const began = Date.UTC(2026, 11, 6, 4, 55); // 23:55 New York, Dec 5
  const run = (roomMs: number): ScheduledRun => ({
    began,
    nextDue: began + BEFORE_NEXT_NIGHT_MS + roomMs,
  });

  it("P13: room under the 1 min floor never becomes a --deadline nor night refuses (30s, 1s); exactly the floor is passed on and taken", () => {
    for (const room of [30_000, 1_000, MIN_NIGHT_DEADLINE_MS - 1, 0, -MIN]) {
      let args: string[] | undefined;
      let err: unknown;
      try {
        args = nightArgs(opts, ["c.yaml"], "data", run(room));
      } catch (e) {
        err = e;
      }
      // Before: `--deadline 30s` / `1s`, which `nor night` refuses (exit 2) in the operator's log.
      expect(deadlineOf(args ?? []), `room ${room} ms`).toBeUndefined();
      expect(err, `room ${room} ms`).toBeInstanceOf(NorError);
      expect((err as NorError).code).toBe("E_INTERNAL");
      expect((err as Error).message).toContain("under the 1m floor");
      // Never said rounded up to the floor it is under (59.999 s: 59s, not 1m 00s).
      if (room === MIN_NIGHT_DEADLINE_MS - 1) expect((err as Error).message).toContain("has 59s");
    }
    // Exactly the floor, and a fraction over it: 60s, which `nor night` takes.
    for (const room of [MIN_NIGHT_DEADLINE_MS, MIN_NIGHT_DEADLINE_MS + 999]) {
      const d = deadlineOf(nightArgs(opts, ["c.yaml"], "data", run(room)));
      expect(d).toBe("60s");
      expect(parseNightDeadline(d as string)).toBe(MIN_NIGHT_DEADLINE_MS);
    }
    // The schedule's rule for a late night leaves it far more than the floor.
    expect(MIN_LATE_NIGHT_MS).toBeGreaterThanOrEqual(MIN_NIGHT_DEADLINE_MS);
  });

  /**
   * `nor start --at 01:00 --deadline 20h` at 00:50 New York on Dec 5 with night 2026-12-04
   * interrupted (begun by hand at 23:00 on Dec 4, --deadline 24h): it resumes it first, and
   * that run ends at `resumedUntil`, after the night due at 01:00 on Dec 5. Then the schedule
   * goes on until it says when the next night runs after Dec 5's (or has begun two).
   */
  const startAt = async (name: string, resumedUntil: number) => {
    const catalog = join(dir, "catalog.yaml");
    writeFileSync(
      catalog,
      `governments:
  - { id: village-of-room, name: Village of Room, kind: village, county: Franklin }
sources:
  - { id: room-agendas, government: village-of-room, records: agendas, url: "http://127.0.0.1:9/agendas.rss" }
`,
    );
    const data = join(dir, name);
    const store = await openStore({ kind: "sqlite", dir: data });
    try {
      await store.db
        .insertInto("nights")
        .values({
          night: "2026-12-04",
          started_at: "2026-12-05T04:00:00.000Z",
          deadline_at: "2026-12-06T04:00:00.000Z",
          finished_at: null,
          runs: 1,
        })
        .execute();
    } finally {
      await store.close();
    }
    const clock = new ManualClock(Date.UTC(2026, 11, 5, 5, 50));
    const lines: string[] = [];
    const runs: { at: number; args: string[] }[] = [];
    const stop = new AbortController();
    const running = runStart(
      {
        catalog: [catalog],
        data,
        host: "127.0.0.1",
        port: "0",
        at: "01:00",
        zone: NY,
        deadline: "20h",
      },
      {
        clock,
        say: (l) => {
          lines.push(l);
          if (l.startsWith("the next night runs at 2026-12-06")) stop.abort();
        },
        signal: stop.signal,
        runNight: async (args) => {
          runs.push({ at: clock.now(), args });
          if (runs.length === 1) await clock.advance(resumedUntil - clock.now());
          if (runs.length >= 2) stop.abort();
          return 0;
        },
      },
    );
    // Bounded: the schedule's sleeps moved on by the clock until it has said or run enough.
    for (let i = 0; i < 2000 && !stop.signal.aborted; i++) {
      await new Promise((r) => setTimeout(r, 5));
      if (clock.pending > 0 && !stop.signal.aborted) await clock.step();
    }
    const reached = stop.signal.aborted;
    stop.abort();
    await running;
    expect(reached, lines.join("\n")).toBe(true);
    const reopened = await openStore({ kind: "sqlite", dir: data }, { create: false });
    try {
      const nights = await reopened.db
        .selectFrom("nights")
        .select(["night", "finished_at"])
        .execute();
      return { runs, lines, nights };
    } finally {
      await reopened.close();
    }
  };

  it("P13: a catch-up night with under an hour left is not begun, said with when the next runs, nothing closed; with exactly the hour it runs with a deadline nor night takes; a resume keeps its own", async () => {
    // The resume ends at 23:56 New York on Dec 5: 1 h 04 min before Dec 6's night, so Dec 5's
    // would have 59 min before the 5 min margin: not begun.
    const short = await startAt("short", Date.UTC(2026, 11, 6, 4, 56));
    expect(short.runs).toHaveLength(1);
    // The resume: not marked as the schedule's, its own --deadline passed as given.
    expect(short.runs[0]?.args).not.toContain("--scheduled");
    expect(deadlineOf(short.runs[0]?.args ?? [])).toBe("20h");
    const skipped = `the night due at 2026-12-05 01:00 ${NY} was not run (the machine or the night before held it up until 2026-12-05 23:56 ${NY}); it is left for the next one (it would have 59m 00s to run, to end 5m 00s before the next is due: under the 1h 00m a late night needs): nothing is written off, the next night checks its sources`;
    expect(short.lines).toContain(skipped);
    expect(short.lines.at(short.lines.indexOf(skipped) + 1)).toBe(
      `the next night runs at 2026-12-06 01:00 ${NY} (in 1h 04m; every day at 01:00 ${NY}); Ctrl-C stops`,
    );
    expect(short.lines.some((l) => /starts now|night \d{4}-\d{2}-\d{2} .*closed/.test(l))).toBe(
      false,
    );
    // Nothing written off: no night of Dec 5 opened or closed; the resumed one as it was.
    expect(short.nights).toEqual([{ night: "2026-12-04", finished_at: null }]);

    // Ended at 23:55: exactly the hour a late night needs (65 min to the next): begun, with a
    // deadline of the hour left (its own 20 h cut), one `nor night` takes.
    const hour = await startAt("hour", Date.UTC(2026, 11, 6, 4, 55));
    expect(hour.runs.map((r) => r.at)).toEqual([
      Date.UTC(2026, 11, 5, 5, 50),
      Date.UTC(2026, 11, 6, 4, 55),
    ]);
    const late = hour.runs[1]?.args ?? [];
    expect(late[late.indexOf("--scheduled") + 1]).toBe("2026-12-06T04:55:00.000Z");
    expect(deadlineOf(late)).toBe(`${MIN_LATE_NIGHT_MS / 1000}s`);
    expect(parseNightDeadline(deadlineOf(late) as string)).toBe(
      Date.UTC(2026, 11, 6, 6, 0) - BEFORE_NEXT_NIGHT_MS - Date.UTC(2026, 11, 6, 4, 55),
    );
    expect(hour.lines).toContain(
      `the night due at 2026-12-05 01:00 ${NY} starts now, late (the machine or the night before held it up)`,
    );
  }, 60_000);

  it("P13: a late night left with under the hour by less than a second is said with the time it would have had, never as the hour it needs", async () => {
    // The resume ends at 23:55:00.400 New York: 59 min 59.6 s to run, under the hour: not begun,
    // and said as under it (59m 59s), never rounded up to the 1h 00m it is said to need.
    const nearly = await startAt("nearly", Date.UTC(2026, 11, 6, 4, 55, 0, 400));
    expect(nearly.runs, nearly.lines.join("\n")).toHaveLength(1);
    expect(nearly.lines).toContain(
      `the night due at 2026-12-05 01:00 ${NY} was not run (the machine or the night before held it up until 2026-12-05 23:55 ${NY}); it is left for the next one (it would have 59m 59s to run, to end 5m 00s before the next is due: under the 1h 00m a late night needs): nothing is written off, the next night checks its sources`,
    );
  }, 60_000);
});
