/**
 * HTML character references decoded before marker matching (P21): Akamai encodes its deny
 * page's reference (`Reference&#32;&#35;18&#46;…`), so matching must see what a browser shows.
 * The `entities` package (the decoder cheerio's parser uses) knows every named reference.
 */
import { decodeHTML } from "../html-entities.js";

export function decodeEntities(s: string): string {
  return s.includes("&") ? decodeHTML(s) : s;
}
