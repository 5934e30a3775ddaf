/**
 * The one JSON reader for every JSON answer (platform presets, api and download ways): the
 * one body decoder (a BOM, the charset), `//` comment lines before the payload (seen in a
 * captured Legistar answer), and one wording when an answer is not JSON, so the night's note
 * reads the same whichever reader met it. Never throws: an answer that is not JSON is the
 * site's answer, not our bug.
 */
import { decodeBody } from "../../policy/body-text.js";
import { htmlTitle, looksLikeHtml } from "./decode.js";

/**
 * P13, P14: the deepest nesting of arrays and objects read. No records list is nested more than
 * a few dozen levels; a 20 MB answer of 10,000,000 nested arrays cost JSON.parse about 1 GB of
 * memory and 9 s of CPU, so an answer deeper than this is refused before it is parsed.
 */
export const MAX_JSON_DEPTH = 512;

export type JsonRead = { ok: true; value: unknown } | { ok: false; why: string };

/** JSON from already decoded text. */
export function parseJsonText(text: string): JsonRead {
  const t = withoutCommentLines(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).trim();
  if (t === "") return { ok: false, why: "not JSON: the answer is empty" };
  if (looksLikeHtml(t)) {
    const title = htmlTitle(t);
    return { ok: false, why: `not JSON: an HTML page${title ? ` ("${title}")` : ""}` };
  }
  if (nestedDeeperThan(t, MAX_JSON_DEPTH))
    return {
      ok: false,
      why: `not read: the JSON answer nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep, which no list of records does; it was not parsed (P13, P14)`,
    };
  try {
    return { ok: true, value: JSON.parse(exactIntegers(t)) };
  } catch (e) {
    return { ok: false, why: `not JSON: ${(e as Error).message.slice(0, 80)}` };
  }
}

/**
 * Whether the JSON text opens more than `max` arrays and objects within each other, counted in
 * one pass outside strings (a string's escapes skipped: the quote in `"\""` does not end it,
 * the last one of `"\\"` does). Text that is no JSON is counted as far as it goes; JSON.parse
 * then says what is wrong with it.
 */
export function nestedDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: to its closing quote, each backslash taking the character after it.
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** One `//` comment line where it starts, with the blanks before it (sticky: read in place). */
const COMMENT_LINE = /\s*\/\/[^\n]*\n/y;

/**
 * The text without the `//` comment lines before its payload: what `/^(?:\s*\/\/[^\n]*\n)+/`
 * would strip, read one line at a time, since that expression's backtracking overflows the
 * stack on a few million such lines (a body under the 20 MiB limit, P14).
 */
export function withoutCommentLines(text: string): string {
  let from = 0;
  for (;;) {
    COMMENT_LINE.lastIndex = from;
    if (!COMMENT_LINE.test(text)) return from === 0 ? text : text.slice(from);
    from = COMMENT_LINE.lastIndex;
  }
}

/** A JSON number where it starts (sticky: read in place, never a copy of the rest). */
const NUMBER = /-?\d+(\.\d+)?([eE][+-]?\d+)?/y;

/** Digits an integer may have and still be read exactly as a JavaScript number (2^53 has 16). */
const EXACT_DIGITS = 15;

/**
 * The JSON text with every integer too long to be read exactly as a number (an id such as
 * 9007199254740993, which would read as …992 and be taken for its neighbour) written as a
 * string of its digits instead, so it is kept as the site wrote it. Strings are left as they
 * are (their escapes followed), and so is every other number. One pass.
 */
export function exactIntegers(text: string): string {
  if (!/\d{16}/.test(text)) return text;
  let out = "";
  let from = 0;
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === "\\") i++;
      i++;
      continue;
    }
    if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(text);
      const n = m?.[0] ?? c;
      const digits = n.replace(/^-/, "");
      if (m && m[1] === undefined && m[2] === undefined && digits.length > EXACT_DIGITS) {
        out += `${text.slice(from, i)}"${n}"`;
        from = i + n.length;
      }
      i += n.length;
      continue;
    }
    i++;
  }
  return out + text.slice(from);
}

/** JSON from a response body; `contentType` is the response's header (its charset). */
export function readJson(body: Uint8Array, contentType?: string): JsonRead {
  return parseJsonText(decodeBody(body, contentType));
}
