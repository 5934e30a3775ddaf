/**
 * The address guard: the checker connects only to public unicast addresses, so a catalog
 * entry or a redirect can never point it at the operator's own machine or network. IPv4
 * hidden inside IPv6 (mapped ::ffff:0:0/96, NAT64 64:ff9b::/96) is judged by the IPv4 inside.
 * Anything unknown or unallocated is "reserved": the guard fails closed.
 */
import { isIP } from "node:net";

export type AddressClass =
  | "public"
  | "loopback"
  | "private"
  | "link-local"
  | "cgnat"
  | "multicast"
  | "unspecified"
  | "reserved"
  | "invalid";

/** [network, prefix length, class]; first match wins. */
type V4Rule = [string, number, AddressClass];
const V4_RULES: readonly V4Rule[] = [
  ["0.0.0.0", 8, "unspecified"], // RFC 791 "this network"; Linux routes 0.x to the host
  ["127.0.0.0", 8, "loopback"],
  ["10.0.0.0", 8, "private"], // RFC 1918
  ["172.16.0.0", 12, "private"],
  ["192.168.0.0", 16, "private"],
  ["100.64.0.0", 10, "cgnat"], // RFC 6598
  ["169.254.0.0", 16, "link-local"], // RFC 3927
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "reserved"], // includes 255.255.255.255 (broadcast)
  ["192.0.0.0", 24, "reserved"], // RFC 6890 IETF protocol assignments
  ["192.0.2.0", 24, "reserved"], // RFC 5737 documentation (TEST-NET-1..3)
  ["198.51.100.0", 24, "reserved"],
  ["203.0.113.0", 24, "reserved"],
  ["198.18.0.0", 15, "reserved"], // RFC 2544 benchmarking
  ["192.88.99.0", 24, "reserved"], // RFC 7526 deprecated 6to4 relay anycast
];

function v4ToInt(ip: string): number {
  return ip.split(".").reduce((n, o) => n * 256 + Number(o), 0);
}

function classifyV4Int(n: number): AddressClass {
  for (const [base, len, cls] of V4_RULES) {
    const size = 2 ** (32 - len);
    const start = v4ToInt(base);
    if (n >= start && n < start + size) return cls;
  }
  return "public";
}

/** Parses a valid (isIP === 6) IPv6 literal into its 8 16-bit groups. */
function v6Groups(ip: string): number[] {
  let s = ip;
  const lastColon = s.lastIndexOf(":");
  const last = s.slice(lastColon + 1);
  if (last.includes(".")) {
    // A dotted IPv4 tail (::ffff:127.0.0.1) is the last two groups written another way.
    const n = v4ToInt(last);
    s = `${s.slice(0, lastColon + 1)}${Math.floor(n / 65536).toString(16)}:${(n % 65536).toString(16)}`;
  }
  const parts = (x: string) => (x === "" ? [] : x.split(":").map((g) => Number.parseInt(g, 16)));
  const dbl = s.indexOf("::");
  if (dbl < 0) return parts(s);
  const head = parts(s.slice(0, dbl));
  const rest = parts(s.slice(dbl + 2));
  const fill = Math.max(0, 8 - head.length - rest.length);
  return [...head, ...new Array<number>(fill).fill(0), ...rest];
}

function classifyV6(ip: string): AddressClass {
  const g = v6Groups(ip);
  if (g.length !== 8) return "invalid";
  const [a, b, c, d, e, f, h, i] = g as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const zeroHead = a === 0 && b === 0 && c === 0 && d === 0 && e === 0;
  const embeddedV4 = h * 65536 + i;
  if (zeroHead && f === 0 && h === 0 && i === 0) return "unspecified"; // ::
  if (zeroHead && f === 0 && h === 0 && i === 1) return "loopback"; // ::1
  if (zeroHead && f === 0xffff) return classifyV4Int(embeddedV4); // ::ffff:a.b.c.d
  if (a === 0x64 && b === 0xff9b && c === 0 && d === 0 && e === 0 && f === 0) {
    return classifyV4Int(embeddedV4); // RFC 6052 NAT64 well-known prefix
  }
  if (a === 0) return "reserved"; // ::/8 rest: IPv4-compatible, SIIT-translated, unassigned
  if ((a & 0xfe00) === 0xfc00) return "private"; // fc00::/7 unique local (RFC 4193)
  if ((a & 0xffc0) === 0xfe80) return "link-local"; // fe80::/10
  if ((a & 0xffc0) === 0xfec0) return "private"; // fec0::/10 deprecated site-local
  if ((a & 0xff00) === 0xff00) return "multicast"; // ff00::/8
  if (a === 0x2001 && b === 0x0db8) return "reserved"; // RFC 3849 documentation
  if ((a & 0xfff0) === 0x3ff0) return "reserved"; // RFC 9637 documentation 3fff::/20
  if (a === 0x2001 && b < 0x0200) return "reserved"; // 2001::/23 IETF (Teredo, ORCHID, …)
  if (a === 0x2002) return "reserved"; // 6to4 relays to an arbitrary IPv4: fail closed
  if (a === 0x0064 && b === 0xff9b) return "reserved"; // 64:ff9b:1::/48 local-use NAT64
  if ((a & 0xe000) !== 0x2000) return "reserved"; // outside 2000::/3 global unicast
  return "public";
}

/**
 * Classifies an IP literal (IPv4 dotted quad, or IPv6 with or without brackets or a zone id).
 * Non-canonical IPv4 forms ("010.0.0.1", "127.1") are "invalid": callers must pass what the
 * resolver returned, and the guard never guesses.
 */
export function classifyAddress(ip: string): AddressClass {
  let s = ip.trim();
  if (s.startsWith("[") && s.endsWith("]")) s = s.slice(1, -1);
  const zone = s.indexOf("%");
  if (zone >= 0) s = s.slice(0, zone);
  const kind = isIP(s);
  if (kind === 4) return classifyV4Int(v4ToInt(s));
  if (kind === 6) return classifyV6(s.toLowerCase());
  return "invalid";
}

/** True for every address that is not public unicast. */
export function isForbiddenAddress(ip: string): boolean {
  return classifyAddress(ip) !== "public";
}

/**
 * Why the checker did not ask `address` (P3), in words an operator can act on: a private one
 * (loopback, a LAN) is asked only with --allow-private-addresses, for tests and demos; a
 * link-local one (cloud metadata) never, nor any class when the option was given and still
 * refused.
 */
export function blockedAddressWhy(address: string, allowPrivate = false): string {
  const kind = classifyAddress(address);
  if (kind === "link-local" || allowPrivate)
    return `${address} is not a public address (${kind}): the checker never asks one (P3)`;
  return `${address} is not a public address (${kind}): the checker asks one only with --allow-private-addresses (tests and demos; P3)`;
}
