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
 * Short names that are also parts of everyday words (`edge` of `knowledge`, `opera` of
 * `operator`, `curl` of `curly`): they count only as a whole word of the contact, its letters
 * standing alone (`Edg/120`, `mailto:edge@…`, `opera.example.org`).
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
const PRODUCT_NAME = new RegExp(
  `(${PRODUCTS_ANYWHERE.map(escaped).join("|")})|(?<![a-z])(${PRODUCTS_AS_WORDS.map(escaped).join("|")})(?![a-z])`,
  "gi",
);

/**
 * P1: the browser's, crawler's or other product's name a User-Agent's contact carries, as it is
 * written there (the first one, the longest where two start together), or undefined when it
 * carries none.
 */
export function productNamedIn(contact: string): string | undefined {
  let found: { at: number; word: string } | undefined;
  for (const m of contact.matchAll(PRODUCT_NAME)) {
    const word = m[0];
    const at = m.index;
    if (
      found === undefined ||
      at < found.at ||
      (at === found.at && word.length > found.word.length)
    )
      found = { at, word };
  }
  return found?.word;
}
