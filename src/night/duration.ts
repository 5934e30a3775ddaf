import { UsageError } from "../errors.js";

const UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1_000, ms: 1 };

/** `--deadline`: "6h", "90m", "30s", "1h30m", "500ms". Throws UsageError naming the text. */
export function parseDuration(text: string, option = "--deadline"): number {
  const re = /(\d+(?:\.\d+)?)(ms|h|m|s)/gy;
  let total = 0;
  let matched = 0;
  let m: RegExpExecArray | null = re.exec(text);
  while (m) {
    total += Number(m[1]) * (UNIT_MS[m[2] as string] as number);
    matched += m[0].length;
    m = re.exec(text);
  }
  if (text.length === 0 || matched !== text.length || !(total > 0)) {
    throw new UsageError(`${option}: "${text}" is not a duration (e.g. 6h, 90m, 30s, 1h30m)`);
  }
  return Math.round(total);
}

/** "5h 59m" / "12m 03s" / "8s" for the progress line. */
export function formatLeft(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (h > 0) return `${h}h ${String(m).padStart(2, "0")}m`;
  if (m > 0) return `${m}m ${String(sec).padStart(2, "0")}s`;
  return `${sec}s`;
}
