/**
 * An iCalendar feed (RFC 5545) of upcoming meetings: the records that are meetings (of kind
 * `meetings` or `agendas`, src/store/read/new-records.ts `upcomingMeetings`) whose own date is
 * today or later.
 * Lines end in CRLF and are folded at 75 octets (§3.1) without splitting a UTF-8 character;
 * TEXT values are escaped (§3.3.11) and control characters, which TEXT may not hold, removed.
 */
import type { NewRecord } from "../../store/read/new-records.js";
import { changedOf } from "./feeds.js";
import { httpHref, isolated } from "./format.js";

export const ICAL_CONTENT_TYPE = "text/calendar; charset=utf-8";

/**
 * Controls TEXT may not hold, noncharacters, and lone surrogates. With the `u` flag a character
 * outside the BMP is one code point, so only a surrogate without its pair matches \p{Cs} (without
 * it, the low half of every emoji was removed and the high half became U+FFFD).
 */
const CONTROLS = /[\u0000-\u0008\u000B-\u001F\u007F\uFFFE\uFFFF]|\p{Cs}/gu;

export function icalText(s: string): string {
  return s
    .replace(CONTROLS, "")
    .replace(/\\/g, "\\\\")
    .replace(/;/g, "\\;")
    .replace(/,/g, "\\,")
    .replace(/\r\n|\r|\n/g, "\\n");
}

/** §3.1: a line longer than 75 octets continues on the next line after CRLF and one space. */
export function foldLine(line: string): string {
  const out: string[] = [];
  let cur = "";
  let bytes = 0;
  for (const ch of line) {
    const n = Buffer.byteLength(ch);
    const limit = out.length === 0 ? 75 : 74; // continuation lines begin with a space
    if (bytes + n > limit) {
      out.push(cur);
      cur = "";
      bytes = 0;
    }
    cur += ch;
    bytes += n;
  }
  out.push(cur);
  return out.join("\r\n ");
}

const stamp = (t: number) =>
  new Date(t)
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");

function start(date: string): string | undefined {
  const bare = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (bare) return `DTSTART;VALUE=DATE:${bare[1]}${bare[2]}${bare[3]}`;
  const t = Date.parse(date);
  return Number.isNaN(t) ? undefined : `DTSTART:${stamp(t)}`;
}

/**
 * Each event's DTSTAMP is when the record was first seen, or last brought up to date (retitled,
 * redated: `changedOf`): RFC 5545 §3.8.7.2, for a calendar without METHOD, "the date and time
 * that the information associated with the calendar component was last revised in the calendar
 * store". So the same records make the same bytes,
 * and a calendar client's If-None-Match gets a 304 (with the clock's time there, every second
 * made a new ETag).
 */
export function renderIcal(opts: {
  origin: string;
  name: string;
  /** What a calendar client shows of the calendar itself: why it holds nothing (retired.tsx). */
  description?: string;
  items: readonly NewRecord[];
}): string {
  const lines = [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//New on Record//Upcoming meetings//EN",
    "CALSCALE:GREGORIAN",
    `X-WR-CALNAME:${icalText(opts.name)}`,
  ];
  if (opts.description !== undefined) {
    // RFC 7986's DESCRIPTION of the calendar, and the X-WR- form the clients that read
    // X-WR-CALNAME read.
    lines.push(
      `DESCRIPTION:${icalText(opts.description)}`,
      `X-WR-CALDESC:${icalText(opts.description)}`,
    );
  }
  for (const r of opts.items) {
    const dt = r.date ? start(r.date) : undefined;
    if (!dt) continue;
    const page = `${opts.origin}/sources/${encodeURIComponent(r.sourceId)}`;
    lines.push(
      "BEGIN:VEVENT",
      `UID:${icalText(`${encodeURIComponent(r.firstSourceId ?? r.sourceId)}.${encodeURIComponent(r.firstId ?? r.recordId)}@new-on-record`)}`,
      `DTSTAMP:${stamp(Date.parse(changedOf(r)))}`,
      dt,
      `SUMMARY:${icalText(r.title)}`,
      `DESCRIPTION:${icalText(`${r.sourceName ? isolated(r.sourceName) : r.sourceRecords} of ${isolated(r.governmentName)}${r.county ? `, ${isolated(r.county)} County` : ""}. Where it is posted: ${page}`)}`,
      `URL:${httpHref(r.url) ?? page}`,
      "END:VEVENT",
    );
  }
  lines.push("END:VCALENDAR");
  return `${lines.map(foldLine).join("\r\n")}\r\n`;
}
