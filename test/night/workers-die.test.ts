import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { RUNNERS_DIR } from "../../src/night/night-runners.js";
import { ROOT } from "../cli/run-nor.js";
import { type Fleet, startFleet } from "../fleet/fleet.js";
import { feedSites } from "./cli-night.js";

/**
 * `nor night --workers 3` when one of its workers is killed by a signal (kill -9, the OOM
 * killer) while the night runs: the first process still waits for the others, prints the
 * summary of the whole night (the dead worker's sites finished by the others) and exits 1
 * naming the worker. It exited 0 before, with no summary of its own: a child killed by a
 * signal has no exit code, and its 'exit', heard of already, was waited for again.
 */
const NIGHT = "2026-11-05";
const dir = mkdtempSync(join(tmpdir(), "nor-workers-die-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("nor night --workers: a worker killed by a signal", () => {
  it("P13: the night's first process waits for the rest, sums up the whole night and exits 1 naming the dead worker", async () => {
    const fleet: Fleet = await startFleet({ now: () => Date.now() });
    // Every feed's answer waits until the worker is dead: the night is under way, each
    // process waiting on one, when it is killed.
    let held: (() => void)[] | undefined = [];
    const answer = (send: () => void) => {
      if (held) held.push(send);
      else send();
    };
    try {
      // Two sites that answer, one that refuses (403) and one whose pages are gone (404).
      const kinds = ["ok", "ok", "refused", "gone"] as const;
      const catalog = await feedSites(fleet, dir, kinds, 3, answer);
      const sources = kinds.length * 3;
      const data = join(dir, "data");
      const env = { ...process.env };
      delete env["NOR_DATABASE_URL"];
      const night = spawn(
        process.execPath,
        [
          join(ROOT, "bin", "nor.js"),
          ...["night", "--catalog", catalog, "--data", data, "--night", NIGHT],
          ...["--workers", "3", "--concurrency", "1"],
          ...["--allow-private-addresses", "--gap-ms", "50"],
        ],
        { cwd: ROOT, env, stdio: ["ignore", "ignore", "pipe"] },
      );
      let stderr = "";
      night.stderr.on("data", (c: Buffer) => {
        stderr += c.toString();
      });
      const ended = new Promise<number | null>((r) => night.once("exit", (code) => r(code)));
      const timer = setTimeout(() => night.kill("SIGKILL"), 90_000);
      try {
        // Bounded: until the three processes have marked the night and three feeds are
        // asked (each process on a site of its own), 60 s at most.
        const marks = () =>
          existsSync(join(data, RUNNERS_DIR)) ? readdirSync(join(data, RUNNERS_DIR)) : [];
        for (let i = 0; i < 600 && (marks().length < 3 || (held?.length ?? 0) < 3); i++)
          await sleep(100);
        const pids = marks().map((m) => Number(/_(\d+)_[^_]+\.json$/.exec(m)?.[1]));
        expect(pids).toHaveLength(3);
        expect(held?.length ?? 0).toBeGreaterThanOrEqual(3);
        const worker = pids.find((p) => p !== night.pid) as number;
        expect(worker).toBeGreaterThan(0);
        process.kill(worker, "SIGKILL");
        for (let i = 0; i < 300 && alive(worker); i++) await sleep(100);
        expect(alive(worker)).toBe(false);
        // The night goes on: every answer is sent, from now on at once.
        const waiting = held ?? [];
        held = undefined;
        for (const send of waiting) send();

        const code = await ended;
        expect(stderr).toContain(
          `nor: 1 of 2 workers failed: worker pid ${worker} was killed by SIGKILL`,
        );
        expect(code, stderr).toBe(1);
        // Said when it happened, too.
        expect(stderr).toContain(`worker pid ${worker} was killed by SIGKILL; the night goes on`);
      } finally {
        clearTimeout(timer);
        if (night.exitCode === null && night.signalCode === null) night.kill("SIGKILL");
      }

      // Every source has its outcome: the dead worker's sites were finished by the others.
      const { default: Database } = await import("better-sqlite3");
      const db = new Database(join(data, "nor.db"), { readonly: true });
      const byKind = db
        .prepare(
          "select outcome, count(*) n from night_sources where night = ? group by outcome order by outcome",
        )
        .all(NIGHT) as { outcome: string; n: number }[];
      const newRecords = (
        db.prepare("select count(*) n from records where first_seen_night = ?").get(NIGHT) as {
          n: number;
        }
      ).n;
      db.close();
      const whole = Object.fromEntries(byKind.map((r) => [r.outcome, r.n]));
      expect(Object.values(whole).reduce((a, n) => a + n, 0)).toBe(sources);
      expect(whole["ok"]).toBe(6);
      expect(whole["refused"]).toBeGreaterThan(0);
      expect(whole["gone"]).toBeGreaterThan(0);
      expect(newRecords).toBe(12);
      // (All first reads: already listed, none new on record.)

      // The first process's summary comes last, after its workers ended, and counts the whole
      // night: every process's outcomes and records, not only its own.
      const lines = stderr
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      const done = lines.filter((l) => l["msg"] === "night done");
      // The surviving worker's, then the first process's (the dead worker said nothing).
      expect(done).toHaveLength(2);
      expect(done.at(-1)).toMatchObject({
        night: NIGHT,
        resumed: false,
        planned: sources,
        outcomes: whole,
        newRecords: 0,
        alreadyListed: newRecords,
      });
      const next = done.at(-1)?.["next"] as string[];
      expect(next.some((s) => s.includes("said no or could not be asked"))).toBe(true);
      expect(next.some((s) => s.includes("failed: `nor status` and `nor log`"))).toBe(true);
    } finally {
      for (const send of held ?? []) send();
      await fleet.close();
    }
  }, 120_000);
});
