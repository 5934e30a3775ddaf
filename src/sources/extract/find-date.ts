/**
 * Dates inside longer texts, as list pages write them next to titles and places (P6: the
 * date comes from the list itself). The formats are those toIsoDate reads.
 */
import { type DateOptions, toIsoDate } from "../dates.js";

const MONTH_WORD = "(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\\.?";
/** The space before a time, a separator ("at", "-", "@", "|") allowed ("June 20, 2019 - 6:00 PM"). */
const BEFORE_TIME = "(?:,?\\s+(?:(?:at|[-\u2013\u2014@|])\\s*)?)";
/**
 * A time with its word: "6 PM", "12:00 Noon", "12:00 Midnight". Tried before a bare "12:00",
 * which would leave the word behind and read "12:00 Midnight" as noon.
 */
const WORDED_TIME =
  "(?:(?:12(?::00)?\\s*)?(?:noon|midnight)\\b|\\d{1,2}(?::\\d{2})?\\s*(?:[ap]\\.?m\\.?))";
/** A time after the date. */
const TIME = `(?:${BEFORE_TIME}(?:${WORDED_TIME}|\\d{1,2}:\\d{2}(?::\\d{2})?))?`;
const EMBEDDED = [
  new RegExp(
    `(?:(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\\.?,?\\s+)?${MONTH_WORD}\\s+\\d{1,2}(?:st|nd|rd|th)?,?\\s+\\d{4}${TIME}`,
    "i",
  ),
  // An ISO day; a worded time after it ("2026-12-01 06:00 PM") is tried before the ISO clock,
  // which would stop at "06:00".
  new RegExp(
    `\\d{4}-\\d{2}-\\d{2}(?:${BEFORE_TIME}${WORDED_TIME}|[T ]\\d{2}:\\d{2}(?::\\d{2})?(?:Z|[+-]\\d{2}:?\\d{2})?)?`,
    "i",
  ),
  new RegExp(`\\b\\d{1,2}[/.-]\\d{1,2}[/.-](?:\\d{4}|\\d{2})\\b${TIME}`, "i"),
  new RegExp(`\\b\\d{1,2}(?:st|nd|rd|th)?(?:\\s+of)?\\s+${MONTH_WORD},?\\s+\\d{4}${TIME}`, "i"),
];

/**
 * A date written somewhere inside a longer text ("SPECIAL MEETING Tuesday, February 20, 2024
 * 3:30 pm 416 Kenmore Blvd."; "Board Agenda - June 20, 2019"). The whole text is tried first;
 * then the first date-looking span, with its time when the time reads, else without it.
 */
export function findDate(text: string, opts: DateOptions = {}): string | undefined {
  const whole = toIsoDate(text, opts);
  if (whole) return whole;
  const s = text.replace(/\s+/g, " ");
  for (const re of EMBEDDED) {
    const m = re.exec(s);
    if (!m) continue;
    // A time followed by an offset that did not read (toIsoDate refused the whole: one no place
    // has, say +1500) is not taken as local time, which it is not: the day alone.
    const zoned = /^\s*[+-]\d{2}:?\d{2}\b/.test(s.slice(m.index + m[0].length));
    const withTime = zoned ? undefined : toIsoDate(m[0], opts);
    if (withTime) return withTime;
    const dateOnly = toIsoDate(
      m[0].replace(
        /,?\s+((at|[-\u2013\u2014@|])\s*)?((12(:00)?\s*)?(noon|midnight)|\d{1,2}(:\d{2})*\s*([ap]\.?m\.?)?)$/i,
        "",
      ),
      opts,
    );
    if (dateOnly) return dateOnly;
  }
  return undefined;
}
