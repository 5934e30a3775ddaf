/**
 * Date templates in form fields (P5): `{today}`, `{today-30d}`, `{today+2w}`, `{today-1m}`,
 * `{today-1y}`, written in the spec's format (default MM/DD/YYYY, as US search forms expect)
 * for the calendar day in the zone (the government's, default America/New_York) at `now` — the injected clock's
 * time, so a night replayed in a test fills the same dates.
 */

import { wallTimeAt } from "../../policy/zone.js";
import { DEFAULT_ZONE } from "../dates.js";

const TEMPLATE = /\{today(?:([+-])(\d{1,4})([dwmy]))?\}/g;

/** Calendar date (y, m 1–12, d) in `zone` at the instant `now`. */
export function localDate(now: number, zone: string): { y: number; m: number; d: number } {
  const w = wallTimeAt(now, zone);
  return { y: w.year, m: w.month, d: w.day };
}

function shift(
  date: { y: number; m: number; d: number },
  sign: string,
  n: number,
  unit: string,
): Date {
  const k = sign === "-" ? -n : n;
  const t = new Date(Date.UTC(date.y, date.m - 1, date.d));
  if (unit === "d") t.setUTCDate(t.getUTCDate() + k);
  else if (unit === "w") t.setUTCDate(t.getUTCDate() + 7 * k);
  else {
    // Months and years clamp to the month's last day (Mar 31 − 1m = Feb 28), as people count.
    const months = unit === "m" ? k : 12 * k;
    const target = new Date(Date.UTC(date.y, date.m - 1 + months, 1));
    const last = new Date(
      Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0),
    ).getUTCDate();
    target.setUTCDate(Math.min(date.d, last));
    return target;
  }
  return t;
}

export function formatDate(t: Date, format: string): string {
  const y = t.getUTCFullYear();
  const m = t.getUTCMonth() + 1;
  const d = t.getUTCDate();
  return format.replace(/YYYY|MM|DD|M|D/g, (tok) => {
    switch (tok) {
      case "YYYY":
        return String(y).padStart(4, "0");
      case "MM":
        return String(m).padStart(2, "0");
      case "DD":
        return String(d).padStart(2, "0");
      case "M":
        return String(m);
      default:
        return String(d);
    }
  });
}

/** Fills every `{today…}` template in `value`; other text is left as written. */
export function fillDateTemplates(
  value: string,
  now: number,
  opts: { format?: string | undefined; zone?: string | undefined } = {},
): string {
  const today = localDate(now, opts.zone ?? DEFAULT_ZONE);
  const format = opts.format ?? "MM/DD/YYYY";
  return value.replace(TEMPLATE, (_, sign?: string, n?: string, unit?: string) =>
    formatDate(shift(today, sign ?? "+", Number(n ?? 0), unit ?? "d"), format),
  );
}
