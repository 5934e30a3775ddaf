/**
 * Wall-clock time in an IANA zone ⇄ instants, through Intl (no tz library needed). Site owners
 * in Ohio read their server logs in Eastern time, so that is where a time without a zone lives.
 */
import { ConfigError } from "../errors.js";
import { IANA_LINK_NAMES } from "./zone-names.js";

export const SITE_OWNER_ZONE = "America/New_York";

export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  ms: number;
}

/** What a time zone must be, the same words wherever one is given (catalog, `nor start --zone`). */
export const IANA_ZONE_RULE =
  "must be an IANA time zone such as America/New_York or America/Chicago (an Area/City name, not an abbreviation like EST)";

/**
 * An IANA time zone the runtime knows, written as IANA writes it (`America/Chicago`,
 * `America/Indiana/Indianapolis`, `UTC`). Abbreviations such as `EST` are refused: they are
 * fixed offsets without daylight time, which no Ohio page or night means.
 */
export function isIanaZone(name: string): boolean {
  return ianaZoneProblem(name) === undefined;
}

/**
 * Why `name` is not an IANA time zone as IANA writes it, or undefined. Intl reads a zone in any
 * case (`America/New_york` is New York to it), so a name it knows is also held to IANA's
 * spelling: Intl's own answer for it, its list of zones, or IANA's links (zone-names.ts); one
 * that differs from a spelling of these only in case is refused, naming it. A name none of them
 * spells (a runtime's own alias, unknown to IANA) is left as Intl reads it.
 */
export function ianaZoneProblem(name: string): string | undefined {
  if (name !== "UTC" && !/^[A-Z][A-Za-z_-]*(?:\/[A-Z0-9][A-Za-z0-9_+-]*)+$/.test(name)) {
    // A known zone written in another case (america/new_york): its spelling is said.
    const known = /^[A-Za-z][A-Za-z_-]*(?:\/[A-Za-z0-9][A-Za-z0-9_+-]*)+$/.test(name)
      ? knownSpelling(name)
      : undefined;
    return known !== undefined
      ? `must be written as IANA writes it, ${known} (time zone names are case-sensitive)`
      : IANA_ZONE_RULE;
  }
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat("en-US", { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return IANA_ZONE_RULE;
  }
  const spelling = ianaSpelling(name, resolved);
  if (spelling !== undefined && spelling !== name)
    return `must be written as IANA writes it, ${spelling} (time zone names are case-sensitive)`;
  return undefined;
}

let zoneNamesByLowerCase: Map<string, string> | undefined;

/** IANA's spelling of a zone name known in any case, or undefined. */
function knownSpelling(name: string): string | undefined {
  return ianaSpelling(name, "");
}

/** IANA's spelling of a zone name Intl knows (read in any case), or undefined when none is known. */
function ianaSpelling(name: string, resolved: string): string | undefined {
  if (resolved === name || IANA_LINK_NAMES.has(name)) return name;
  if (zoneNamesByLowerCase === undefined) {
    zoneNamesByLowerCase = new Map();
    for (const zone of [...Intl.supportedValuesOf("timeZone"), ...IANA_LINK_NAMES])
      zoneNamesByLowerCase.set(zone.toLowerCase(), zone);
  }
  const lower = name.toLowerCase();
  return (
    zoneNamesByLowerCase.get(lower) ?? (resolved.toLowerCase() === lower ? resolved : undefined)
  );
}

const DAY_MS = 86_400_000;
const formats = new Map<string, Intl.DateTimeFormat>();

function formatFor(zone: string): Intl.DateTimeFormat {
  let f = formats.get(zone);
  if (!f) {
    try {
      f = new Intl.DateTimeFormat("en-US", {
        timeZone: zone,
        hourCycle: "h23",
        year: "numeric",
        month: "2-digit",
        day: "2-digit",
        hour: "2-digit",
        minute: "2-digit",
        second: "2-digit",
      });
    } catch (cause) {
      throw new ConfigError(`unknown time zone: ${JSON.stringify(zone)}`, { cause });
    }
    formats.set(zone, f);
  }
  return f;
}

/** The wall clock in `zone` at instant `t`. */
export function wallTimeAt(t: number, zone: string): WallTime {
  const parts: Record<string, number> = {};
  for (const p of formatFor(zone).formatToParts(new Date(t))) {
    if (p.type !== "literal") parts[p.type] = Number(p.value);
  }
  return {
    year: parts["year"] ?? 0,
    month: parts["month"] ?? 0,
    day: parts["day"] ?? 0,
    hour: parts["hour"] ?? 0,
    minute: parts["minute"] ?? 0,
    second: parts["second"] ?? 0,
    ms: ((t % 1000) + 1000) % 1000,
  };
}

/**
 * The wall time read as if it were UTC. Not Date.UTC, which reads the years 0–99 as 1900–1999:
 * an instant in them (a .NET API's DateTime.MinValue, the year 1) would be given an offset of
 * 1900 years.
 */
function wallAsUtc(w: WallTime): number {
  const t = new Date(0);
  t.setUTCFullYear(w.year, w.month - 1, w.day);
  t.setUTCHours(w.hour, w.minute, w.second, w.ms);
  return t.getTime();
}

/** Local minus UTC, in ms, of `zone` at instant `t` (−5 h for New York in November). */
export function zoneOffsetMs(t: number, zone: string): number {
  return wallAsUtc(wallTimeAt(t, zone)) - t;
}

/**
 * The instant a wall-clock time names in `zone`. In the autumn hour that happens twice, `prefer`
 * picks the earlier or later one (a --since takes the earlier, an --until the later, so both are
 * covered). A time skipped in spring is read with the offset before the jump (02:30 → 03:30 EDT).
 */
export function instantOf(w: WallTime, zone: string, prefer: "earlier" | "later"): number {
  const asUtc = wallAsUtc(w);
  // Transitions are months apart, so a day either side sees every offset that can apply.
  const before = zoneOffsetMs(asUtc - DAY_MS, zone);
  const after = zoneOffsetMs(asUtc + DAY_MS, zone);
  const fits = [...new Set([before, after])]
    .map((off) => asUtc - off)
    .filter((t) => zoneOffsetMs(t, zone) === asUtc - t)
    .sort((a, b) => a - b);
  if (fits.length === 0) return asUtc - before;
  return (prefer === "earlier" ? fits[0] : fits[fits.length - 1]) ?? asUtc - before;
}

/** The instant the day `year-month-day` begins in `zone` (its first midnight: a day may be 23–25 h). */
export function dayStart(year: number, month: number, day: number, zone: string): number {
  return instantOf({ year, month, day, hour: 0, minute: 0, second: 0, ms: 0 }, zone, "earlier");
}

/** `2026-11-05 03:12:04.123 -05:00`: the wall clock in `zone`, with its offset. */
export function formatInZone(t: number, zone: string): string {
  const w = wallTimeAt(t, zone);
  // The offset from the same wall time (zoneOffsetMs would format the instant again).
  const off = Math.round((wallAsUtc(w) - t) / 60_000);
  const sign = off < 0 ? "-" : "+";
  const abs = Math.abs(off);
  const p = (n: number, width = 2) => String(n).padStart(width, "0");
  return (
    `${p(w.year, 4)}-${p(w.month)}-${p(w.day)} ${p(w.hour)}:${p(w.minute)}:${p(w.second)}` +
    `.${p(w.ms, 3)} ${sign}${p(Math.floor(abs / 60))}:${p(abs % 60)}`
  );
}
