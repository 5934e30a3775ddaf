import { AsyncLocalStorage } from "node:async_hooks";

/** Where a command writes: process.stdout / process.stderr, or what `main` was given. */
export interface CliOutput {
  write(chunk: string | Uint8Array): unknown;
  readonly isTTY?: boolean;
}

/** The streams one run of the CLI reads and writes. */
export interface CliIo {
  stdout: CliOutput;
  stderr: CliOutput;
  stdin: AsyncIterable<string | Uint8Array> & { readonly isTTY?: boolean };
}

const current = new AsyncLocalStorage<CliIo>();

/**
 * Runs `fn` with these streams as the commands' stdout, stderr and stdin, for everything it
 * starts (awaited or not), so `main` can be run in-process with its output captured.
 */
export function withIo<T>(io: CliIo, fn: () => Promise<T>): Promise<T> {
  return current.run(io, fn);
}

/** The streams of the run under way; the process's own outside `main`. */
export function io(): CliIo {
  return (
    current.getStore() ?? { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin }
  );
}

export const stdout = (): CliOutput => io().stdout;
export const stderr = (): CliOutput => io().stderr;
export const stdin = (): CliIo["stdin"] => io().stdin;
