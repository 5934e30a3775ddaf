import { Readable } from "node:stream";
import { main } from "../../src/cli/main.js";
import type { Clock } from "../../src/clock.js";

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
  /** What the command reads on stdin (default: nothing): text, or bytes in these chunks. */
  stdin?: string | readonly Buffer[];
  /** stdout and stderr say they are a terminal (as under a person's shell). */
  tty?: boolean;
  /** The clock `nor night` reads (CliIo.clock); the system's by default. */
  clock?: Clock;
}

/**
 * `nor ARGS…` in this process: `main()` with its stdout, stderr and stdin passed in, so the
 * loopback fleet's servers in this process keep answering while it runs and no Node start-up
 * is paid. One at a time per test file (the environment and process.exitCode are this
 * process's); a test of kill or lock behaviour spawns `node bin/nor.js` (run-nor.ts) instead.
 */
export async function runMain(args: readonly string[], opts: RunOptions = {}): Promise<Captured> {
  const r = await runMainBytes(args, opts);
  return { code: r.code, stdout: r.stdout.toString("utf8"), stderr: r.stderr };
}

/** The same, with stdout byte for byte (`nor archive show` writes a stored body as received). */
export async function runMainBytes(
  args: readonly string[],
  opts: RunOptions = {},
): Promise<{ code: number; stdout: Buffer; stderr: string }> {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const bytes = (chunk: string | Uint8Array) =>
    typeof chunk === "string" ? Buffer.from(chunk, "utf8") : Buffer.from(chunk);
  const isTTY = opts.tty === true;
  const saved = { ...process.env };
  delete process.env["NOR_DATABASE_URL"];
  Object.assign(process.env, opts.env);
  try {
    // As bin/nor.js: an error main() does not turn into an exit code is said, exit 1.
    const code = await main(["node", "nor", ...args], {
      stdout: { isTTY, write: (c) => out.push(bytes(c)) },
      stderr: { isTTY, write: (c) => err.push(bytes(c)) },
      stdin: Readable.from(
        opts.stdin === undefined ? [] : typeof opts.stdin === "string" ? [opts.stdin] : opts.stdin,
      ),
      ...(opts.clock === undefined ? {} : { clock: opts.clock }),
    }).catch((e: unknown) => {
      err.push(bytes(`nor: ${e instanceof Error ? e.message : String(e)}\n`));
      return 1;
    });
    return { code, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString("utf8") };
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
