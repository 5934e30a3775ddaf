/**
 * The keys of a robots.txt line. RFC 9309 §2.2 defines user-agent, allow and disallow
 * (case-insensitive, as ABNF literals are); §2.2.4 lets a crawler read other records such
 * as sitemap and crawl-delay, and accept misspellings.
 *
 * P20: we accept exactly the misspellings Google's parser accepts (google/robotstxt,
 * robots.cc, ParsedRobotsKey::KeyIsUserAgent / KeyIsDisallow / KeyIsSitemap with
 * kAllowFrequentTypos). Google compares by prefix; we compare whole keys, so `disallowed:`
 * or `user-agents:` are unknown lines, not rules. `user-agnet` is not in Google's set and so
 * is not in ours. Crawl-delay is not a Google key at all; we read it exactly as written.
 */
export type RobotsKey = "user-agent" | "allow" | "disallow" | "sitemap" | "crawl-delay";

const KEYS: ReadonlyMap<string, RobotsKey> = new Map<string, RobotsKey>([
  ["user-agent", "user-agent"],
  ["useragent", "user-agent"],
  ["user agent", "user-agent"],
  ["allow", "allow"],
  ["disallow", "disallow"],
  ["dissallow", "disallow"],
  ["dissalow", "disallow"],
  ["disalow", "disallow"],
  ["diasllow", "disallow"],
  ["disallaw", "disallow"],
  ["sitemap", "sitemap"],
  ["site-map", "sitemap"],
  ["crawl-delay", "crawl-delay"],
]);

/** The longest key we know, so a lookup never lower-cases a huge string. */
const LONGEST_KEY = Math.max(...[...KEYS.keys()].map((k) => k.length));

/** The key a line's key text names, or undefined for an unknown record (§2.2.4: ignored). */
export function recogniseKey(keyText: string): RobotsKey | undefined {
  if (keyText.length > LONGEST_KEY) return undefined;
  return KEYS.get(keyText.toLowerCase());
}

/**
 * Sticky matcher for "a known key, optional blanks, then a colon" at a given position. Used
 * by the one-line split (P17). Bounded alternation plus `[ \t]*:` cannot backtrack
 * super-linearly: it is only ever tried at the first character after a run of blanks.
 */
const KEY_THEN_COLON = new RegExp(
  `(?:${[...KEYS.keys()].map((k) => k.replace(/-/g, "\\-")).join("|")})[ \\t]*:`,
  "iy",
);

export function knownKeyWithColonAt(s: string, index: number): boolean {
  KEY_THEN_COLON.lastIndex = index;
  return KEY_THEN_COLON.test(s);
}
