/**
 * P3, P12, P18: a URL in the one normal form the checker sends, logs and keeps its copies under
 * (net/redirects.ts checkUrl): no fragment, no empty query's `?`, each `%hh` upper case or the
 * unreserved character it encodes; the host's case and a default port as the URL parser leaves
 * them (lower case, none). No I/O: the net checks the URL, the store finds its copies by it.
 */
export function normalForm(url: URL): string {
  // `u.search` is "" for both no query and an empty one; the href tells them apart.
  const href = url.href;
  const hash = href.indexOf("#");
  let rest = href.slice(url.origin.length, hash < 0 ? href.length : hash);
  if (rest.endsWith("?") && rest.indexOf("?") === rest.length - 1) rest = rest.slice(0, -1);
  return url.origin + normalisePercent(rest);
}

const HEX = /^[0-9A-Fa-f]{2}$/;
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/**
 * RFC 3986 §6.2.2.1, §6.2.2.2: each `%hh` in upper case, or the unreserved character it
 * encodes. A `%` that starts no escape is left as written, and an escape right after one is
 * not decoded into a hex digit, which would turn that `%` into a new escape (`%%61A` would
 * become `%aA`): the result is its own normal form.
 */
export function normalisePercent(s: string): string {
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const hex = s.slice(i + 1, i + 3);
    if (s[i] !== "%" || !HEX.test(hex)) {
      out += s[i];
      continue;
    }
    i += 2;
    const ch = String.fromCharCode(Number.parseInt(hex, 16));
    const joinsStrayPercent = /[0-9A-Fa-f]/.test(ch) && out.slice(-2).includes("%");
    out += UNRESERVED.test(ch) && !joinsStrayPercent ? ch : `%${hex.toUpperCase()}`;
  }
  return out;
}
