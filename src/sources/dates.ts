/**
 * Dates as government pages write them, turned into ISO 8601 (record.ts: a time without a
 * zone is in its government's zone, default America/New_York). Date-only inputs stay
 * date-only (`YYYY-MM-DD`); a local date-time gets the zone's offset *at that instant*
 * (DST-correct, via Intl). Never throws: an unreadable date is `undefined`, and the record
 * simply has no date.
 *
 * Day-first or month-first is decided by the values, never assumed: a part over 12 decides
 * for its own value, and `dayOrderOf` lets all the values of one answer decide together, so
 * `01/02/2026` in an answer that also writes `13/02/2026` is 1 February.
 *
 * A time written with its zone (`Z`, `GMT`, `-0500`) is that instant, midnight UTC included:
 * `Tue, 01 Dec 2026 00:00:00 GMT` stays `2026-12-01T00:00:00Z`, which is 7 pm on Nov 30 in
 * Ohio, and the directory shows Nov 30. It is not taken for a bare day: a 7 pm meeting in an
 * Ohio winter (8 pm in summer) written in UTC is exactly 00:00:00 of the next day, and none of
 * the platforms in the fixtures writes a day that way (CivicPlus feeds give posting times with
 * their server's offset, Granicus its own offset beside `gran:pubDateParts`, CivicClerk wall
 * clock marked `Z`, which its preset reads as wall clock). A platform found writing days as
 * midnight UTC is to be read so by a preset of its own, as CivicClerk's `Z` is: never guessed here.
 */

import { instantOf, zoneOffsetMs } from "../policy/zone.js";

const MONTHS: Record<string, number> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  sept: 9,
  oct: 10,
  nov: 11,
  dec: 12,
};

/** RFC 822 §5.1 zone names still seen in feeds (RSS 2.0 pubDate). */
const NAMED_ZONES: Record<string, string> = {
  UT: "+00:00",
  GMT: "+00:00",
  UTC: "+00:00",
  Z: "+00:00",
  EST: "-05:00",
  EDT: "-04:00",
  CST: "-06:00",
  CDT: "-05:00",
  MST: "-07:00",
  MDT: "-06:00",
  PST: "-08:00",
  PDT: "-07:00",
};

/**
 * The generic US zone names pages write after a time ("6:00 PM ET"): the wall time in that
 * zone, with the offset in force that day (unlike EST/EDT, which name one offset).
 */
const GENERIC_ZONES: Record<string, string> = {
  ET: "America/New_York",
  CT: "America/Chicago",
  MT: "America/Denver",
  PT: "America/Los_Angeles",
};

/** The zone of a record whose government names none (catalog `timezone`). */
export const DEFAULT_ZONE = "America/New_York";

export type DayOrder = "mdy" | "dmy";

export interface DateOptions {
  /** IANA zone assumed when the input has none. Default America/New_York. */
  zone?: string | undefined;
  /**
   * How to read an ambiguous `01/02/2026` (both parts 12 or less). Default "mdy" (US pages).
   * A value whose first part is over 12 is day-first, whose second part is over 12
   * month-first, whatever this says.
   */
  order?: DayOrder | undefined;
}

/** `1/2/2026`, `13.02.26`, `02-13-2026` inside a text (never a part of `2026-02-13`). */
const NUMERIC_DATE = /(?<![\d/.-])(\d{1,2})[/.-](\d{1,2})[/.-](\d{4}|\d{2})(?![\d/.-]?\d)/g;

/**
 * The order the numeric dates of one answer are written in, decided by their values
 * together: a first part over 12 says day-first, a second part over 12 month-first.
 * Undefined when no value decides, or when the values disagree (each then decides alone).
 */
export function dayOrderOf(values: Iterable<string | undefined>): DayOrder | undefined {
  let dmy = false;
  let mdy = false;
  for (const v of values) {
    if (!v) continue;
    for (const m of v.matchAll(NUMERIC_DATE)) {
      const a = Number(m[1]);
      const b = Number(m[2]);
      if (a > 12 && a <= 31 && b >= 1 && b <= 12) dmy = true;
      else if (b > 12 && b <= 31 && a >= 1 && a <= 12) mdy = true;
    }
  }
  return dmy === mdy ? undefined : dmy ? "dmy" : "mdy";
}

/**
 * The date options for the values of one answer: the government's zone, and the order the
 * values decide together (`fallback` when none decides: US pages are month-first).
 */
export function answerDates(
  values: Iterable<string | undefined>,
  zone: string | undefined,
  fallback: DayOrder = "mdy",
): DateOptions {
  return { zone, order: dayOrderOf(values) ?? fallback };
}

interface Parts {
  y: number;
  mo: number;
  d: number;
  time?: { h: number; mi: number; s: number; ms: number };
  /** "+hh:mm" when the input named its zone. */
  offset?: string;
  /** An IANA zone, when the input named a generic one ("ET", "CT"). */
  zone?: string;
}

const pad = (n: number, w = 2) => String(n).padStart(w, "0");

export function toIsoDate(input: string, opts: DateOptions = {}): string | undefined {
  try {
    const s = input.replace(/\s+/g, " ").trim();
    if (s === "") return undefined;
    // `/Date(1700000000000)/` and `/Date(1700000000000-0500)/`: .NET JSON dates, an instant
    // (milliseconds since 1970 UTC; the offset says only the zone it was written in, and must
    // be one a place has, as in the text forms).
    const ms = /^\/?Date\((-?\d+)([+-]\d{4})?\)\/?$/.exec(s);
    if (ms) return formatInstant(Number(ms[1]), opts.zone ?? DEFAULT_ZONE, ms[2]);
    const p = parseParts(s, opts.order ?? "mdy");
    if (!p || !valid(p)) return undefined;
    const date = `${pad(p.y, 4)}-${pad(p.mo)}-${pad(p.d)}`;
    if (!p.time) return date;
    // A leap second (23:59:60) is written as the last instant of the minute before it, which
    // every reader of the date (the store's ordering, Date.parse) takes as a time.
    const t = p.time.s === 60 ? { ...p.time, s: 59, ms: 999 } : p.time;
    const clock = `${pad(t.h)}:${pad(t.mi)}:${pad(t.s)}${t.ms ? `.${pad(t.ms, 3)}` : ""}`;
    if (p.offset) return `${date}T${clock}${p.offset === "+00:00" ? "Z" : p.offset}`;
    const zone = p.zone ?? opts.zone ?? DEFAULT_ZONE;
    const off = offsetForLocal(p.y, p.mo, p.d, t.h, t.mi, t.s, zone);
    if (off === undefined) return undefined;
    return `${date}T${clock}${formatOffset(off)}`;
  } catch {
    return undefined;
  }
}

function valid(p: Parts): boolean {
  if (p.y < 1900 || p.y > 2200 || p.mo < 1 || p.mo > 12 || p.d < 1) return false;
  if (p.d > new Date(Date.UTC(p.y, p.mo, 0)).getUTCDate()) return false;
  // An offset no place has (over 14 hours, or 60 minutes and more): not a time one can read.
  const off = p.offset !== undefined ? /^[+-](\d{2}):(\d{2})$/.exec(p.offset) : null;
  if (p.offset !== undefined && (!off || +off[1]! > 14 || +off[2]! > 59)) return false;
  const t = p.time;
  return !t || (t.h < 24 && t.mi < 60 && t.s < 61);
}

function parseParts(s: string, order: "mdy" | "dmy"): Parts | undefined {
  // ISO 8601 / RFC 3339, with or without time and zone.
  let m =
    /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?\s*(Z|[+-]\d{2}:?\d{2})?)?$/i.exec(
      s,
    );
  if (m) {
    const p: Parts = { y: +m[1]!, mo: +m[2]!, d: +m[3]! };
    if (m[4] !== undefined) {
      p.time = {
        h: +m[4],
        mi: +m[5]!,
        s: +(m[6] ?? 0),
        ms: m[7] ? +m[7].slice(0, 3).padEnd(3, "0") : 0,
      };
      if (m[8]) p.offset = normOffset(m[8]);
    }
    return p;
  }
  // An ISO day followed by a time the ISO form has no room for: "2026-12-01 6:00 PM", the
  // same wall time as "December 1, 2026 6:00 PM".
  m = /^(\d{4})-(\d{2})-(\d{2}),?\s+(.*)$/.exec(s);
  if (m) return withTime({ y: +m[1]!, mo: +m[2]!, d: +m[3]! }, m[4]);
  // YYYYMMDD
  m = /^(\d{4})(\d{2})(\d{2})$/.exec(s);
  if (m) return { y: +m[1]!, mo: +m[2]!, d: +m[3]! };
  // Year first with slashes or dots: 2026/02/17, 2026.02.17 18:00 (always year, month, day).
  m = /^(\d{4})[/.](\d{1,2})[/.](\d{1,2})(?:,?\s+(.*))?$/.exec(s);
  if (m) return withTime({ y: +m[1]!, mo: +m[2]!, d: +m[3]! }, m[4]);
  // Drop a leading weekday ("Tuesday, ", "Tue, ") and a trailing " at ".
  const rest = s
    .replace(/^(mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?\s+/i, "")
    .replace(/\s+at\s+/i, " ");
  // Numeric: 08/23/2022, 8-23-22, 23.08.2022 (dmy), optional time.
  m = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{2}|\d{4})(?:,?\s+(.*))?$/.exec(rest);
  if (m) {
    const a = +m[1]!;
    const b = +m[2]!;
    // A part over 12 is the day, whatever the answer's order says.
    const dayFirst = a > 12 ? true : b > 12 ? false : order === "dmy";
    const [mo, d] = dayFirst ? [b, a] : [a, b];
    return withTime({ y: fullYear(m[3]!), mo, d }, m[4]);
  }
  // Month name first: "Aug 23, 2022", "August 23 2022 6:00 PM".
  m = /^([a-z]{3,9})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})(?:,?\s+(.*))?$/i.exec(rest);
  if (m) {
    const mo = MONTHS[m[1]!.toLowerCase().slice(0, m[1]!.toLowerCase().startsWith("sept") ? 4 : 3)];
    if (!mo) return undefined;
    return withTime({ y: +m[3]!, mo, d: +m[2]! }, m[4]);
  }
  // Day first: "23 Aug 2022", "23-Aug-2022", "1st December 2026", "2nd of Dec, 2026", RFC 822
  // "Tue, 23 Aug 2022 18:00:00 -0400".
  m =
    /^(\d{1,2})(?:st|nd|rd|th)?(?:\s+of)?(?:\s+|-)([a-z]{3,9})\.?,?(?:\s+|-)(\d{2}|\d{4})(?:,?\s+(.*))?$/i.exec(
      rest,
    );
  if (m) {
    const mo = MONTHS[m[2]!.toLowerCase().slice(0, 3)];
    if (!mo) return undefined;
    return withTime({ y: fullYear(m[3]!), mo, d: +m[1]! }, m[4]);
  }
  return undefined;
}

/**
 * Two-digit years (RFC 822 allows them; lists write "12/01/69"): 00–49 are 20xx, 50–99 19xx,
 * RFC 5322's rule (§4.3). Record lists hold old ordinances from the 1970s and before as well
 * as meetings a year or two ahead, so "69" is 1969, not 2069 (the 70 pivot read it so). No
 * clock is read here: the window is fixed, and stays right until lists name meetings in 2050.
 */
function fullYear(y: string): number {
  if (y.length === 4) return +y;
  const n = +y;
  return n >= 50 ? 1900 + n : 2000 + n;
}

const MERIDIEM = "(a\\.?m\\.?|p\\.?m\\.?)";
const CLOCK = `(\\d{1,2})(?::(\\d{2}))?(?::(\\d{2}))?\\s*${MERIDIEM}?`;
const ZONE_WORD = "(Z|[+-]\\d{2}:?\\d{2}|[A-Z]{1,4})";
/** A time range, "6:00 - 8:00 PM ET": its start is the record's time. */
const RANGE = new RegExp(
  `^${CLOCK}\\s*(?:-|\u2013|\u2014|to)\\s*(\\d{1,2})(?::\\d{2})?\\s*${MERIDIEM}?\\s*${ZONE_WORD}?$`,
  "i",
);

/**
 * The time after a date as pages write it: "- 6:00 PM", "@ 6 PM" (a separator first), "12:00
 * Noon", "12:00 Midnight" (the start of that day, as 12:00 AM is: the day written is the day
 * read), "6:00 PM - 8:00 PM" (a range: its start, taking the end's AM/PM when the start has
 * none and is not later), "6:00 PM ET" (a generic zone: wall time there).
 */
function normalTime(tail: string): string {
  let t = tail
    .trim()
    .replace(/^(?:[-\u2013\u2014@|]|at\b)\s*/i, "")
    .replace(/^(?:12(?::00)?\s*)?noon\b\.?/i, "12:00 PM")
    .replace(/^(?:12(?::00)?\s*)?midnight\b\.?/i, "12:00 AM");
  const r = RANGE.exec(t);
  if (r) {
    const [, h, mi, sec, mer, endH, endMer, zone] = r;
    let start = `${h}${mi ? `:${mi}` : ""}${sec ? `:${sec}` : ""}`;
    if (mer) start += ` ${mer}`;
    else if (endMer && Number(h) <= Number(endH) && Number(h) <= 12) start += ` ${endMer}`;
    t = zone ? `${start} ${zone}` : start;
  }
  return t;
}

/** Reads "6:00 PM", "18:00:00 -0400", "6 p.m.", "18:00 EST"; garbage after the date fails. */
function withTime(p: Parts, tail: string | undefined): Parts | undefined {
  if (tail === undefined || tail.trim() === "") return p;
  const m =
    /^(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?\s*(a\.?m\.?|p\.?m\.?)?\s*(Z|[+-]\d{2}:?\d{2}|[A-Z]{1,4})?$/i.exec(
      normalTime(tail),
    );
  if (!m || (m[2] === undefined && m[4] === undefined)) return undefined;
  let h = +m[1]!;
  const mer = m[4]?.toLowerCase().replace(/\./g, "");
  if (mer) {
    if (h < 1 || h > 12) return undefined;
    if (mer === "pm" && h !== 12) h += 12;
    if (mer === "am" && h === 12) h = 0;
  }
  p.time = { h, mi: +(m[2] ?? 0), s: +(m[3] ?? 0), ms: 0 };
  if (m[5]) {
    const z = m[5].toUpperCase();
    const generic = GENERIC_ZONES[z];
    if (generic) {
      p.zone = generic;
      return p;
    }
    const off = /^[+-]/.test(z) ? normOffset(z) : NAMED_ZONES[z];
    if (!off) return undefined;
    p.offset = off;
  }
  return p;
}

function normOffset(z: string): string {
  if (z.toUpperCase() === "Z") return "+00:00";
  const digits = z.replace(":", "");
  return `${digits.slice(0, 3)}:${digits.slice(3, 5)}`;
}

function formatOffset(minutes: number): string {
  const sign = minutes < 0 ? "-" : "+";
  const a = Math.abs(minutes);
  return `${sign}${pad(Math.floor(a / 60))}:${pad(a % 60)}`;
}

/** The zone's offset from UTC (minutes) at an instant. */
export function zoneOffsetAt(epochMs: number, zone: string): number {
  return Math.round(zoneOffsetMs(epochMs, zone) / 60_000);
}

/**
 * The offset that makes a local wall time in `zone`. Two passes settle it around a DST change;
 * a wall time in the spring gap takes the offset before the change, an ambiguous one in the
 * autumn overlap takes the first (daylight) reading, as a reader of the page would.
 */
function offsetForLocal(
  y: number,
  mo: number,
  d: number,
  h: number,
  mi: number,
  s: number,
  zone: string,
): number | undefined {
  const wall = { year: y, month: mo, day: d, hour: h, minute: mi, second: s, ms: 0 };
  // The earlier of two readings in the autumn overlap is the daylight one.
  const at = instantOf(wall, zone, "earlier");
  return Number.isFinite(at)
    ? Math.round((Date.UTC(y, mo - 1, d, h, mi, s) - at) / 60_000)
    : undefined;
}

/**
 * An instant as local time in `zone`, with that zone's offset; undefined where the text forms
 * would refuse the date it is (`valid`: a year before 1900 or after 2200, an offset `written`
 * beside it that no place has): DateTime.MinValue and MaxValue (years 1 and 9999), which .NET
 * APIs write for a date never filled in, are no date.
 */
function formatInstant(epochMs: number, zone: string, written?: string): string | undefined {
  if (!Number.isFinite(epochMs)) return undefined;
  const off = zoneOffsetAt(epochMs, zone);
  const local = new Date(epochMs + off * 60000);
  if (Number.isNaN(local.getTime())) return undefined;
  const day: Parts = {
    y: local.getUTCFullYear(),
    mo: local.getUTCMonth() + 1,
    d: local.getUTCDate(),
    ...(written === undefined ? {} : { offset: normOffset(written) }),
  };
  if (!valid(day)) return undefined;
  const iso = local.toISOString().slice(0, 19);
  const msPart = epochMs % 1000 ? `.${pad(((epochMs % 1000) + 1000) % 1000, 3)}` : "";
  return `${iso}${msPart}${formatOffset(off)}`;
}
