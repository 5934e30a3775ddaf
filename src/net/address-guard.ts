import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from "node:dns";
import { isIP } from "node:net";
import { NorError } from "../errors.js";
import { classifyAddress, isForbiddenAddress } from "../policy/address.js";
import type { Pins } from "./pins.js";

/**
 * The address guard: the checker only talks to public addresses. The check runs on the
 * address we actually connect to (the resolver's answer, handed straight to the socket), so
 * a name that resolves to 169.254.169.254 or 10.x, a DNS-rebinding answer, or a redirect to an
 * IP literal fails with "blocked-address" before any packet is sent.
 */
export class BlockedAddressError extends NorError {
  override name = "BlockedAddressError";
  constructor(
    readonly address: string,
    readonly hostname: string,
  ) {
    super("E_BLOCKED_ADDRESS", `address ${address} of ${hostname} is not a public address`);
  }
}

export interface AddressGuardOptions {
  /** Tests and demos only: lift the guard so loopback servers can be reached. */
  allowPrivateAddresses?: boolean;
  /** curl's `--resolve` convention: "host:port:address" pins a name (on that port) to an address. */
  resolve?: readonly string[];
}

// One parse of `--resolve` for the CLI, the transport and the fetcher's options (pins.ts).
export { type Pins, parsePins } from "./pins.js";

export function stripBrackets(hostname: string): string {
  return hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
}

export function pinnedAddress(pins: Pins, hostname: string, port: number): string | undefined {
  return pins.get(`${stripBrackets(hostname).toLowerCase()}:${port}`);
}

/** The address a URL will connect to when that is known without DNS: an IP literal or a pin. */
export function knownAddress(pins: Pins, url: URL): string | undefined {
  const host = stripBrackets(url.hostname);
  const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
  return pinnedAddress(pins, host, port) ?? (isIP(host) !== 0 ? host : undefined);
}

/**
 * `allowPrivate` (tests and demos on loopback or a LAN) lifts the guard for every class but
 * link-local: 169.254.0.0/16 and fe80::/10 hold cloud metadata services, which no demo needs.
 */
export function checkAddress(address: string, hostname: string, allowPrivate: boolean): void {
  if (!isForbiddenAddress(address)) return;
  if (allowPrivate && classifyAddress(address) !== "link-local") return;
  throw new BlockedAddressError(address, hostname);
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for net.connect/tls.connect that refuses every answer if any address is
 * forbidden (stricter than filtering: a name that points inward at all is not trusted).
 */
export function guardedLookup(allowPrivate: boolean) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) {
        callback(err, []);
        return;
      }
      try {
        for (const a of addresses) checkAddress(a.address, hostname, allowPrivate);
      } catch (blocked) {
        callback(blocked as NodeJS.ErrnoException, []);
        return;
      }
      if (options.all) callback(null, addresses);
      else if (addresses[0]) callback(null, addresses[0].address, addresses[0].family);
      else
        callback(Object.assign(new Error(`no address for ${hostname}`), { code: "ENOTFOUND" }), []);
    });
  };
}
