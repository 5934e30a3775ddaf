/**
 * A meeting date written inside free text ("Agenda for the City Commission meeting on Tuesday
 * April 21, 2026 at 6:00 p.m.", "… - Apr 15, 2026"), for feeds whose only date field is the
 * publishing time. Month-name dates only: numbers in titles are too often not dates.
 */
import { type DateOptions, toIsoDate } from "../../dates.js";

const IN_TEXT =
  /\b(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})(?:,?\s*(?:at\s+)?(?:approximately\s+)?(\d{1,2}(?::\d{2})?\s*[ap]\.?\s?m\.?))?/i;

export function dateInText(text: string, opts: DateOptions = {}): string | undefined {
  const m = IN_TEXT.exec(text);
  if (!m) return undefined;
  const day = `${m[1]} ${m[2]}, ${m[3]}`;
  const time = m[4]?.replace(/\s+/g, "");
  return (time && toIsoDate(`${day} ${time}`, opts)) || toIsoDate(day, opts);
}
