/**
 * An IPv4-mapped IPv6 literal (`[::ffff:7f00:50]`, as the URL parser writes `[::ffff:127.0.0.80]`)
 * is the IPv4 host itself: a connection to it reaches that host, so it is that host's site, its
 * gap and its owner's requests (P9, P10, P21), never a second lane to the same machine. Apart
 * from site.ts (which loads the Public Suffix List) so that the store's migrations can read a
 * site kept in the older spelling without loading it.
 */

/** The IPv4 address of a bracketed literal as the URL parser writes it, if it is a mapped one. */
export function mappedIpv4(bracketed: string): string | undefined {
  const m = /^\[::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/.exec(bracketed);
  if (m === null) return undefined;
  const hi = Number.parseInt(m[1] as string, 16);
  const lo = Number.parseInt(m[2] as string, 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/**
 * The site a site kept as an IPv4-mapped IPv6 literal is now (its IPv4 address), however the
 * literal is spelled (`[::ffff:7f00:50]`, `[::FFFF:127.0.0.80]`, `[0:0:0:0:0:ffff:7f00:50]`);
 * undefined for any other site.
 */
export function mappedIpv4Site(site: string): string | undefined {
  if (!site.startsWith("[")) return undefined;
  let host: string;
  try {
    host = new URL(`http://${site}/`).hostname;
  } catch {
    return undefined;
  }
  return mappedIpv4(host.toLowerCase());
}
