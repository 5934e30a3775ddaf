/**
 * The network options shared by the commands that send requests (`nor night`, `nor discover`):
 * the same names, the same checks, the same meaning. None of them can lower a politeness
 * floor or turn certificate checks off; `--gap-ms` below 2 s is honoured only towards
 * loopback addresses with --allow-private-addresses (tests and demos).
 */
import type { Command } from "commander";
import { UsageError } from "../errors.js";
import { caCertificates } from "../net/ca-file.js";
import { parsePins } from "../net/pins.js";
import { validateUserAgent } from "../net/user-agent.js";
import type { NetOptions } from "../night/store-fetcher.js";
import { MIN_GAP_MS } from "../policy/constants.js";
import { NAME_MAX, personTextOption } from "../policy/person-text.js";
import { hasBuiltInContact } from "../policy/ua-contact.js";

export interface NetCliOptions {
  userAgent?: string;
  allowPrivateAddresses?: boolean;
  resolve?: string[];
  caFile?: string;
  gapMs?: string;
}

export function wholeNumber(text: string, option: string, min: number): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min)
    throw new UsageError(`${option}: "${text}" is not a whole number of at least ${min}`);
  return n;
}

/**
 * P1/P2: the operator's User-Agent (their contact in place of the default), from
 * --user-agent or NOR_USER_AGENT; the checker sends it and the site-owner page shows it, so
 * `nor night` and `nor serve` must be given the same value. Validated here, at the boundary.
 */
export function userAgentOption(flag: string | undefined): string | undefined {
  const value = flag ?? process.env["NOR_USER_AGENT"];
  return value === undefined || value === "" ? undefined : validateUserAgent(value);
}

export function addUserAgentOption(cmd: Command): Command {
  return cmd.option(
    "--user-agent <ua>",
    "the operator's User-Agent, exactly public-records-check/<version> (+mailto:<address>) or (+https://<page>) (default: NOR_USER_AGENT or the built-in one)",
  );
}

/** The longest operator's name the site-owner page shows (characters). */
export const OPERATOR_NAME_MAX = NAME_MAX;

/**
 * The name the site-owner page gives, beside the contact in the operator's own User-Agent, for
 * who runs the checker: from --operator-name or NOR_OPERATOR_NAME (`nor serve`, `nor start`).
 * Only with a User-Agent of the operator's own: with the built-in one the page names the
 * built-in operator and their address, and another name beside that address would send a site
 * owner to the wrong person. A person's one line of text (policy/person-text.ts): no control
 * characters, no line or paragraph separators, no invisible formatting but the joiners some
 * scripts need.
 */
export function operatorNameOption(
  flag: string | undefined,
  userAgent: string | undefined,
): string | undefined {
  const fromFlag = flag !== undefined;
  const raw = flag ?? process.env["NOR_OPERATOR_NAME"];
  if (raw === undefined || (!fromFlag && raw === "")) return undefined;
  const what = fromFlag ? "--operator-name" : "NOR_OPERATOR_NAME";
  const name = personTextOption(raw, what, "name");
  if (userAgent === undefined || hasBuiltInContact(userAgent))
    throw new UsageError(
      `${what} needs a User-Agent with your own contact (--user-agent or NOR_USER_AGENT): ` +
        "the site-owner page tells site owners to write to the contact in the User-Agent, " +
        "and with the built-in one that is the built-in operator's",
    );
  return name;
}

export function addOperatorNameOption(cmd: Command): Command {
  return cmd.option(
    "--operator-name <name>",
    "who runs the checker, named on the site-owner page beside the contact in --user-agent (which it needs) (default: NOR_OPERATOR_NAME, or none)",
  );
}

export function addNetOptions(cmd: Command): Command {
  return addUserAgentOption(cmd)
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
  const userAgent = userAgentOption(opts.userAgent);
  if (userAgent !== undefined) out.userAgent = userAgent;
  if (opts.allowPrivateAddresses) out.allowPrivateAddresses = true;
  if (opts.resolve?.length) {
    // Parsed now, by the transport's own parser, so that a pin it would refuse stops the
    // command before it opens anything (`nor start`: before it serves and waits for a night).
    parsePins(opts.resolve);
    out.resolve = opts.resolve;
  }
  if (opts.caFile !== undefined) {
    // Read now, so that a file TLS could not use stops the command before it opens anything.
    caCertificates(opts.caFile);
    out.caFile = opts.caFile;
  }
  if (opts.gapMs !== undefined) out.gapMs = gapOption(opts.gapMs, opts.allowPrivateAddresses);
  return out;
}

/**
 * `--gap-ms`: below the 2 s floor (P10) only together with --allow-private-addresses, where it
 * shortens the gap to loopback addresses alone (tests and demos). Without it the floor would
 * hold for every site whatever was given, so a shorter gap is refused rather than taken in
 * silence (exit 2).
 */
function gapOption(text: string, allowPrivateAddresses: boolean | undefined): number {
  const gap = wholeNumber(text, "--gap-ms", 0);
  if (gap < MIN_GAP_MS && !allowPrivateAddresses)
    throw new UsageError(
      `--gap-ms ${gap}: the gap between requests to one site may be shortened below the ${MIN_GAP_MS / 1000} s floor (P10) only for loopback tests, together with --allow-private-addresses; otherwise the floor of ${MIN_GAP_MS} ms holds for every site`,
    );
  return gap;
}
