import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runStart } from "../../src/cli/commands/start.js";
import { ManualClock } from "../../src/clock.js";
import { randomIds } from "../../src/ids.js";
import { registerNightRunner } from "../../src/night/night-runners.js";
import { openStore, type StoreLocation } from "../../src/store/db.js";
import { postgresFactory } from "../store/stores.js";
import { writeVillageCatalog } from "./catalogs.js";
import { runMain } from "./cli-capture.js";

/**
 * P13, once a night, none skipped: `nor start --at 01:00` (re)started after its daily time (by
 * systemd after a reboot or an upgrade) begins that date's night now, late, when the store owes
 * it (it has run nights, and none of that date ran or runs), by the rule a machine that slept
 * through the time keeps (on its date in New York, with an hour's room); a store that ran it, a
 * process that runs it, a first start, or a date already over leave the next to its own time.
 * Read from the store (SQLite), the nights' processes stood in for by `runNight`.
 */
const NY = "America/New_York";
const HOUR = 3_600_000;
const dirs: string[] = [];
const pgBase = process.env["NOR_TEST_POSTGRES_URL"];
const pgf = pgBase ? postgresFactory(pgBase) : undefined;
afterAll(async () => {
  await pgf?.cleanup();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

interface Night {
  night: string;
  startedAt: number;
  finishedAt?: number;
}

/** `nor start` on a store holding `nights`, begun at `now`, until it says when the next runs. */
async function startAt(
  now: number,
  nights: Night[],
  more: { marked?: string; pg?: { url: string } } = {},
) {
  const dir = mkdtempSync(join(tmpdir(), "nor-start-restarted-"));
  dirs.push(dir);
  const catalog = writeVillageCatalog(join(dir, "catalog.yaml"), "Restart", {
    "restart-agendas": 'records: agendas, url: "http://127.0.0.1:9/agendas.rss"',
  });
  const data = join(dir, "data");
  const env = more.pg === undefined ? {} : { NOR_DATABASE_URL: more.pg.url };
  // Imported first, as the nights before this start ran it (a night beside it runs the same).
  const imported = await runMain(["catalog", "import", catalog, "--data", data], { env });
  expect(imported.code, imported.stderr).toBe(0);
  const loc: StoreLocation =
    more.pg === undefined ? { kind: "sqlite", dir: data } : { kind: "postgres", url: more.pg.url };
  const store = await openStore(loc);
  try {
    for (const n of nights)
      await store.db
        .insertInto("nights")
        .values({
          night: n.night,
          started_at: new Date(n.startedAt).toISOString(),
          deadline_at: new Date(n.startedAt + 6 * HOUR).toISOString(),
          finished_at: n.finishedAt === undefined ? null : new Date(n.finishedAt).toISOString(),
          runs: 1,
        })
        .execute();
  } finally {
    await store.close();
  }
  // A live process's mark of a night on this data directory (as `nor night` leaves one).
  const runner =
    more.marked === undefined
      ? undefined
      : registerNightRunner(data, more.marked, now, now + 6 * HOUR, randomIds);
  const lines: string[] = [];
  const nightArgs: string[][] = [];
  const stop = new AbortController();
  if (more.pg !== undefined) process.env["NOR_DATABASE_URL"] = more.pg.url;
  try {
    await runStart(
      { catalog: [catalog], data, host: "127.0.0.1", port: "0", at: "01:00", zone: NY },
      {
        clock: new ManualClock(now),
        say: (l) => {
          lines.push(l);
          if (l.startsWith("the next night runs at")) stop.abort();
        },
        signal: stop.signal,
        runNight: async (args) => {
          nightArgs.push(args);
          return 0;
        },
      },
    );
  } finally {
    if (more.pg !== undefined) delete process.env["NOR_DATABASE_URL"];
    runner?.release();
  }
  // Lines 0-2: the catalog, where the directory is, the console; the last, its stop.
  expect(lines.at(-1)).toBe("stopped");
  return { lines: lines.slice(3, -1), nightArgs };
}

/** The night of Dec 7, run at its time and finished. */
const dec7: Night = {
  night: "2026-12-07",
  startedAt: Date.UTC(2026, 11, 7, 6, 0),
  finishedAt: Date.UTC(2026, 11, 7, 8, 0),
};
const at0110 = Date.UTC(2026, 11, 8, 6, 10); // 01:10 New York, Dec 8
const scheduledOf = (args: string[]) => args[args.indexOf("--scheduled") + 1];
const deadlineOf = (args: string[]) => args[args.indexOf("--deadline") + 1];

describe("nor start restarted after its daily time", () => {
  it("P13: restarted at 01:10 on a store that ran last night and has no night of today, it begins today's now, late, said so; its deadline ends before tomorrow's", async () => {
    const { lines, nightArgs } = await startAt(at0110, [dec7]);
    expect(lines).toEqual([
      `the night due at 2026-12-08 01:00 ${NY} starts now, late (\`nor start\` began at 2026-12-08 01:10 ${NY}, after its time, and this store has no night of 2026-12-08)`,
      "the night is done; `nor status` and the directory show what it found",
      `the next night runs at 2026-12-09 01:00 ${NY} (in 23h 50m; every day at 01:00 ${NY}); Ctrl-C stops`,
    ]);
    expect(nightArgs).toHaveLength(1);
    const args = nightArgs[0] ?? [];
    expect(scheduledOf(args)).toBe(new Date(at0110).toISOString());
    // Room to 00:55 on Dec 9 is 23 h 45 min, more than the default 6 h: none passed on.
    expect(args).not.toContain("--deadline");
  }, 60_000);

  it("P13: restarted at 23:30, an hour and 30 minutes before the next, it begins today's with a deadline 5 minutes before it; at 23:57 (under an hour's room) or at 00:10 (its date over) it leaves it to the next one's time", async () => {
    const late = await startAt(Date.UTC(2026, 11, 9, 4, 30), [dec7]); // 23:30 New York, Dec 8
    expect(late.nightArgs).toHaveLength(1);
    expect(deadlineOf(late.nightArgs[0] ?? [])).toBe(`${90 * 60 - 5 * 60}s`);
    expect(late.lines[0]).toContain(`the night due at 2026-12-08 01:00 ${NY} starts now, late`);
    // At 23:57 (58 minutes' room, under the hour a late night needs) and at 00:10 on Dec 9
    // (its date over in New York): nothing begun before the next night's time.
    for (const now of [Date.UTC(2026, 11, 9, 4, 57), Date.UTC(2026, 11, 9, 5, 10)]) {
      const over = await startAt(now, [dec7]);
      expect(over.nightArgs).toEqual([]);
      expect(over.lines).toEqual([
        expect.stringMatching(/^the next night runs at 2026-12-09 01:00/),
      ]);
    }
  }, 60_000);

  it("P11, P13: restarted at 01:10 after today's night ran (finished, or begun by another process that runs it now), or on a store that never ran a night, it begins none before tomorrow's", async () => {
    const ran = await startAt(at0110, [
      dec7,
      { night: "2026-12-08", startedAt: Date.UTC(2026, 11, 8, 6, 0), finishedAt: at0110 - 60_000 },
    ]);
    expect(ran.nightArgs).toEqual([]);
    expect(ran.lines).toEqual([
      `the next night runs at 2026-12-09 01:00 ${NY} (in 23h 50m; every day at 01:00 ${NY}); Ctrl-C stops`,
    ]);
    // A live process marks itself as running tonight's here (its row not written yet).
    const marked = await startAt(at0110, [dec7], { marked: "2026-12-08" });
    expect(marked.nightArgs).toEqual([]);
    expect(marked.lines.at(-1)).toMatch(/^the next night runs at 2026-12-09 01:00/);
    // A first start: no night owed; the first is at the daily time.
    const first = await startAt(at0110, []);
    expect(first.nightArgs).toEqual([]);
    expect(first.lines).toEqual([
      `the next night runs at 2026-12-09 01:00 ${NY} (in 23h 50m; every day at 01:00 ${NY}); Ctrl-C stops`,
    ]);
  }, 60_000);

  it.skipIf(!pgf)(
    "P13 (PostgreSQL): restarted at 01:10, the store's nights read from PostgreSQL: today's begun now, late, when none of today's is there; not again once it is",
    async () => {
      const owed = await startAt(at0110, [dec7], { pg: (await pgf?.fresh()) as { url: string } });
      expect(owed.nightArgs.map(scheduledOf)).toEqual([new Date(at0110).toISOString()]);
      expect(owed.lines[0]).toContain(`the night due at 2026-12-08 01:00 ${NY} starts now, late`);
      const ran = await startAt(
        at0110,
        [
          dec7,
          {
            night: "2026-12-08",
            startedAt: Date.UTC(2026, 11, 8, 6, 0),
            finishedAt: at0110 - 60_000,
          },
        ],
        { pg: (await pgf?.fresh()) as { url: string } },
      );
      expect(ran.nightArgs).toEqual([]);
      expect(ran.lines).toEqual([
        expect.stringMatching(/^the next night runs at 2026-12-09 01:00/),
      ]);
    },
    60_000,
  );
});
