import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { randomIds } from "../../src/ids.js";
import { identityOf } from "../../src/night/night-lock.js";
import { nightsRunning, RUNNERS_DIR, registerNightRunner } from "../../src/night/night-runners.js";

/**
 * The mark a `nor night` leaves of the night it runs (src/night/night-runners.ts) names its
 * process as a lock does (pid, boot, start time): a mark whose pid the system has since given to
 * another program no longer keeps another night from starting, at once, not a day later when
 * the night's time is over. A mark from before the process was named goes by its pid alone.
 */
const dir = mkdtempSync(join(tmpdir(), "nor-runners-identity-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A data directory `name` with a mark of night 2026-11-20 by `pid` of this host, as written. */
function markOf(name: string, pid: number) {
  const data = join(dir, name);
  const runners = join(data, RUNNERS_DIR);
  mkdirSync(runners, { recursive: true });
  const holder = `${hostname()}:${pid}:0a1b2c3d`;
  const mark = (process?: string) =>
    writeFileSync(
      join(runners, "other.json"),
      JSON.stringify({
        night: "2026-11-20",
        holder,
        until: Date.now() + 3_600_000,
        ...(process !== undefined ? { process } : {}),
      }),
    );
  return { data, runners, holder, mark };
}

describe("night-runners: a mark names its process", () => {
  it("P11: a live pid that started after the mark was written is not the night's process; the mark is cleared and another night may start", async () => {
    // A live process of this host, standing for the program the dead night's pid went to.
    const other = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], {
      stdio: "ignore",
    });
    try {
      const pid = other.pid as number;
      const real = identityOf(pid);
      const [, , start = ""] = real.split("\n");
      if (start === "") return; // no start times on this system: nothing to tell them apart by
      const { data, runners, holder, mark } = markOf("a", pid);
      const now = Date.now();
      // Its own process, as the mark names it: the night runs.
      mark(real);
      expect(nightsRunning(data, now)).toEqual([{ night: "2026-11-20", holder }]);
      // A mark written before marks named their process: the pid alone says it runs.
      mark();
      expect(nightsRunning(data, now)).toEqual([{ night: "2026-11-20", holder }]);
      // The same pid, started at another time: another program's now.
      const lines = real.split("\n");
      lines[2] = String(Number(start) + 1);
      mark(lines.join("\n"));
      expect(nightsRunning(data, now)).toEqual([]);
      const runner = registerNightRunner(data, "2026-11-21", now, now + 3_600_000, randomIds);
      try {
        expect(runner.joined).toBe(false);
        const left = readdirSync(runners);
        expect(left).toHaveLength(1);
        expect(left).not.toContain("other.json");
        expect(nightsRunning(data, now).map((r) => r.night)).toEqual(["2026-11-21"]);
      } finally {
        runner.release();
      }
      expect(readdirSync(runners)).toEqual([]);
    } finally {
      other.kill("SIGKILL");
    }
  });

  it("P11: a mark of another pid namespace (a container sharing the directory and host name) holds while its boot is this one, whatever its pid is here", async () => {
    // A pid that has ended here: in another namespace it may be a live night.
    const gone = spawn(process.execPath, ["-e", "0"], { stdio: "ignore" });
    const pid = await new Promise<number>((resolve) =>
      gone.on("exit", () => resolve(gone.pid as number)),
    );
    const [, boot = "", start = "", ns = ""] = identityOf(process.pid).split("\n");
    if (boot === "" || ns === "") return; // no boot id or namespaces on this system
    const { data, holder, mark: markWith } = markOf("b", pid);
    const mark = (bootId: string) => markWith(`${pid}\n${bootId}\n${start}\npid:[1]\n`);
    const now = Date.now();
    mark(boot);
    expect(nightsRunning(data, now)).toEqual([{ night: "2026-11-20", holder }]);
    expect(() => registerNightRunner(data, "2026-11-21", now, now + 3_600_000, randomIds)).toThrow(
      /night 2026-11-20 is being run/,
    );
    // Written in another boot: gone, whatever namespace it was in.
    mark("another-boot");
    expect(nightsRunning(data, now)).toEqual([]);
  });
});
