import type { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  NIGHT_MALLOC_ARENA_MAX,
  NIGHT_NODE_OPTIONS,
  nightEnv,
  PARENT_PID_ENV,
  startNightProcess,
  workerEndMeans,
} from "../../src/cli/night-process.js";

describe("a night's process", () => {
  it("bounds malloc's arenas at two, keeps the rest of the environment, and keeps an operator's own value", () => {
    const given = { PATH: "/usr/bin", TZ: "America/New_York" };
    const env = nightEnv(given);
    expect(env).toEqual({ PATH: "/usr/bin", TZ: "America/New_York", MALLOC_ARENA_MAX: "2" });
    expect(NIGHT_MALLOC_ARENA_MAX).toBe("2");
    expect(given).not.toHaveProperty("MALLOC_ARENA_MAX");
    expect(nightEnv({ ...given, MALLOC_ARENA_MAX: "8" })["MALLOC_ARENA_MAX"]).toBe("8");
  });

  it("is started by node with the night's options before the script, in the night's environment", () => {
    const seen: { command: string; args: readonly string[]; options: Record<string, unknown> }[] =
      [];
    const spawner = ((
      command: string,
      args: readonly string[],
      options: Record<string, unknown>,
    ) => {
      seen.push({ command, args, options });
      return { pid: 1 };
    }) as unknown as typeof spawn;
    startNightProcess("bin/nor.js", ["night", "--night", "2026-11-05"], "ignore", spawner);
    expect(seen).toHaveLength(1);
    const [s] = seen as [(typeof seen)[number]];
    expect(s.command).toBe(process.execPath);
    expect(s.args).toEqual([...NIGHT_NODE_OPTIONS, "bin/nor.js", "night", "--night", "2026-11-05"]);
    expect(NIGHT_NODE_OPTIONS).toContain("--max-semi-space-size=4");
    expect(s.options["stdio"]).toBe("ignore");
    expect(s.options["env"]).toEqual({
      ...process.env,
      MALLOC_ARENA_MAX: process.env["MALLOC_ARENA_MAX"] ?? "2",
      // Whom the night watches: it stops in order once this command is gone.
      [PARENT_PID_ENV]: String(process.pid),
    });
  });

  it("is how `nor start` and `nor night --workers` start a night: neither spawns one by hand", () => {
    for (const file of ["start.ts", "night.ts"]) {
      const text = readFileSync(join(import.meta.dirname, "../../src/cli/commands", file), "utf8");
      expect(text).toMatch(/\bstartNightProcess\(/);
      expect(text).not.toMatch(/\bspawn\(/);
      expect(text).not.toMatch(/import \{[^}]*\bspawn\b[^}]*\} from "node:child_process"/);
    }
  });

  it("a worker's exit 2 (a reason a person must mend, as an archive that cannot keep an answer) stops the whole night; a kill or a crash is a death the others cover", () => {
    const end = (code: number | null, signal: NodeJS.Signals | null = null) => ({
      pid: 42,
      code,
      signal,
    });
    expect(workerEndMeans(end(0))).toBe("done");
    expect(workerEndMeans(end(2))).toBe("refused");
    expect(workerEndMeans(end(1))).toBe("died");
    expect(workerEndMeans(end(null, "SIGKILL"))).toBe("died");
    expect(workerEndMeans({ ...end(null), error: new Error("EAGAIN") })).toBe("died");
  });
});
