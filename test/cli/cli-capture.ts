import { Readable } from "node:stream";
import { main } from "../../src/cli/main.js";

export interface Captured {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /**
   * Environment for this run, over this process's own; NOR_DATABASE_URL is left out unless
   * given here (as `node bin/nor.js` in run-nor.ts does). Restored afterwards.
   */
  env?: Record<string, string>;
  /** What the command reads on stdin (default: nothing). */
  stdin?: string;
}

/**
 * `nor ARGS…` in this process: `main()` with its stdout, stderr and stdin passed in, so the
 * loopback fleet's servers in this process keep answering while it runs and no Node start-up
 * is paid. One at a time per test file (the environment and process.exitCode are this
 * process's); a test of kill or lock behaviour spawns `node bin/nor.js` (run-nor.ts) instead.
 */
export async function runMain(args: readonly string[], opts: RunOptions = {}): Promise<Captured> {
  let stdout = "";
  let stderr = "";
  const text = (chunk: string | Uint8Array) =>
    typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
  const saved = { ...process.env };
  delete process.env["NOR_DATABASE_URL"];
  Object.assign(process.env, opts.env);
  try {
    const code = await main(["node", "nor", ...args], {
      stdout: {
        write: (c) => {
          stdout += text(c);
        },
      },
      stderr: {
        write: (c) => {
          stderr += text(c);
        },
      },
      stdin: Readable.from(opts.stdin === undefined ? [] : [opts.stdin]),
    });
    return { code, stdout, stderr };
  } finally {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
    process.exitCode = 0;
  }
}

/** Runs `nor ARGS…` in this process, capturing what it writes. */
export function nor(...args: string[]): Promise<Captured> {
  return runMain(args);
}
