import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

export const ROOT = join(import.meta.dirname, "..", "..");

/** dist/ is built once for the whole run by test/global-build.ts; this only checks it is there. */
export function buildCli(): void {
  if (!existsSync(join(ROOT, "dist", "cli", "main.js"))) {
    throw new Error("dist/ is not built: vitest's globalSetup (test/global-build.ts) builds it");
  }
}

export interface NorRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `node bin/nor.js …` as a separate process, without NOR_DATABASE_URL unless given: only for
 * what needs a process of its own (a kill, a lock held by another process, what a fresh
 * process loads). Everything else runs in-process: runMain in cli-capture.ts.
 *
 * Not blocking: the loopback fleet's servers live in the test process, so a CLI that talks to
 * them must run while this process keeps answering. Killed after `timeoutMs` (default 60 s),
 * so no test waits forever.
 */
export function runNorAsync(
  args: string[],
  opts: { env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<NorRun> {
  const base = { ...process.env };
  delete base["NOR_DATABASE_URL"];
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [join(ROOT, "bin", "nor.js"), ...args], {
      cwd: ROOT,
      env: { ...base, ...opts.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    p.stdout.on("data", (c: Buffer) => {
      stdout += c.toString();
    });
    p.stderr.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    const timer = setTimeout(() => p.kill("SIGKILL"), opts.timeoutMs ?? 60_000);
    p.on("error", reject);
    p.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * `nor ARGS` in a process of its own under a file-size limit (`ulimit -f BLOCKS`, 512- or
 * 1024-byte blocks by shell: the limit is the process's), without NOR_DATABASE_URL; killed
 * after `timeoutMs`. Its exit code and stderr.
 */
export function norUnderFileSizeLimit(
  blocks: number,
  args: string[],
  timeoutMs = 120_000,
): Promise<{ code: number | null; stderr: string }> {
  const env = { ...process.env };
  delete env["NOR_DATABASE_URL"];
  return new Promise((resolve, reject) => {
    const p = spawn(
      "/bin/sh",
      [
        "-c",
        `ulimit -f ${blocks} && exec "$0" "$@"`,
        process.execPath,
        join(ROOT, "bin", "nor.js"),
        ...args,
      ],
      { cwd: ROOT, env, stdio: ["ignore", "ignore", "pipe"] },
    );
    let stderr = "";
    p.stderr.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    const timer = setTimeout(() => p.kill("SIGKILL"), timeoutMs);
    p.on("error", reject);
    p.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}
