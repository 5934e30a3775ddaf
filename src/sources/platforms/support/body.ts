/**
 * Looking at JSON from the wild, which is `unknown` until looked at. Bodies are decoded by
 * the one decoder and JSON read by the one reader every way in shares (extract/decode.ts,
 * extract/json.ts).
 */

/** A plain object, or undefined. */
export function obj(v: unknown): Record<string, unknown> | undefined {
  return typeof v === "object" && v !== null && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : undefined;
}

export function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

export function str(v: unknown): string | undefined {
  if (typeof v === "string") return v;
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  return undefined;
}
