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

/**
 * The invisible marks that turn the direction of the text around them (U+061C, U+200E, U+200F,
 * U+202A–U+202E, U+2066–U+2069), as the body of a regular expression's class: whatever says
 * back a site's or a person's text escapes or drops them with the controls (noteLine below,
 * web/public/echo.ts; cli/io.ts writes the same class out: every command's stderr, `nor --help`'s
 * too, loads it, and no policy module).
 */
export const DIRECTION_MARKS = "\\u061C\\u200E\\u200F\\u202A-\\u202E\\u2066-\\u2069";

const HAS_DIRECTION_MARK = new RegExp(`[${DIRECTION_MARKS}]`, "u");
/** The characters that end a paragraph for the bidirectional algorithm (class B). */
const PARAGRAPH_ENDS = /[\n\r\u001C-\u001E\u0085\u2029]/g;

/**
 * A name or title a site or the catalog supplied, set in plain text beside our own words (a
 * feed's title and description, an item's summary): when it carries a mark that turns the
 * direction of the text (a right-to-left override, an isolate), it goes between FIRST STRONG
 * ISOLATE and POP DIRECTIONAL ISOLATE (U+2068, U+2069), plain text's `<bdi>`: an embedding or
 * override it opens ends at that PDI (Unicode's bidirectional algorithm, UAX #9, X6a), so it
 * cannot reorder the words around it. Its own isolates are balanced first (a PDI pops the
 * nearest open isolate, so one left open would take our PDI, and a PDI of its own with none
 * open would end ours early): those left open are closed, a stray PDI is dropped. Text without
 * such a mark is left as it is.
 */
export function isolated(text: string): string {
  if (!HAS_DIRECTION_MARK.test(text)) return text;
  let open = 0;
  let out = "";
  // A paragraph's end closes every isolate and override (UAX #9, P1): ours too, and an override
  // after it would run over the words that follow. Such a text is one line here.
  for (const ch of text.replace(PARAGRAPH_ENDS, " ")) {
    if (ch === "\u2066" || ch === "\u2067" || ch === "\u2068") open++;
    else if (ch === "\u2069") {
      if (open === 0) continue;
      open--;
    }
    out += ch;
  }
  return `\u2068${out}${"\u2069".repeat(open)}\u2069`;
}

/** The longest note a reader may keep (a site's own error text can be any length). */
export const NOTE_MAX = 300;
const BREAKS = new RegExp(`[\\0-\\x1F\\x7F-\\x9F${DIRECTION_MARKS}\\u2028\\u2029]+`, "gu");

/**
 * A reader's note (why a page showed no records), which may carry a site's own words (an API's
 * error message, a parser's quote of the bytes it stopped at), as one line of text for a
 * terminal, a log and a page: every control (line breaks and tabs too, which would break the
 * status table's columns; escape sequences a terminal would obey), the marks that turn the
 * direction of the text around them, and what shownText drops become a space; runs of spaces
 * close up; at most NOTE_MAX characters, cut with "…".
 */
export function noteLine(note: string): string {
  const one = shownText(note.replace(BREAKS, " ")).replace(/ {2,}/g, " ").trim();
  if (one.length <= NOTE_MAX) return one;
  // Never cut a surrogate pair in two.
  const cut = /[\uD800-\uDBFF]/.test(one.charAt(NOTE_MAX - 2)) ? NOTE_MAX - 2 : NOTE_MAX - 1;
  return `${one.slice(0, cut)}…`;
}
