import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const ROOT = join(import.meta.dirname, "..", "..");

/**
 * Builds dist/ once per test file. Type errors in files other engineers are mid-way through
 * must not stop the JS from being emitted, hence --noEmitOnError false; the CLI's own files
 * are type-checked by `tsc -p tsconfig.json` separately.
 */
export function buildCli(): void {
  withBuildLock(() =>
    spawnSync("npx", ["tsc", "-p", "tsconfig.build.json", "--noEmitOnError", "false"], {
      cwd: ROOT,
      encoding: "utf8",
      timeout: 120_000,
    }),
  );
  if (!existsSync(join(ROOT, "dist", "cli", "commands", "log.js"))) {
    throw new Error("build did not produce dist/cli/commands/log.js");
  }
}

/**
 * Two test files building at once would rewrite dist/ under each other's running CLI, so the
 * build takes a lock (an atomic mkdir), waiting at most two minutes, breaking a stale one.
 */
function withBuildLock(fn: () => void): void {
  const lock = join(tmpdir(), "nor-build.lock");
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      const age = Date.now() - (statSafe(lock) ?? Date.now());
      if (age > 120_000) rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`build lock ${lock} held too long`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
    }
  }
  try {
    fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function statSafe(path: string): number | undefined {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

export interface NorRun {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** `node bin/nor.js …` as a separate process, without NOR_DATABASE_URL unless given. */
export function runNor(args: string[], env: Record<string, string> = {}): NorRun {
  const base = { ...process.env };
  delete base["NOR_DATABASE_URL"];
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [join(ROOT, "bin", "nor.js"), ...args], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...base, ...env },
    timeout: 30_000,
    maxBuffer: 256 * 1024 * 1024,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, ms: performance.now() - t0 };
}
