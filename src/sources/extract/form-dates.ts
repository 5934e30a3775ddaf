/**
 * Date templates in form fields (P5): `{today}`, `{today-30d}`, `{today+2w}`, `{today-1m}`,
 * `{today-1y}`, written in the spec's format (default MM/DD/YYYY, as US search forms expect)
 * for the calendar day in the zone (the government's, default America/New_York) at `now` — the injected clock's
 * time, so a night replayed in a test fills the same dates.
 */

import { wallTimeAt } from "../../policy/zone.js";
import { DEFAULT_ZONE } from "../dates.js";

/** One template, as the filler reads it: `{today}`, or `{today` ± 1–4 digits and d, w, m or y `}`. */
const TEMPLATE_TEXT = String.raw`\{today(?:([+-])(\d{1,4})([dwmy]))?\}`;
const TEMPLATE = new RegExp(TEMPLATE_TEXT, "g");
const WHOLE_TEMPLATE = new RegExp(`^${TEMPLATE_TEXT}$`);

/** The tokens of a date format, as `formatDate` reads them; other text is written as is. */
const FORMAT_TOKENS = /YYYY|MM|DD|M|D/g;

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
  return format.replace(FORMAT_TOKENS, (tok) => {
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

/**
 * What in a form field's value looks like a template (`{` and a letter, up to its `}`), or opens
 * `{today` and never closes: each must be one the filler fills, or the site is sent the braces.
 * A value without braces, or with braces around other text (`{"enabled":true}`, a control's
 * JSON state), is sent as written.
 */
const TEMPLATE_LIKE = /\{\s*[A-Za-z][^{}]*\}|\{\s*today[^{}]*/gi;

export const DATE_TEMPLATES = "{today}, {today-30d}, {today+2w}, {today-1m}, {today-1y}";

/** Why `value` (a form field) holds a `{…}` the filler would send as written, or undefined. */
export function dateTemplateProblem(value: string): string | undefined {
  for (const [found] of value.matchAll(TEMPLATE_LIKE)) {
    if (WHOLE_TEMPLATE.test(found)) continue;
    const what = found.endsWith("}") ? "is not a date template" : "opens a template never closed";
    return `${JSON.stringify(found)} ${what}: the form filler knows ${DATE_TEMPLATES} (+ or -, 1 to 4 digits, then d, w, m or y) and would send anything else as written`;
  }
  return undefined;
}

const PART: Record<string, string> = { YYYY: "year", MM: "month", M: "month", DD: "day", D: "day" };

/**
 * Why `formatDate` cannot write dates in `format`, or undefined: it has none of the tokens, one
 * part twice (`MMM` is MM then M), or letters that are no token (`YY`, `yyyy`, `QQ`), which would
 * be sent as written. The letter T (an ISO date's time separator) is text like `/`, `-` or `.`.
 */
export function dateFormatProblem(format: string): string | undefined {
  const seen = new Map<string, string>();
  let twice: string | undefined;
  const rest = format.replace(FORMAT_TOKENS, (tok) => {
    const part = PART[tok] ?? tok;
    const first = seen.get(part);
    if (first !== undefined) twice ??= `the ${part} twice (${first}, then ${tok})`;
    else seen.set(part, tok);
    return " ";
  });
  const tokens = "YYYY, MM, DD, M and D (upper case)";
  const letters = [...new Set(rest.replace(/T/g, "").match(/\p{L}/gu) ?? [])];
  if (letters.length > 0) {
    return `${JSON.stringify(format)} has letters the form filler does not format (${letters.join(", ")}), which it would send as written: its tokens are ${tokens}`;
  }
  if (seen.size === 0) return `${JSON.stringify(format)} has none of the tokens ${tokens}`;
  if (twice !== undefined) return `${JSON.stringify(format)} writes ${twice}`;
  return undefined;
}
