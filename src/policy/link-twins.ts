/**
 * A record known by its link (record-id.ts) whose link a site starts to write another way, the
 * same document: `http:` become `https:` (a site moved to TLS), `www.` added or dropped. Its id
 * changes with the link, and without this it would be listed new on record again, with every
 * other record of the list, the night the site moved. Pure: the other spellings of one link.
 */

/** The same link under the other scheme and with `www.` toggled (at most three), none itself. */
export function linkTwins(id: string): string[] {
  let u: URL;
  try {
    u = new URL(id);
  } catch {
    return [];
  }
  if ((u.protocol !== "http:" && u.protocol !== "https:") || u.href !== id) return [];
  const host = u.hostname;
  // An address (IPv4, or IPv6 in brackets) has no `www.` to add or drop.
  const literal = host.startsWith("[") || /^[\d.]+$/.test(host);
  const hosts = literal ? [host] : [host, host.startsWith("www.") ? host.slice(4) : `www.${host}`];
  const out: string[] = [];
  for (const scheme of ["https:", "http:"])
    for (const h of hosts) {
      const v = new URL(u.href);
      v.protocol = scheme;
      v.hostname = h;
      if (v.href !== id && !out.includes(v.href)) out.push(v.href);
    }
  return out;
}
