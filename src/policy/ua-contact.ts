import { DEFAULT_USER_AGENT } from "./constants.js";

/**
 * The contact a User-Agent carries (P1): `mailto:…` or `https://…`, as it is written between
 * `(+` and `)`; undefined when it carries none.
 */
export function contactOf(userAgent: string): string | undefined {
  return /\(\+(mailto:[^()\s]+|https:\/\/[^()\s]+)\)/.exec(userAgent)?.[1];
}

/**
 * Whether a User-Agent sends site owners to the built-in operator: the built-in contact, whatever
 * the version or the rest of the string. Only such a one is shown with the built-in operator's
 * name and address on the site-owner page.
 */
export function hasBuiltInContact(userAgent: string): boolean {
  return contactOf(userAgent) === contactOf(DEFAULT_USER_AGENT);
}

/**
 * P1: the names of browsers, their engines and other crawlers and HTTP clients that the contact
 * of our User-Agent must never carry (an operator's contact is their address or their page, and
 * `https://googlebot.com/Chrome/120.0` is neither). Distinctive names count wherever they stand
 * in the contact (`mailto:googlebot@…`, `/HeadlessChrome`), compared without case.
 */
const PRODUCTS_ANYWHERE = [
  "mozilla",
  "chromium",
  "headlesschrome",
  "applewebkit",
  "webkit",
  "firefox",
  "seamonkey",
  "konqueror",
  "samsungbrowser",
  "ucbrowser",
  "yabrowser",
  "googlebot",
  "googleother",
  "adsbot-google",
  "mediapartners-google",
  "bingbot",
  "bingpreview",
  "msnbot",
  "duckduckbot",
  "baiduspider",
  "yandexbot",
  "yandex",
  "facebookexternalhit",
  "facebot",
  "applebot",
  "ahrefsbot",
  "semrushbot",
  "mj12bot",
  "dotbot",
  "petalbot",
  "bytespider",
  "gptbot",
  "ccbot",
  "claudebot",
  "amazonbot",
  "seznambot",
  "exabot",
  "sogou",
  "slurp",
  "python-requests",
  "python-urllib",
  "go-http-client",
  "okhttp",
  "libwww-perl",
  "scrapy",
  "wget",
  "phantomjs",
];

/**
 * Short names that are also parts of everyday words and of people's and places' names (`edge`
 * of `knowledge`, `opera` of `operator` and `opera-house`, `curl` of `curly` and of a Mr Curl's
 * `john.curl@…`): they count only as a whole part of the contact (the address's name before
 * `@`, a host's label, a path's segment or a query's name or value: `mailto:edge@…`,
 * `opera.example.org`, `/OPR`) or as a product token (`Edg/120`, `x-Chrome/120.0`).
 */
const PRODUCTS_AS_WORDS = [
  "chrome",
  "crios",
  "safari",
  "gecko",
  "khtml",
  "edge",
  "edg",
  "edga",
  "edgios",
  "opera",
  "opr",
  "msie",
  "trident",
  "vivaldi",
  "lynx",
  "curl",
  "httpie",
];

const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\-]/g, "\\$&");
const PRODUCT_ANYWHERE = new RegExp(`(${PRODUCTS_ANYWHERE.map(escaped).join("|")})`, "gi");
const PRODUCT_TOKEN = new RegExp(
  `(?<![a-z])(${PRODUCTS_AS_WORDS.map(escaped).join("|")})(?=/\\d)`,
  "gi",
);
const AS_WORDS: ReadonlySet<string> = new Set(PRODUCTS_AS_WORDS);

/** The whole parts of a contact, each with where it starts: see PRODUCTS_AS_WORDS. */
function* partsOf(contact: string): Generator<{ at: number; part: string }> {
  const split = function* (from: number, to: number, by: RegExp) {
    let at = from;
    for (const part of contact.slice(from, to).split(by)) {
      yield { at, part };
      at += part.length + 1;
    }
  };
  if (contact.startsWith("mailto:")) {
    const at = contact.lastIndexOf("@");
    if (at < 0) return yield* split(7, contact.length, /[.]/);
    yield { at: 7, part: contact.slice(7, at) };
    yield* split(at + 1, contact.length, /[.]/);
    return;
  }
  const from = contact.indexOf("//") + 2;
  const hostEnd = contact.slice(from).search(/[/?#]/);
  const end = hostEnd < 0 ? contact.length : from + hostEnd;
  yield* split(from, end, /[.:]/);
  yield* split(end, contact.length, /[/?#&=;]/);
}

/**
 * P1: the browser's, crawler's or other product's name a User-Agent's contact carries, as it is
 * written there (the first one, the longest where two start together), or undefined when it
 * carries none.
 */
export function productNamedIn(contact: string): string | undefined {
  let found: { at: number; word: string } | undefined;
  const consider = (at: number, word: string) => {
    if (
      found === undefined ||
      at < found.at ||
      (at === found.at && word.length > found.word.length)
    )
      found = { at, word };
  };
  for (const m of contact.matchAll(PRODUCT_ANYWHERE)) consider(m.index, m[0]);
  for (const m of contact.matchAll(PRODUCT_TOKEN)) consider(m.index, m[0]);
  for (const { at, part } of partsOf(contact))
    if (AS_WORDS.has(part.toLowerCase())) consider(at, part);
  return found?.word;
}
