import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type NightExit, runStart } from "../../src/cli/commands/start.js";
import { ManualClock } from "../../src/clock.js";
import { openStore } from "../../src/store/db.js";

/**
 * P13: `nor start --at 20:00 --deadline 20h` runs nights past 01:00 New York. One interrupted
 * (a reboot) is resumed when `nor start` comes back at 14:14 the next day, before its deadline,
 * and one whose process a crash (SIGKILL) ended is started again: by the same rule `nor night`
 * and `nor status` keep, not cut at 01:00 New York as if every night ran on the default schedule.
 */
const NY = "America/New_York";
const dir = mkdtempSync(join(tmpdir(), "nor-start-late-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("nor start --at 20:00 --deadline 20h", () => {
  it("P13: resumes at 14:14 New York the night begun at 20:00 the day before, and starts it again after a SIGKILL, until its deadline", async () => {
    const catalog = join(dir, "catalog.yaml");
    writeFileSync(
      catalog,
      `governments:
  - { id: village-of-late, name: Village of Late, kind: village, county: Franklin }
sources:
  - { id: late-agendas, government: village-of-late, records: agendas, url: "http://127.0.0.1:9/agendas.rss" }
`,
    );
    const data = join(dir, "data");
    const store = await openStore({ kind: "sqlite", dir: data });
    try {
      await store.db
        .insertInto("nights")
        .values({
          night: "2026-12-04",
          started_at: "2026-12-05T01:00:00.000Z",
          deadline_at: "2026-12-05T21:00:00.000Z",
          finished_at: null,
          runs: 1,
        })
        .execute();
    } finally {
      await store.close();
    }
    const clock = new ManualClock(Date.UTC(2026, 11, 5, 19, 14));
    const lines: string[] = [];
    const stop = new AbortController();
    const exits: NightExit[] = [{ code: null, signal: "SIGKILL" }, 0];
    let runs = 0;
    const running = runStart(
      {
        catalog: [catalog],
        data,
        host: "127.0.0.1",
        port: "0",
        at: "20:00",
        zone: NY,
        deadline: "20h",
      },
      {
        clock,
        say: (l) => {
          lines.push(l);
          if (l.startsWith("the next night runs at")) stop.abort();
        },
        signal: stop.signal,
        runNight: async () => exits[runs++] ?? 0,
      },
    );
    // The restart's 10 s pause is the clock's: moved on whenever it sleeps, until the schedule
    // says when the next night runs (bounded: stopped anyway after the last turn).
    for (let i = 0; i < 3000 && !stop.signal.aborted; i++) {
      await new Promise((r) => setTimeout(r, 10));
      if (clock.pending > 0 && !stop.signal.aborted) await clock.advance(10_000);
    }
    const reached = stop.signal.aborted;
    stop.abort();
    await running;
    expect(reached, lines.join("\n")).toBe(true);
    expect(lines).toContain(
      `night 2026-12-04 is not finished (interrupted, or run by another command now); it resumes now and may run until 2026-12-05 16:00 ${NY} (its deadline or the next night's start)`,
    );
    expect(lines).toContain(
      "the night's process was ended by SIGKILL; night 2026-12-04 resumes in 10s (restart 1 of 3)",
    );
    expect(lines).toContain("the night is done; `nor status` and the directory show what it found");
    expect(runs).toBe(2);
    expect(lines.at(-1)).toBe("stopped");
  }, 60_000);
});
