import { spawnSync } from "node:child_process";
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
