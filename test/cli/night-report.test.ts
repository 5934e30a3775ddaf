import { describe, expect, it } from "vitest";
import { nightLine } from "../../src/cli/commands/status.js";
import {
  type NightEnd,
  nextSteps,
  offlineMessage,
  progressLine,
  startLine,
  summaryLines,
  summaryRecord,
} from "../../src/cli/night-report.js";
import { formatLeft } from "../../src/night/duration.js";
import type { OfflineReport } from "../../src/night/run-night.js";

/** 01:00 New York on 2026-11-05 (EST, UTC−5). */
const START = Date.UTC(2026, 10, 5, 6, 0, 0);
const HOUR = 3_600_000;

const end = (over: Partial<NightEnd> = {}): NightEnd => ({
  night: "2026-11-05",
  resumed: false,
  deadlineAt: START + 6 * HOUR,
  startedAt: START,
  endedAt: START + HOUR + 5 * 60_000,
  planned: 160,
  alreadyDone: 0,
  skippedNotRead: 2,
  outcomes: { ok: 120, unchanged: 30, refused: 4, unreachable: 3, unreached: 3 },
  newRecords: 57,
  requests: 341,
  flagsRaised: 2,
  ...over,
});

describe("what nor night says", () => {
  it("P13: the start line names the night, its deadline in New York time, the sources and sites", () => {
    const line = startLine(
      {
        night: "2026-11-05",
        resumed: false,
        deadlineAt: START + 6 * HOUR,
        sources: 160,
        sites: 121,
      },
      START,
    );
    expect(line).toBe(
      "nor night: starting night 2026-11-05 · deadline 07:00 New York (6h 00m from now) · 160 sources on 121 sites",
    );
    expect(
      startLine(
        { night: "2026-11-04", resumed: true, deadlineAt: START + HOUR, sources: 1, sites: 1 },
        START,
      ),
    ).toBe(
      "nor night: resuming night 2026-11-04 · deadline 2026-11-05 02:00 New York (1h 00m from now) · 1 source on 1 site",
    );
  });

  it("P13: progress shows a bar, done of total, requests and the time left to the deadline", () => {
    expect(
      progressLine(
        { done: 40, total: 160, requests: 95, deadlineAt: START + 6 * HOUR },
        START + HOUR,
      ),
    ).toBe("[#####···············] 40/160 sources · 95 requests · 5h 00m left to the deadline");
    expect(progressLine({ done: 0, total: 0, requests: 0, deadlineAt: START }, START + HOUR)).toBe(
      "[####################] 0/0 sources · 0 requests · 0s left to the deadline",
    );
  });

  it("P13, P24: the summary gives outcomes by kind, new records, requests, time against the deadline, flags and what to look at next", () => {
    expect(summaryLines(end())).toEqual([
      "nor night: night 2026-11-05 done",
      "  checked:   160 sources: 120 ok, 30 unchanged, 4 refused, 3 unreachable, 3 unreached",
      "  not read:  2 marked by a person (P24)",
      "  new:       57 new records",
      "  requests:  341",
      "  time:      1h 05m used of 6h 00m to the deadline (07:00 New York)",
      "  flags:     2 raised",
      "next:",
      "  - 2 flags for a person: `nor flags` (P24)",
      "  - 4 sources said no or could not be asked: `nor status` shows why",
      "  - 3 sources failed: `nor status` and `nor log`",
      "  - 3 sources not reached before the deadline: they go first next night (P13)",
      "  - the new records: `nor serve`, then /new",
    ]);
    // P13: those their site's wait or its owner's pace held past the night are said apart.
    const held = nextSteps(end({ outcomes: { unreached: 3 }, held: 2, newRecords: 0 }));
    expect(held).toContain(
      "1 source not reached before the deadline: they go first next night (P13)",
    );
    expect(held).toContain(
      "2 sources not asked: their site asked for a wait, or its owner for a slower pace, that ends after the night (`nor status` says until when); they go first next night (P13)",
    );
    const quiet = end({ outcomes: { unchanged: 160 }, newRecords: 0, flagsRaised: 0 });
    expect(nextSteps(quiet)).toEqual(["nothing needs a look; the directory: `nor serve`"]);
    // Records first seen on first reads (or a backfill's older pages) are said apart: not new.
    expect(summaryLines(end({ newRecords: 0, alreadyListed: 1_204 }))).toContain(
      "  new:       0 new records (and 1204 records already listed: first reads and older pages, not new)",
    );
    expect(summaryRecord(end({ alreadyListed: 1 }))).toMatchObject({ alreadyListed: 1 });
    const late = summaryLines(end({ endedAt: START + 6 * HOUR }));
    expect(late).toContain(
      "  time:      6h 00m used of 6h 00m to the deadline (07:00 New York) (the deadline was reached)",
    );
  });

  it("P13: under nor start (or nor demo), which serve the directory, the lines name the command the person ran and the directory's address, not `nor night` and `nor serve`", () => {
    const start = { by: "nor start", directory: "http://127.0.0.1:8080/" } as const;
    expect(
      startLine(
        { night: "2026-11-05", resumed: false, deadlineAt: START + HOUR, sources: 1, sites: 1 },
        START,
        "nor start",
      ),
    ).toMatch(/^nor start: starting night 2026-11-05 · /);
    const lines = summaryLines(end(), start);
    expect(lines[0]).toBe("nor start: night 2026-11-05 done");
    expect(lines.at(-1)).toBe("  - the new records: http://127.0.0.1:8080/new");
    expect(lines.join("\n")).not.toMatch(/nor night|nor serve/);
    const quiet = end({ outcomes: { unchanged: 160 }, newRecords: 0, flagsRaised: 0 });
    expect(nextSteps(quiet, start)).toEqual([
      "nothing needs a look; the directory: http://127.0.0.1:8080/",
    ]);
    expect(summaryRecord(end(), start)).toMatchObject({
      next: expect.arrayContaining(["the new records: http://127.0.0.1:8080/new"]),
    });
    expect(summaryLines(end(), { by: "nor demo", directory: "http://[::1]:9/" })[0]).toBe(
      "nor demo: night 2026-11-05 done",
    );
  });

  it("P13: a night's length and time left are rounded to the nearest unit shown, never down: 1 h 59 min 59 s used reads 2h 00m", () => {
    const long = summaryLines(end({ endedAt: START + 2 * HOUR - 1_000 }));
    expect(long).toContain("  time:      2h 00m used of 6h 00m to the deadline (07:00 New York)");
    expect(formatLeft(2 * HOUR - 1_000)).toBe("2h 00m");
    expect(formatLeft(HOUR + 29 * 60_000 + 31_000)).toBe("1h 30m");
    expect(formatLeft(HOUR + 29 * 60_000 + 29_000)).toBe("1h 29m");
    expect(formatLeft(HOUR - 400)).toBe("1h 00m");
    // Under an hour the seconds are shown, rounded to the nearest one.
    expect(formatLeft(59 * 60_000 + 29_600)).toBe("59m 30s");
    expect(formatLeft(8_499)).toBe("8s");
  });

  it("the same summary as one structured record", () => {
    expect(summaryRecord(end())).toEqual({
      resumed: false,
      planned: 160,
      alreadyDone: 0,
      skippedNotRead: 2,
      outcomes: { ok: 120, unchanged: 30, refused: 4, unreachable: 3, unreached: 3 },
      newRecords: 57,
      alreadyListed: 0,
      requests: 341,
      usedMs: HOUR + 5 * 60_000,
      deadlineAt: "2026-11-05T12:00:00.000Z",
      // Its 3 unreached sources were left by the deadline (a run before this one met it).
      deadlineReached: true,
      flagsRaised: 2,
      checkerOffline: false,
      next: nextSteps(end()),
    });
  });

  it("P20, P23: a night the checker could not reach the internet says whose problem it was", () => {
    const offline = end({
      outcomes: { "checker-offline": 160 },
      newRecords: 0,
      checkerOffline: true,
      offline: { failedSites: 121, sites: 121, sources: 160 },
    });
    expect(offlineMessage(offline.offline as OfflineReport)).toBe(
      "the checker could not reach the internet: 121 of 121 sites failed with DNS/connect errors; nothing was judged about them (160 sources recorded as checker-offline)",
    );
    expect(summaryRecord(offline)["checkerOffline"]).toBe(true);
    expect(summaryLines(offline)).toContain("  checked:   160 sources: 160 checker-offline");
    expect(nextSteps(offline)[0]).toMatch(/^160 sources not judged: the checker could not reach/);
    expect(
      offlineMessage({
        failedSites: 0,
        sites: 0,
        sources: 4,
        canary: { url: "https://example.com/", reason: "unreachable: dns: ENOTFOUND" },
      }),
    ).toBe(
      "the checker could not reach the internet: the canary https://example.com/ failed (unreachable: dns: ENOTFOUND); nothing was judged about them (4 sources recorded as checker-offline)",
    );
  });
});

describe("nor status's line for a night", () => {
  it("P13: a finished night says how many of its sources the deadline left unreached", () => {
    const base = {
      night: "2026-11-05",
      startedAt: "2026-11-05T06:00:00.000Z",
      deadlineAt: "2026-11-05T06:01:00.000Z",
      finishedAt: "2026-11-05T06:02:00.000Z",
      runs: 2,
      checked: 60,
      closedIncomplete: false,
      cutShort: 0,
      held: 0,
    };
    expect(nightLine({ ...base, unreached: 36 })).toBe(
      "night 2026-11-05: finished 2026-11-05T06:02:00.000Z (deadline 2026-11-05T06:01:00.000Z); 60 sources with an outcome, 36 of them not reached before the deadline (they go first next night)",
    );
    expect(nightLine({ ...base, unreached: 0 })).toBe(
      "night 2026-11-05: finished 2026-11-05T06:02:00.000Z (deadline 2026-11-05T06:01:00.000Z); 60 sources with an outcome",
    );
    // P15: those asked and answered whose retry the deadline stopped are said apart.
    expect(nightLine({ ...base, unreached: 0, cutShort: 2 })).toBe(
      "night 2026-11-05: finished 2026-11-05T06:02:00.000Z (deadline 2026-11-05T06:01:00.000Z); 60 sources with an outcome, 2 of them cut short (asked and answered; a retry or next request would have started after the deadline, or, a recheck, the site its redirect leads to, or its own before its retry, was down or asked to wait) (they go first next night)",
    );
    // P13: those their site's wait or its owner's pace held past the night are said apart too.
    expect(nightLine({ ...base, unreached: 5, held: 3 })).toBe(
      "night 2026-11-05: finished 2026-11-05T06:02:00.000Z (deadline 2026-11-05T06:01:00.000Z); 60 sources with an outcome, 2 of them not reached before the deadline, 3 not asked: their site's wait or its owner's pace ends after the night (they go first next night)",
    );
    expect(nightLine({ ...base, unreached: 3, held: 3 })).toBe(
      "night 2026-11-05: finished 2026-11-05T06:02:00.000Z (deadline 2026-11-05T06:01:00.000Z); 60 sources with an outcome, 3 of them not asked: their site's wait or its owner's pace ends after the night (they go first next night)",
    );
  });
});
