/**
 * Dates inside longer texts, as list pages write them next to titles and places (P6: the
 * date comes from the list itself). The formats are those toIsoDate reads.
 */
import { type DateOptions, toIsoDate } from "../dates.js";

/**
 * P13, P14: a month's or weekday's word runs on at most as far as the longest is written
 * ("september", "wednesday": six letters past the three matched). Unbounded (`[a-z]*`), the
 * search read to the end of a run of letters at every "jan" or "mon" in it and back: a text of
 * 200,000 letters "janjan…" cost 7.7 s, quadratic (test/sources/find-date-long.test.ts).
 */
const WORD_RUN = "[a-z]{0,6}";
const MONTH_WORD = `(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)${WORD_RUN}\\.?`;
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
    `(?:(?:mon|tue|wed|thu|fri|sat|sun)${WORD_RUN}\\.?,?\\s+)?${MONTH_WORD}\\s+\\d{1,2}(?:st|nd|rd|th)?,?\\s+\\d{4}${TIME}`,
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
 * P13, P14: how much of a text is looked through for its date. A list's date cell, or a row's
 * whole text, is a few hundred characters; a field of a download or an API answer can be 19 MB
 * (the body up to 20 MiB), and reading its spaces alone cost 4 s a pass.
 */
export const DATE_TEXT_MAX = 20_000;

/**
 * A date written somewhere inside a longer text ("SPECIAL MEETING Tuesday, February 20, 2024
 * 3:30 pm 416 Kenmore Blvd."; "Board Agenda - June 20, 2019"). The whole text is tried first;
 * then the first date-looking span, with its time when the time reads, else without it. Only
 * the first DATE_TEXT_MAX characters are read.
 */
export function findDate(written: string, opts: DateOptions = {}): string | undefined {
  // P13, P14: only the text's first DATE_TEXT_MAX characters are looked through.
  const text = written.length > DATE_TEXT_MAX ? written.slice(0, DATE_TEXT_MAX) : written;
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
