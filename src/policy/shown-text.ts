/**
 * Text a site wrote (a record's title), as the directory shows it: without the code points
 * that are no text to a reader and that HTML reports as errors in its input (HTML §13.2.2.5:
 * controls other than whitespace, and noncharacters), nor lone surrogates, which no encoding
 * can write. A feed's XML drops the same and more (web/public/feeds.ts); here the page, the
 * JSON API and the downloads show the same words. Where any was removed, the spaces around it
 * close up.
 */
const NOT_SHOWN = "[\\0-\\x08\\x0B\\x0C\\x0E-\\x1F\\x7F-\\x9F\\p{Cs}\\p{Noncharacter_Code_Point}]";
const ANY = new RegExp(NOT_SHOWN, "u");
const EVERY = new RegExp(NOT_SHOWN, "gu");

export function shownText(s: string): string {
  if (!ANY.test(s)) return s;
  return s.replace(EVERY, "").replace(/ {2,}/g, " ").trim();
}
