import { main } from "../../src/cli/main.js";

export interface Captured {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `nor ARGS…` in this process, capturing what it writes. */
export async function nor(...args: string[]): Promise<Captured> {
  let stdout = "";
  let stderr = "";
  const out = process.stdout.write.bind(process.stdout);
  const err = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  }) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  }) as typeof process.stderr.write;
  try {
    const code = await main(["node", "nor", ...args]);
    return { code, stdout, stderr };
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
    process.exitCode = 0;
  }
}
