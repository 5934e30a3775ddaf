import { UsageError } from "../errors.js";
import { dayStart, instantOf, SITE_OWNER_ZONE, type WallTime } from "../policy/zone.js";

/** The period a time argument names: [start, end) in epoch ms. */
export interface TimeSpan {
  start: number;
  end: number;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?\s*([Zz]|[+-]\d{2}(?::?\d{2})?)?$/;

export const TIME_ARG_HELP = [
  "Times:",
  "  2026-11-05T08:12Z, 2026-11-05T03:12-05:00   ISO 8601 with a zone: as written",
  `  2026-11-05T03:12, "2026-11-05 03:12"        no zone: New York time (${SITE_OWNER_ZONE}),`,
  "                                              the clock Ohio's site owners read their logs by",
  "  2026-11-05                                  that whole day in New York",
  "--since takes the start of the period written, --until its end (--until 03:13 includes",
  "03:13:59). In the autumn hour that happens twice, both are covered.",
].join("\n");

/**
 * Reads a --since/--until value as the period it names, to its written precision: a minute,
 * a second, a fraction, or a whole day. Throws a UsageError naming the flag and the value.
 */
export function parseTimeArg(text: string, flag: string): TimeSpan {
  const s = text.trim();
  const d = DATE.exec(s);
  if (d) {
    const [y, mo, da] = [Number(d[1]), Number(d[2]), Number(d[3])];
    if (!validDate(y, mo, da)) throw bad(text, flag);
    const next = new Date(Date.UTC(y, mo - 1, da + 1));
    // A New York day is 23, 24 or 25 hours long: compute both ends, not start + 24 h.
    return {
      start: dayStart(y, mo, da, SITE_OWNER_ZONE),
      end: dayStart(
        next.getUTCFullYear(),
        next.getUTCMonth() + 1,
        next.getUTCDate(),
        SITE_OWNER_ZONE,
      ),
    };
  }
  const m = DATE_TIME.exec(s);
  if (!m) throw bad(text, flag);
  const fraction = m[7] ?? "";
  const w: WallTime = {
    year: Number(m[1]),
    month: Number(m[2]),
    day: Number(m[3]),
    hour: Number(m[4]),
    minute: Number(m[5]),
    second: Number(m[6] ?? 0),
    ms: Number(`${fraction}000`.slice(0, 3)),
  };
  if (!validDate(w.year, w.month, w.day) || w.hour > 23 || w.minute > 59 || w.second > 59) {
    throw bad(text, flag);
  }
  const length = m[6] === undefined ? 60_000 : fraction === "" ? 1000 : fractionLength(fraction);
  const zone = m[8];
  if (zone === undefined) {
    const start = instantOf(w, SITE_OWNER_ZONE, "earlier");
    const lastStart = instantOf(w, SITE_OWNER_ZONE, "later");
    return { start, end: lastStart + length };
  }
  const offset = offsetMs(zone);
  if (offset === undefined) throw bad(text, flag);
  const start = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second, w.ms) - offset;
  return { start, end: start + length };
}

/** --since/--until as one window [since, until), checked to be the right way round. */
export function parseTimeWindow(opts: { since?: string; until?: string }): {
  since?: number;
  until?: number;
} {
  const out: { since?: number; until?: number } = {};
  if (opts.since !== undefined) out.since = parseTimeArg(opts.since, "--since").start;
  if (opts.until !== undefined) out.until = parseTimeArg(opts.until, "--until").end;
  if (out.since !== undefined && out.until !== undefined && out.since >= out.until) {
    throw new UsageError(`--since "${opts.since}" is not before --until "${opts.until}"`);
  }
  return out;
}

function fractionLength(fraction: string): number {
  // ".5" names a tenth of a second, ".123" one millisecond; finer than ms rounds to 1 ms.
  return Math.max(1, 10 ** (3 - fraction.length));
}

function offsetMs(zone: string): number | undefined {
  if (zone === "Z" || zone === "z") return 0;
  const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone);
  if (!m) return undefined;
  const h = Number(m[2]);
  const mi = Number(m[3] ?? 0);
  if (h > 23 || mi > 59) return undefined;
  return (m[1] === "-" ? -1 : 1) * (h * 60 + mi) * 60_000;
}

function validDate(y: number, mo: number, d: number): boolean {
  const t = new Date(Date.UTC(y, mo - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d;
}

function bad(text: string, flag: string): UsageError {
  return new UsageError(
    `${flag}: cannot read "${text}" as a time; use 2026-11-05T03:12 (New York time), ` +
      "2026-11-05 (that whole day in New York) or 2026-11-05T08:12Z",
  );
}
