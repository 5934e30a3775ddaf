import type { Clock } from "../clock.js";
import { ConfigError } from "../errors.js";
import type { IdSource } from "../ids.js";
import { classifyAddress } from "../policy/address.js";
import { MIN_GAP_MS } from "../policy/constants.js";
import { knownAddress, parsePins } from "./address-guard.js";
import type { JournalPort } from "./journal.js";
import type { ArchivePort, RobotsCachePort, Transport } from "./types.js";
import { validateUserAgent } from "./user-agent.js";

export interface FetcherOptions {
  clock: Clock;
  /** P1: exactly `public-records-check/<version> (+<mailto: or https: contact>)`. */
  userAgent?: string;
  /** The request journal: every row written before its request is sent (P27), and the durable
   * state every decision to send is read from (P9, P10, P15, P21). */
  journal: JournalPort;
  /** Where the random part of the lease holder's name comes from (unless `holder` is given). */
  ids: IdSource;
  /** Who this fetcher is in the journal's leases (host:pid:random); default a fresh one. */
  holder?: string;
  robotsCache: RobotsCachePort;
  archive?: ArchivePort;
  /** The innermost seam; default: undici over the address guard (transport-undici.ts). */
  transport?: Transport;
  transportOptions?: {
    allowPrivateAddresses?: boolean;
    resolve?: string[];
    caFile?: string;
    /** Tests only: shorter P14 timeouts (never longer). */
    headersTimeoutMs?: number;
    bodyTimeoutMs?: number;
  };
  /**
   * P10: the floor is MIN_GAP_MS. A smaller value is honoured only with allowPrivateAddresses
   * and only towards a loopback address (test fleets), never towards anyone's server.
   */
  gapMs?: number;
  /** P13: no request starts after this instant. */
  deadline?: number;
  /** The night (YYYY-MM-DD) this fetcher works for; logged, and bounds "unreachable" (P20). */
  night?: string;
}

export interface Resolved {
  userAgent: string;
  /** The site gap for a URL, before any Crawl-delay. */
  gapFor(url: URL): number;
}

export function resolveOptions(
  opts: Pick<FetcherOptions, "userAgent" | "transportOptions" | "gapMs">,
): Resolved {
  const userAgent = validateUserAgent(opts.userAgent);
  const pins = parsePins(opts.transportOptions?.resolve);
  const allowPrivate = opts.transportOptions?.allowPrivateAddresses === true;
  const gap = opts.gapMs ?? MIN_GAP_MS;
  if (!Number.isFinite(gap) || gap < 0) throw new ConfigError(`gapMs must be >= 0, got ${gap}`);
  const loopback = (url: URL): boolean => {
    // A pin decides first: `localhost` pinned to a public address is someone's server.
    const address = knownAddress(pins, url);
    if (address !== undefined) return classifyAddress(address) === "loopback";
    return url.hostname === "localhost";
  };
  return {
    userAgent,
    gapFor: (url) =>
      gap < MIN_GAP_MS && allowPrivate && loopback(url) ? gap : Math.max(gap, MIN_GAP_MS),
  };
}
