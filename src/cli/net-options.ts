/**
 * The network options shared by the commands that send requests (`nor night`, `nor discover`):
 * the same names, the same checks, the same meaning. None of them can lower a politeness
 * floor or turn certificate checks off; `--gap-ms` below 2 s is honoured only towards
 * loopback addresses with --allow-private-addresses (tests and demos).
 */
import type { Command } from "commander";
import { UsageError } from "../errors.js";

export interface NetCliOptions {
  allowPrivateAddresses?: boolean;
  resolve?: string[];
  caFile?: string;
  gapMs?: string;
}

export interface NetOptions {
  allowPrivateAddresses?: boolean;
  resolve?: string[];
  caFile?: string;
  gapMs?: number;
}

export function wholeNumber(text: string, option: string, min: number): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min)
    throw new UsageError(`${option}: "${text}" is not a whole number of at least ${min}`);
  return n;
}

export function addNetOptions(cmd: Command): Command {
  return cmd
    .option("--allow-private-addresses", "allow loopback/private addresses (tests and demos)")
    .option(
      "--resolve <host:port:addr>",
      "pin a host to an address (repeatable)",
      (v: string, acc: string[] = []) => [...acc, v],
    )
    .option("--ca-file <pem>", "extra CA certificates (PEM) to trust")
    .option(
      "--gap-ms <n>",
      "gap between requests to one site; below 2000 only on loopback with --allow-private-addresses",
    );
}

export function netOptions(opts: NetCliOptions): NetOptions {
  const out: NetOptions = {};
  if (opts.allowPrivateAddresses) out.allowPrivateAddresses = true;
  if (opts.resolve?.length) out.resolve = opts.resolve;
  if (opts.caFile !== undefined) out.caFile = opts.caFile;
  if (opts.gapMs !== undefined) out.gapMs = wholeNumber(opts.gapMs, "--gap-ms", 0);
  return out;
}
