/**
 * Dates inside longer texts, as list pages write them next to titles and places (P6: the
 * date comes from the list itself). The formats are those toIsoDate reads.
 */
import { type DateOptions, toIsoDate } from "../dates.js";

const MONTH_WORD = "(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\\.?";
/** A time after the date, a separator ("at", "-", "@", "|") before it allowed ("June 20, 2019 - 6:00 PM"). */
const TIME =
  "(?:,?\\s+(?:(?:at|[-\u2013\u2014@|])\\s*)?(?:\\d{1,2}(?::\\d{2})?\\s*(?:[ap]\\.?m\\.?)|\\d{1,2}:\\d{2}(?::\\d{2})?|noon\\b))?";
const EMBEDDED = [
  new RegExp(
    `(?:(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\\.?,?\\s+)?${MONTH_WORD}\\s+\\d{1,2}(?:st|nd|rd|th)?,?\\s+\\d{4}${TIME}`,
    "i",
  ),
  /\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?(?:Z|[+-]\d{2}:?\d{2})?)?/i,
  new RegExp(`\\b\\d{1,2}[/.-]\\d{1,2}[/.-](?:\\d{4}|\\d{2})\\b${TIME}`, "i"),
  new RegExp(`\\b\\d{1,2}\\s+${MONTH_WORD}\\s+\\d{4}${TIME}`, "i"),
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
        /,?\s+((at|[-\u2013\u2014@|])\s*)?(\d{1,2}(:\d{2})*\s*([ap]\.?m\.?)?|noon)$/i,
        "",
      ),
      opts,
    );
    if (dateOnly) return dateOnly;
  }
  return undefined;
}
