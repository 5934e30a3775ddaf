import { UsageError } from "../errors.js";
import { MIN_NIGHT_DEADLINE_MS } from "../policy/constants.js";
import { NIGHT_SPAN_MS } from "../policy/night-date.js";

const UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1_000, ms: 1 };

/**
 * `--deadline`: "6h", "90m", "30s", "1h30m", "500ms". Throws UsageError naming the text: one
 * that is no duration, or one of no time at all ("0s", "0h0m", "0.1ms": a deadline or a gap of
 * nothing is a duration, but not one the option can mean). `floorMs`: the least the option
 * takes (a gap's MIN_GAP_MS, P10), named in that refusal as the rule it is; the caller still
 * refuses a time under it.
 */
export function parseDuration(text: string, option = "--deadline", floorMs?: number): number {
  const re = /(\d+(?:\.\d+)?)(ms|h|m|s)/gy;
  let total = 0;
  let matched = 0;
  let m: RegExpExecArray | null = re.exec(text);
  while (m) {
    total += Number(m[1]) * (UNIT_MS[m[2] as string] as number);
    matched += m[0].length;
    m = re.exec(text);
  }
  // Examples the option itself takes: a night's deadline is at least 1m, a gap at least 2 s.
  const eg = option === "--deadline" ? "6h, 90m, 1h30m" : "30s, 2m, 1m30s";
  if (text.length === 0 || matched !== text.length) {
    throw new UsageError(`${option}: "${text}" is not a duration (e.g. ${eg})`);
  }
  // Under a floor by any fraction (1999.6ms, 1.9999s) it stays under it, for the caller to
  // refuse as under the floor, never rounded up to the floor and taken.
  const ms = floorMs !== undefined && total < floorMs ? Math.floor(total) : Math.round(total);
  if (ms <= 0) {
    const what = option.replace(/^--/, "");
    throw new UsageError(
      floorMs === undefined
        ? `${option}: "${text}" is no time at all: a ${what} must be more than 0 (e.g. ${eg})`
        : `${option}: "${text}" is no time at all: a ${what} must be at least the ${floorMs / 1000} s floor (P10)`,
    );
  }
  return ms;
}

/**
 * `--deadline` of `nor night` and `nor start`: a duration from MIN_NIGHT_DEADLINE_MS (1m) to a
 * night (24h), else a UsageError naming the bound (P13).
 */
export function parseNightDeadline(text: string): number {
  const ms = parseDuration(text);
  if (ms > NIGHT_SPAN_MS)
    throw new UsageError(`--deadline: "${text}" is longer than a night (at most 24h)`);
  if (ms < MIN_NIGHT_DEADLINE_MS)
    throw new UsageError(
      `--deadline: "${text}" is shorter than the 1m floor a night's deadline must reach (a night that cannot ask anything before its deadline would write off the day's sources)`,
    );
  return ms;
}

/**
 * A length in whole hours and minutes, rounded to the nearest minute, never down: 1 h 59 min
 * 59 s is 2 h 00 min, not 1 h 59 min. How a night's length and its time limit are said in
 * hours, by `nor night` (formatLeft) and by the console's night report alike.
 */
export function hoursAndMinutes(ms: number): { h: number; min: number } {
  const total = Math.max(0, Math.round(ms / 60_000));
  return { h: Math.floor(total / 60), min: total % 60 };
}

/**
 * "5h 59m" / "12m 03s" / "8s" for the progress line and the night's summary, rounded to the
 * nearest unit shown: the nearest minute from an hour on (hoursAndMinutes), else the nearest
 * second.
 */
export function formatLeft(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s >= 3600) {
    const { h, min } = hoursAndMinutes(ms);
    return `${h}h ${String(min).padStart(2, "0")}m`;
  }
  const m = Math.floor(s / 60);
  const sec = s % 60;
  if (m > 0) return `${m}m ${String(sec).padStart(2, "0")}s`;
  return `${sec}s`;
}
