import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  BEFORE_NEXT_NIGHT_MS,
  type NightExit,
  nightArgs,
  type ScheduledRun,
  scheduleNights,
} from "../../src/cli/commands/start.js";
import { ManualClock } from "../../src/clock.js";
import { nextRunAfter, parseDailyAt } from "../../src/policy/schedule.js";
import { formatInZone } from "../../src/policy/zone.js";
import { openStore } from "../../src/store/db.js";
import { writeVillageCatalog } from "./catalogs.js";
import { nor } from "./cli-capture.js";
import { interruptedNight } from "./interrupted-night.js";

/**
 * P13 under `nor start` with a long deadline: the night the schedule begins at its daily time is
 * tonight's. An interrupted night of yesterday whose deadline (23 h 30 min) reaches past tonight's
 * start (the spring change of the clocks leaves 23 h between two 01:00s) is closed as incomplete
 * then, not resumed in tonight's place; a night begun by the schedule ends before the next is
 * due; and a night that ran past the next one's time makes that one start late, not skip a day.
 */
const NY = "America/New_York";
const HOUR = 3_600_000;
const ny = (t: number) => formatInZone(t, NY).slice(0, 16);
const dir = mkdtempSync(join(tmpdir(), "nor-start-scheduled-"));
let server: Server;
const asked: string[] = [];
let catalog = "";

beforeAll(async () => {
  server = createServer((req, res) => {
    asked.push(req.url ?? "");
    if (req.url === "/robots.txt") {
      res.writeHead(404).end();
      return;
    }
    res
      .writeHead(200, { "content-type": "application/rss+xml" })
      .end(
        '<?xml version="1.0"?><rss version="2.0"><channel><title>t</title><item><title>Agenda</title><link>http://127.0.0.1/a</link><pubDate>Mon, 01 Mar 2027 10:00:00 GMT</pubDate></item></channel></rss>',
      );
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  catalog = writeVillageCatalog(join(dir, "c.yaml"), "Spring", {
    "spring-feed": `records: agendas, access: feed, url: "http://127.0.0.1:${port}/feed.rss"`,
  });
});

afterAll(async () => {
  vi.useRealTimers();
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `fn` with only Date faked: at `now`, and going on from it. */
async function atMoment(now: number, fn: () => Promise<void>): Promise<void> {
  vi.useFakeTimers({ toFake: ["Date"], now, shouldAdvanceTime: true });
  try {
    await fn();
  } finally {
    vi.useRealTimers();
  }
}

/**
 * A store with the catalog imported and yesterday's night unfinished, as a stop leaves it.
 * `nor start --deadline 23h30m`: begun at 01:00 EST on Mar 14 (06:00Z; the clocks go forward at
 * 02:00 that day), deadline 05:30Z on Mar 15, half an hour past 01:00 EDT (05:00Z), when
 * tonight's is due.
 */
const yesterdayInterrupted = (data: string) =>
  interruptedNight(catalog, data, {
    night: "2027-03-14",
    startedAt: "2027-03-14T06:00:00.000Z",
    deadlineAt: "2027-03-15T05:30:00.000Z",
  });

async function nightsOf(data: string) {
  const store = await openStore({ kind: "sqlite", dir: data }, { create: false });
  try {
    return await store.db
      .selectFrom("nights")
      .select(["night", "deadline_at", "finished_at"])
      .orderBy("started_at")
      .execute();
  } finally {
    await store.close();
  }
}

const night = (data: string, ...more: string[]) =>
  nor(
    "night",
    ...["--catalog", catalog, "--data", data],
    ...["--allow-private-addresses", "--gap-ms", "0", ...more],
  );

/**
 * A clock whose sleeps end when the test says, at the wall-clock time it sets (`wakeAt`): a
 * machine suspended while waiting wakes its timer late by the wall clock, a clock set back
 * early. `set` moves it without waking anyone (a night that ran meanwhile); `sleeps` are the
 * lengths asked for.
 */
function jumpClock(start: number) {
  let now = start;
  let wake: (() => void) | undefined;
  const sleeps: number[] = [];
  const clock = {
    now: () => now,
    sleep: (ms: number, signal?: AbortSignal) =>
      new Promise<void>((resolve, reject) => {
        sleeps.push(ms);
        wake = resolve;
        signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
      }),
  };
  const wakeAt = async (t: number) => {
    for (let i = 0; i < 200 && wake === undefined; i++) await new Promise((r) => setTimeout(r, 1));
    const w = wake;
    wake = undefined;
    now = t;
    w?.();
    await new Promise((r) => setTimeout(r, 5));
  };
  return {
    clock,
    wakeAt,
    sleeps,
    set: (t: number) => {
      now = t;
    },
  };
}

describe("the night nor start begins at its daily time", () => {
  it("P13: at 01:00 on the spring change, yesterday's interrupted night (deadline 23 h 30 min) is closed as incomplete and tonight's is run; a plain nor night would resume yesterday's", async () => {
    // 01:00 EDT on Mar 15, 2027 (05:00Z): 23 h after yesterday's 01:00 EST. Only Date is faked.
    await atMoment(Date.UTC(2027, 2, 15, 5, 0), async () => {
      // A plain `nor night` (a person's): yesterday's night resumes, as its time lasts.
      const plain = join(dir, "plain");
      await yesterdayInterrupted(plain);
      const resumed = await night(plain);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stderr).toMatch(/"night":"2027-03-14".*"resumed":true.*"msg":"night start"/);
      expect((await nightsOf(plain)).map((n) => n.night)).toEqual(["2027-03-14"]);

      // The schedule's: tonight's night, yesterday's closed at this moment.
      const data = join(dir, "scheduled");
      await yesterdayInterrupted(data);
      const before = asked.length;
      const r = await night(data, "--scheduled", "2027-03-15T05:00:00.000Z");
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(
        "night 2027-03-14 was interrupted and not resumed in time; closed as incomplete",
      );
      expect(r.stderr).toMatch(/"night":"2027-03-15".*"resumed":false.*"msg":"night start"/);
      expect(asked.slice(before)).toContain("/feed.rss");
      const nights = await nightsOf(data);
      expect(nights.map((n) => n.night)).toEqual(["2027-03-14", "2027-03-15"]);
      // Closed when tonight's began: nothing is asked in it after.
      const closedAt = nights[0]?.finished_at ?? "";
      expect(nights[0]?.deadline_at).toBe(closedAt);
      expect(Date.parse(closedAt)).toBeGreaterThanOrEqual(Date.UTC(2027, 2, 15, 5, 0));
      expect(Date.parse(closedAt)).toBeLessThan(Date.parse("2027-03-15T05:30:00.000Z"));
      expect(nights[1]?.finished_at).not.toBeNull();
      // `nor status` says it was closed incomplete.
      const status = await nor("status", "--data", data, "--json", "--with-nights");
      const doc = JSON.parse(status.stdout) as { nights: { night: string; state: string }[] };
      expect(doc.nights.find((n) => n.night === "2027-03-14")?.state).toBe("closed-incomplete");
    });
  });

  it("P13: the schedule's night restarted after a crash past midnight resumes that night; it is not closed, nor the next date begun early", async () => {
    // `--at 20:00`: night 2027-03-10 begun by the schedule at 20:00 (00:00Z Mar 11), its
    // process killed; restarted at 00:30 New York on Mar 11 (05:30Z) as the schedule's run.
    await atMoment(Date.UTC(2027, 2, 11, 5, 30), async () => {
      const data = join(dir, "restart");
      await interruptedNight(catalog, data, {
        night: "2027-03-10",
        startedAt: "2027-03-11T00:00:00.000Z",
        deadlineAt: "2027-03-11T06:00:00.000Z",
      });
      const before = asked.length;
      const r = await night(data, "--scheduled", "2027-03-11T00:00:00.000Z");
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toContain("closed as incomplete");
      expect(r.stderr).toMatch(/"night":"2027-03-10".*"resumed":true.*"msg":"night start"/);
      expect(asked.slice(before)).toContain("/feed.rss");
      expect((await nightsOf(data)).map((n) => n.night)).toEqual(["2027-03-10"]);
      // Not a moment: refused.
      const bad = await night(data, "--scheduled", "yesterday");
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('--scheduled: "yesterday" is not a moment (ISO 8601)');
    });
  });

  it("P13: its deadline ends before the next night is due (--deadline 24h, and 23 h 30 min across the spring change); a resume keeps the night's own", () => {
    const opts = { catalog: ["c.yaml"], deadline: "24h" } as Parameters<typeof nightArgs>[0];
    const at = parseDailyAt("01:00", NY);
    const deadlineOf = (args: string[]) => args[args.indexOf("--deadline") + 1];
    // An ordinary day: 24 h to the next, so the night has 24 h less the margin.
    const dec = Date.UTC(2026, 11, 5, 6, 0);
    const dayRun: ScheduledRun = { began: dec, nextDue: nextRunAfter(dec, at) };
    const day = nightArgs(opts, ["c.yaml"], "data", dayRun);
    expect(day[day.indexOf("--scheduled") + 1]).toBe("2026-12-05T06:00:00.000Z");
    expect(deadlineOf(day)).toBe(`${(24 * HOUR - BEFORE_NEXT_NIGHT_MS) / 1000}s`);
    // Mar 14 2027, 01:00 EST (the clocks go forward at 02:00): the next 01:00 (EDT) is 23 h away.
    const mar = Date.UTC(2027, 2, 14, 6, 0);
    const springRun: ScheduledRun = { began: mar, nextDue: nextRunAfter(mar, at) };
    expect(springRun.nextDue - mar).toBe(23 * HOUR);
    const spring = nightArgs({ ...opts, deadline: "23h30m" }, ["c.yaml"], "data", springRun);
    expect(deadlineOf(spring)).toBe(`${(23 * HOUR - BEFORE_NEXT_NIGHT_MS) / 1000}s`);
    // A deadline that fits is passed on as given; the default (6 h) is not written out.
    expect(deadlineOf(nightArgs({ ...opts, deadline: "20h" }, ["c.yaml"], "data", dayRun))).toBe(
      "20h",
    );
    const plainOpts = { catalog: ["c.yaml"] } as Parameters<typeof nightArgs>[0];
    expect(nightArgs(plainOpts, ["c.yaml"], "data", dayRun)).not.toContain("--deadline");
    // A resume (after a crash, or at start): not marked, its own deadline kept by `nor night`.
    const resume = nightArgs(opts, ["c.yaml"], "data");
    expect(resume).not.toContain("--scheduled");
    expect(deadlineOf(resume)).toBe("24h");
  });

  it("P13: a night that runs past the next one's time makes that one start late, at once, not a day later; a restart after a crash is the schedule's run still", async () => {
    const start = Date.UTC(2026, 11, 5, 5, 0); // 00:00 New York
    const clock = new ManualClock(start);
    const stop = new AbortController();
    const lines: string[] = [];
    const runs: { at: number; scheduled: ScheduledRun | undefined }[] = [];
    // The first night runs 24 h 10 min (a resume at start with its own deadline, say); the
    // second is killed once and resumed; then each takes an hour.
    const loop = scheduleNights({
      clock,
      at: parseDailyAt("01:00", NY),
      say: (l) => lines.push(l),
      signal: stop.signal,
      stillOpen: async () => "2026-12-06",
      runNight: async (_signal, scheduled): Promise<NightExit> => {
        runs.push({ at: clock.now(), scheduled });
        if (runs.length === 1) {
          await clock.advance(24 * HOUR + 10 * 60_000);
          return 0;
        }
        if (runs.length === 2) return { code: null, signal: "SIGKILL" };
        if (runs.length >= 4) stop.abort();
        await clock.advance(HOUR);
        return 0;
      },
    });
    // Each step wakes the loop's one sleep; bounded, never a wall-clock wait.
    for (let i = 0; i < 500 && !stop.signal.aborted; i++) {
      await new Promise((r) => setTimeout(r, 1));
      if (clock.pending > 0) await clock.step();
    }
    stop.abort();
    await loop;
    expect(runs.map((r) => ny(r.at))).toEqual([
      "2026-12-05 01:00", // due at 01:00
      "2026-12-06 01:10", // due at 01:00, the night before still ran: at once, late
      "2026-12-06 01:10", // the same night, resumed 10 s after its crash
      "2026-12-07 01:00",
    ]);
    expect(runs.map((r) => r.scheduled !== undefined)).toEqual([true, true, true, true]);
    expect(runs[1]?.scheduled?.nextDue).toBe(Date.UTC(2026, 11, 7, 6, 0));
    expect(lines).toContain(
      `the night due at 2026-12-06 01:00 ${NY} starts now, late (the machine or the night before held it up)`,
    );
  });

  /** The loop on an injected clock from `start`, each run doing `run`, until `count` runs. */
  async function loopFrom(
    start: number | ManualClock,
    daily: string,
    count: number,
    run: (n: number, clock: ManualClock) => Promise<NightExit>,
    more: Partial<Parameters<typeof scheduleNights>[0]> = {},
  ) {
    const clock = typeof start === "number" ? new ManualClock(start) : start;
    const stop = new AbortController();
    const lines: string[] = [];
    const runs: { at: number; scheduled: ScheduledRun | undefined }[] = [];
    const loop = scheduleNights({
      clock,
      at: parseDailyAt(daily, NY),
      say: (l) => lines.push(l),
      signal: stop.signal,
      runNight: async (_signal, scheduled) => {
        runs.push({ at: clock.now(), scheduled });
        const exit = await run(runs.length, clock);
        if (runs.length >= count) stop.abort();
        return exit;
      },
      ...more,
    });
    for (let i = 0; i < 1000 && !stop.signal.aborted; i++) {
      await new Promise((r) => setTimeout(r, 1));
      if (clock.pending > 0) await clock.step();
    }
    stop.abort();
    await loop;
    return { runs, lines, clock };
  }

  it("P13: a night resumed at start that ends on the next date leaves the night due before it, already run, to the next one's time (no short night begun early); so does a start with under an hour left", async () => {
    // `--at 20:00`: nor start at 19:45 resumes night 12-05 (its own 23 h deadline), which ends
    // at 18:31 the next day: the night due at 20:00 on Dec 5 was that date's, and Dec 6's runs
    // at its own time, whole.
    const start = Date.UTC(2026, 11, 6, 0, 45); // 19:45 New York, Dec 5
    const { runs, lines } = await loopFrom(
      start,
      "20:00",
      2,
      async (n, clock) => {
        if (n === 1) await clock.advance(22 * HOUR + 46 * 60_000);
        return 0;
      },
      { resume: { night: "2026-12-05", until: Date.UTC(2026, 11, 6, 23, 31) } },
    );
    expect(runs.map((r) => ny(r.at))).toEqual(["2026-12-05 19:45", "2026-12-06 20:00"]);
    expect(runs.map((r) => r.scheduled !== undefined)).toEqual([false, true]);
    expect(lines).toContain(
      `the night due at 2026-12-05 20:00 ${NY} was not run (the machine or the night before held it up until 2026-12-06 18:31 ${NY}); it is left for the next one (its date, 2026-12-05, is over in New York): nothing is written off, the next night checks its sources`,
    );
    // 01:00 daily: a night that ran to 00:58 the next night leaves no night of two minutes.
    const early = await loopFrom(Date.UTC(2026, 11, 5, 5, 0), "01:00", 2, async (n, clock) => {
      if (n === 1) await clock.advance(47 * HOUR + 58 * 60_000);
      return 0;
    });
    expect(early.runs.map((r) => ny(r.at))).toEqual(["2026-12-05 01:00", "2026-12-07 01:00"]);
  });

  it("P13: a machine that slept through the night's time does not begin it with minutes left; a clock set back waits on", async () => {
    const { clock, wakeAt } = jumpClock(Date.UTC(2026, 11, 5, 6, 10)); // 01:10 New York, Dec 5
    const stop = new AbortController();
    const lines: string[] = [];
    const runs: number[] = [];
    const loop = scheduleNights({
      clock,
      at: parseDailyAt("01:00", NY),
      say: (l) => lines.push(l),
      signal: stop.signal,
      runNight: async () => {
        runs.push(clock.now());
        stop.abort();
        return 0;
      },
    });
    // Woken early by a clock set back: it waits on (no night run).
    await wakeAt(Date.UTC(2026, 11, 6, 4, 0)); // 23:00 New York, Dec 5
    expect(runs).toEqual([]);
    // Asleep for 23 h 50 min: the wait's timer fires at 00:50 on Dec 7 by the wall clock.
    await wakeAt(Date.UTC(2026, 11, 7, 5, 50));
    expect(runs).toEqual([]);
    // The next night's own time: run.
    await wakeAt(Date.UTC(2026, 11, 7, 6, 0));
    stop.abort();
    await loop;
    expect(runs.map(ny)).toEqual(["2026-12-07 01:00"]);
    expect(lines).toContain(
      `the night due at 2026-12-06 01:00 ${NY} was not run (the machine or the night before held it up until 2026-12-07 00:50 ${NY}); it is left for the next one (its date, 2026-12-06, is over in New York): nothing is written off, the next night checks its sources`,
    );
  });

  it("P13: a clock set back by days waits for the daily time by the clock as it is now, not the one first waited for; no wait is longer than an hour", async () => {
    // Started with the clock 15 days ahead.
    const { clock, wakeAt, sleeps } = jumpClock(Date.UTC(2026, 11, 20, 12, 0));
    const stop = new AbortController();
    const runs: number[] = [];
    const loop = scheduleNights({
      clock,
      at: parseDailyAt("01:00", NY),
      say: () => {},
      signal: stop.signal,
      runNight: async () => {
        runs.push(clock.now());
        stop.abort();
        return 0;
      },
    });
    await wakeAt(Date.UTC(2026, 11, 5, 5, 30)); // set back: 00:30 New York, Dec 5
    await wakeAt(Date.UTC(2026, 11, 5, 6, 0)); // 01:00 New York, Dec 5
    stop.abort();
    await loop;
    expect(runs.map(ny)).toEqual(["2026-12-05 01:00"]);
    expect(Math.max(...sleeps)).toBeLessThanOrEqual(HOUR);
  });

  it("P11, P13: a clock set back 45 minutes after tonight's night ran does not run that night again", async () => {
    const { clock, wakeAt: tick, set } = jumpClock(Date.UTC(2026, 11, 5, 5, 30)); // 00:30 NY
    const stop = new AbortController();
    const runs: number[] = [];
    const loop = scheduleNights({
      clock,
      at: parseDailyAt("01:00", NY),
      say: () => {},
      signal: stop.signal,
      runNight: async (_s, sch) => {
        runs.push(sch?.began ?? Number.NaN);
        set(Date.UTC(2026, 11, 5, 6, 20)); // it ends at 01:20
        return 0;
      },
    });
    await tick(Date.UTC(2026, 11, 5, 6, 0)); // 01:00: Dec 5's night runs
    await tick(Date.UTC(2026, 11, 5, 5, 35)); // the clock set back to 00:35
    await tick(Date.UTC(2026, 11, 5, 6, 0)); // 01:00 again
    stop.abort();
    await loop;
    expect(runs.map(ny)).toEqual(["2026-12-05 01:00"]);
  });

  it("P11: a date whose night already ran here (nor start restarted with a later --at, a nor night by hand) is not said to run nor run again; the next date's runs at its time", async () => {
    // Night 2026-12-05 ran at 23:01 New York and ended; nor start restarted at 23:10 with --at 23:31.
    const start = Date.UTC(2026, 11, 6, 4, 10); // 23:10 New York, Dec 5
    const ended = new Date(Date.UTC(2026, 11, 6, 4, 1)).toISOString();
    const { runs, lines } = await loopFrom(start, "23:31", 1, async () => 0, {
      over: async (night) => (night === "2026-12-05" ? ended : undefined),
    });
    expect(runs.map((r) => ny(r.at))).toEqual(["2026-12-06 23:31"]);
    expect(lines[0]).toBe(
      "night 2026-12-05 has already run on this store (it ended 2026-12-05 23:01 America/New_York); it is not run again today",
    );
    expect(lines.some((l) => l.includes("runs at 2026-12-05"))).toBe(false);
    expect(lines).toContain(
      "the next night runs at 2026-12-06 23:31 America/New_York (in 24h 21m; every day at 23:31 America/New_York); Ctrl-C stops",
    );
  });

  it("P11: a night run by hand while nor start waits for its time is seen when the time comes: not run again", async () => {
    const start = Date.UTC(2026, 11, 5, 6, 0); // 01:00 New York, Dec 5
    const doneByHand = Date.UTC(2026, 11, 5, 6, 30); // 01:30 New York
    const clock = new ManualClock(start);
    const { runs, lines } = await loopFrom(clock, "02:00", 1, async () => 0, {
      over: async (night) =>
        night === "2026-12-05" && clock.now() >= doneByHand
          ? new Date(doneByHand).toISOString()
          : undefined,
    });
    expect(runs.map((r) => ny(r.at))).toEqual(["2026-12-06 02:00"]);
    expect(lines).toContain(
      "night 2026-12-05 has already run on this store (it ended 2026-12-05 01:30 America/New_York); it is not run again today",
    );
  });

  it("P13: a night of an earlier date still run by another process at the night's time is waited for, then tonight's starts (not refused beside it and left out)", async () => {
    const busyUntil = Date.UTC(2026, 11, 5, 8, 30); // 03:30 New York
    const clock = new ManualClock(Date.UTC(2026, 11, 5, 5, 30));
    const { runs, lines } = await loopFrom(clock, "01:00", 1, async () => 0, {
      busy: async (due) => {
        expect(due).toBe(Date.UTC(2026, 11, 5, 6, 0));
        return clock.now() < busyUntil ? "2026-12-04" : undefined;
      },
    });
    expect(runs.map((r) => ny(r.at))).toEqual(["2026-12-05 03:30"]);
    expect(runs[0]?.scheduled?.nextDue).toBe(Date.UTC(2026, 11, 6, 6, 0));
    expect(lines).toContain(
      `the night due at 2026-12-05 01:00 ${NY} waits: night 2026-12-04 is still being run by another process; it starts once that one has ended`,
    );
    expect(lines).toContain(
      `the night due at 2026-12-05 01:00 ${NY} starts now, late (night 2026-12-04 was still being run by another process)`,
    );
    expect(lines.filter((l) => l.includes("waits:"))).toHaveLength(1);
  });
});
