import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const support = fileURLToPath(new URL("./", import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

/** `nor ARGS` in a child process; `preload` adds `--import FILE` (the network guard). */
export function runCli(
  args: string[],
  opts: { preload?: string; env?: Record<string, string> } = {},
): Promise<CliResult> {
  const nodeArgs = ["--import", join(support, "ts-loader.mjs")];
  if (opts.preload) nodeArgs.push("--import", opts.preload);
  const child = spawn(process.execPath, [...nodeArgs, join(support, "cli-entry.ts"), ...args], {
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
