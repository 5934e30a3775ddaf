import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { runMainBytes } from "../../cli/cli-capture.js";

/** The built CLI (`npm test` builds dist/ first), as an operator runs it. */
const bin = fileURLToPath(new URL("../../../bin/nor.js", import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

/**
 * `nor ARGS` in this process (its streams passed in); with `preload`, in a child process started
 * with `--import FILE` (the network guard, which watches a whole process's connections).
 */
export async function runCli(
  args: string[],
  opts: { preload?: string; env?: Record<string, string> } = {},
): Promise<CliResult> {
  if (opts.preload === undefined) {
    return runMainBytes(args, opts.env ? { env: opts.env } : {});
  }
  const child = spawn(process.execPath, ["--import", opts.preload, bin, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...opts.env },
  });
  const out: Buffer[] = [];
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => out.push(d));
  child.stderr.on("data", (d) => {
    stderr += String(d);
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), 50_000);
  return new Promise((resolve) => {
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: Buffer.concat(out), stderr });
    });
  });
}
