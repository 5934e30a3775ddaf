/**
 * The catalog's YAML format as a zod 4 schema: the one definition behind validation
 * (load.ts), the JSON Schema in docs/catalog.schema.json (json-schema.ts) and docs/catalog.md.
 * Objects are strict: a misspelt key is an error, never silently ignored.
 */

import type { z as Zod } from "zod";
import { DEFAULT_BACKFILL_PAGES, MAX_URL_LENGTH } from "../../policy/constants.js";
import { ianaZoneProblem } from "../../policy/zone.js";
import { z } from "../../zod.js";
import { countyProblem } from "./counties.js";
import { urlRewriteProblem } from "./url-written.js";

/**
 * The longest id a catalog may give. A source's id is part of store keys beside a URL of up to
 * MAX_URL_LENGTH (`page_reads`: source and URL), and PostgreSQL refuses a B-tree key of more
 * than 2,704 bytes: 200 + 2,048 stays under it. The bundled catalog's longest id has 70.
 */
export const MAX_ID_LENGTH = 200;

const id = z
  .string()
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, "must be kebab-case: lower-case letters, digits, hyphens")
  .max(MAX_ID_LENGTH, `must be at most ${MAX_ID_LENGTH} characters long`)
  .describe("Stable kebab-case identifier");

/** The longest URL a catalog may give (policy/constants.ts MAX_URL_LENGTH says why). */
export { MAX_URL_LENGTH };

/** Why an address is too long for the catalog, or undefined. */
export function urlLengthProblem(s: string, encoded = s): string | undefined {
  const n = Math.max(s.length, encoded.length);
  if (n <= MAX_URL_LENGTH) return undefined;
  const said = encoded.length > s.length ? " once percent-encoded" : "";
  return `URL is ${n.toLocaleString("en-US")} characters long${said}, more than the ${MAX_URL_LENGTH.toLocaleString("en-US")} a catalog URL may have`;
}

/**
 * Why an http(s) address is written in a form the URL parser silently rewrites, or undefined
 * (P3: the address fetched, stored and shown must be the one written). A backslash is read as
 * `/` (`http://127.0.0.1\@evil.com/feed` is host 127.0.0.1, path /@evil.com/feed), and the
 * slashes after the scheme are supplied when missing (`http:/host/x`, `http:host/x`), so the
 * text must start with `http://` or `https://` itself and hold no backslash. `parsed` is the
 * address as the parser reads it, when it reads one.
 */
export function urlSpellingProblem(s: string, parsed?: string): string | undefined {
  const as = parsed !== undefined ? ` (the URL parser reads it as ${parsed})` : "";
  if (s.includes("\\"))
    return `URL contains a backslash, which the URL parser takes for / so the address used is not the one written${as}: write / (or %5C for a backslash itself)`;
  if (!/^https?:\/\//i.test(s))
    return `URL must start with http:// or https:// exactly as written${as}`;
  return undefined;
}

/** Why an http(s) URL that does not parse is refused, when it is its port (`:99999`). */
function portProblem(s: string): string | undefined {
  const port = /^https?:\/\/(?:[^/?#@]*@)?(?:\[[^\]/?#]*\]|[^/?#:[\]]*):([^/?#]*)/i.exec(s)?.[1];
  if (port === undefined || port === "") return undefined;
  if (!/^[0-9]+$/.test(port)) return `URL's port "${port}" is not a number`;
  return Number(port) > 65535
    ? `URL's port ${port} is more than 65535, the largest there is`
    : undefined;
}

/**
 * http(s) only (P3: no other scheme; user-info and credentials are refused in credentials.ts),
 * written as it is fetched (urlSpellingProblem, then urlRewriteProblem: no space, no `/../`, no
 * port of 0 or written otherwise than the parser writes it), at most MAX_URL_LENGTH characters.
 * Its host's form is checked by the loader (load.ts).
 */
export const httpUrl = z
  .string()
  .superRefine((s, ctx) => {
    // Said before parsing: a URL of megabytes is not worth parsing.
    const long = urlLengthProblem(s);
    if (long !== undefined) {
      ctx.addIssue({ code: "custom", message: long });
      return;
    }
    const u = URL.canParse(s) ? new URL(s) : undefined;
    if (u === undefined || (u.protocol !== "http:" && u.protocol !== "https:")) {
      const port = u === undefined ? portProblem(s) : undefined;
      ctx.addIssue({
        code: "custom",
        message: port ?? "must be an absolute http:// or https:// URL",
      });
      return;
    }
    const spelling = urlSpellingProblem(s, u.href) ?? urlRewriteProblem(s, u);
    if (spelling !== undefined) {
      ctx.addIssue({ code: "custom", message: spelling });
      return;
    }
    const encoded = urlLengthProblem(s, u.href);
    if (encoded !== undefined) ctx.addIssue({ code: "custom", message: encoded });
  })
  .describe("Absolute http(s) URL");

const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
] as const;

/**
 * Why a date written YYYY-MM-DD names no day of the calendar (`2026-13-45`, `2026-02-30`,
 * `2026-31-01` written day first), or undefined. Such a date would be compared as text with
 * the records' dates (P7: backfill stops at records older than `until`) and silently stop, or
 * never stop, the backfill; it is refused where it is written instead.
 */
function calendarDateProblem(s: string): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (m === null) return undefined; // said by the form's own rule
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const form = "must be a date written YYYY-MM-DD";
  if (mo < 1 || mo > 12) {
    // Written day first (2026-31-01), perhaps: said with the date it would then be.
    const swapped = `${m[1]}-${m[3]}-${m[2]}`;
    const meant =
      d >= 1 && d <= 12 && calendarDateProblem(swapped) === undefined
        ? `; ${swapped}, if the day came first`
        : "";
    return `${form}: month ${m[2]} is impossible (a month is 01 to 12${meant})`;
  }
  // Date.UTC reads years 0–99 as 1900–1999: the month's length is the same 400 years on.
  const days = new Date(Date.UTC(y + 400, mo, 0)).getUTCDate();
  if (d < 1 || d > days)
    return `${form}: day ${m[3]} is impossible in ${MONTHS[mo - 1]} ${m[1]} (it has ${days} days: 01 to ${days})`;
  if (y === 0) return `${form}: year 0000 is impossible (the calendar starts at 0001)`;
  return undefined;
}

const isoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date written YYYY-MM-DD")
  .superRefine((s, ctx) => {
    const problem = calendarDateProblem(s);
    if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
  })
  .describe("Date, YYYY-MM-DD");

/**
 * An IANA time zone the runtime knows, written as IANA writes it (`America/Chicago`,
 * `America/Indiana/Indianapolis`, `UTC`; not `America/New_york`, which Intl would read).
 * Abbreviations such as `EST` are refused: they are fixed offsets without daylight time, which
 * no Ohio page means.
 */
export const timezone = z
  .string()
  .superRefine((s, ctx) => {
    const problem = ianaZoneProblem(s);
    if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
  })
  .describe("IANA time zone, e.g. America/New_York");

export const governmentKind = z.enum([
  "county",
  "city",
  "village",
  "township",
  "school-district",
  "special-district",
  "state-agency",
  "other",
]);

export const recordKind = z.enum([
  "bids",
  "agendas",
  "minutes",
  "permits",
  "notices",
  "meetings",
  "other",
]);

export const access = z
  .enum(["api", "download", "feed", "page", "form"])
  .describe("How the records are reached; P4 prefers api, download, feed over page and form");

const selector = z.string().min(1);

/** CSS selectors over the list page (P6: records come from the list itself). */
export const pageRecipe = z
  .strictObject({
    items: selector.describe("Selects one element per record"),
    title: selector
      .optional()
      .describe("Within an item: the title text (default: the item's text)"),
    date: selector.optional().describe("Within an item: the date text, or `@attr` / `sel@attr`"),
    link: selector.optional().describe("Within an item: the element whose href is the record link"),
    id: selector.optional().describe("Within an item: the platform id text, or `sel@attr`"),
    kind: selector.optional().describe("Within an item: the record kind text"),
    next: selector.optional().describe("On the page: the link to the older page (P7)"),
  })
  .describe("Page recipe");

/** Dotted paths into a JSON answer (`value`, `d.results`, `@odata.nextLink`). */
const fieldPath = z.string().min(1);
export const apiSpec = z
  .strictObject({
    items: z.string().describe("Path to the array of records; empty for a top-level array"),
    title: fieldPath.describe("Path within an item to its title"),
    date: fieldPath.optional(),
    id: fieldPath.optional(),
    link: fieldPath.optional().describe("Path to the record's URL; `{field}` templates allowed"),
    kind: fieldPath.optional(),
    next: fieldPath.optional().describe("Path in the answer to the next page's URL (P7)"),
  })
  .describe("JSON field mapping");

export const downloadSpec = z
  .strictObject({
    format: z
      .enum(["csv", "json", "xlsx"])
      .optional()
      .describe("Default: an XLSX workbook is told by its bytes, else .json by the URL, else csv"),
    delimiter: z.string().length(1).optional().describe("csv: the field separator (default ,)"),
    items: z.string().optional().describe("json: path to the array of rows"),
    sheet: z
      .union([z.string().min(1), z.int().min(1)])
      .optional()
      .describe("xlsx: the sheet's name, or its 1-based position (default the first sheet)"),
    headerRow: z
      .int()
      .min(1)
      .max(1000)
      .optional()
      .describe("xlsx: the 1-based row holding the column names (default 1)"),
    title: fieldPath.describe("Column name (csv, xlsx) or path (json) of the title"),
    date: fieldPath
      .optional()
      .describe("xlsx: date cells and serial numbers become dates (America/New_York)"),
    id: fieldPath.optional(),
    link: fieldPath.optional(),
    kind: fieldPath.optional(),
  })
  .describe("Column mapping for a CSV, XLSX or JSON file");

const fieldValue = z.union([z.string(), z.number(), z.boolean()]).transform(String);

export const formSpec = z
  .strictObject({
    selector: selector.optional().describe("CSS selector of the <form> (default: the first form)"),
    method: z.enum(["GET", "POST"]).optional().describe("Default: the form's method attribute"),
    fields: z
      .record(z.string().min(1), fieldValue)
      .default({})
      .describe("Fields to fill; `{today}`, `{today-30d}`, `{today+7d}` are dates"),
    submit: z
      .string()
      .optional()
      .describe("Name of the submit button to press (ASP.NET needs it in the body)"),
    eventTarget: z.string().optional().describe("ASP.NET: postback target instead of a button"),
    dateFormat: z
      .string()
      .optional()
      .describe("Date template format, tokens YYYY MM DD M D (default MM/DD/YYYY)"),
    zone: timezone
      .optional()
      .describe("Zone for {today} (default: the government's timezone, else America/New_York)"),
    pager: z
      .string()
      .optional()
      .describe("ASP.NET: the grid's postback target whose `Page$N` turns the pages (P5)"),
  })
  .describe("Public search form (P5)");

const platform = id.describe("A platform preset name (src/sources/platforms)");

const wayShape = {
  access: access
    .optional()
    .describe(`${access.description}; inferred when absent (docs/catalog.md)`),
  url: httpUrl,
  platform: platform.optional(),
  extract: pageRecipe.optional(),
  api: apiSpec.optional(),
  download: downloadSpec.optional(),
  form: formSpec.optional(),
};

type WayLike = {
  access?: string | undefined;
  platform?: string | undefined;
  extract?: unknown;
  api?: unknown;
  download?: unknown;
  form?: unknown;
};

type Access = Zod.output<typeof access>;

/**
 * The access of a way in that does not say: a `form` spec is a form, an `api` mapping an
 * api, a `download` mapping a download, an `extract` recipe a page; a platform is read the
 * platform's way; anything else is a feed (the night says so when the answer is not one).
 */
export function inferAccess(
  w: WayLike,
  platformAccess: (name: string) => Access | undefined = () => undefined,
): Access {
  if (w.access !== undefined) return w.access as Access;
  if (w.form !== undefined) return "form";
  if (w.api !== undefined) return "api";
  if (w.download !== undefined) return "download";
  if (w.extract !== undefined) return "page";
  if (w.platform !== undefined) return platformAccess(w.platform) ?? "page";
  return "feed";
}

/** A way in must say how its records are read: a page needs a recipe or a platform (etc.). */
function checkWay(w: WayLike, ctx: Zod.RefinementCtx): void {
  if (w.platform) return;
  const way = inferAccess(w);
  const need: Record<string, [keyof WayLike, string]> = {
    page: ["extract", "page access needs an `extract` recipe or a `platform`"],
    form: ["extract", "form access needs an `extract` recipe (for the results) or a `platform`"],
    api: ["api", "api access needs an `api` field mapping or a `platform`"],
    download: ["download", "download access needs a `download` column mapping or a `platform`"],
  };
  const rule = need[way];
  if (rule && w[rule[0]] === undefined)
    ctx.addIssue({ code: "custom", message: rule[1], path: ["access"] });
  if (way === "form" && w.form === undefined)
    ctx.addIssue({ code: "custom", message: "form access needs a `form` spec", path: ["access"] });
}

export const wayIn = z.strictObject(wayShape).superRefine(checkWay).describe("A way in");

export const government = z.strictObject({
  id,
  name: z.string().min(1),
  kind: governmentKind,
  county: z
    .string()
    .min(1)
    .superRefine((s, ctx) => {
      const problem = countyProblem(s);
      if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
    })
    .optional()
    .describe("Primary county, without the word County"),
  website: httpUrl.optional(),
  timezone: timezone
    .optional()
    .describe(
      "IANA zone the government's pages write times in; default America/New_York. Times a page writes without a zone are read in it",
    ),
  evidence: z.string().optional().describe("Where this entry was seen (public material)"),
  notes: z.string().optional(),
});

export const source = z
  .strictObject({
    id,
    government: id.describe("The id of a government in the catalog"),
    records: recordKind,
    name: z.string().min(1).optional().describe("Human title, e.g. City Council agendas"),
    ...wayShape,
    alternates: z.array(wayIn).default([]).describe("Other ways in, tried best first (P4)"),
    backfill: z
      .strictObject({
        pagesPerNight: z.int().min(0).max(50).default(DEFAULT_BACKFILL_PAGES),
        until: isoDate.optional().describe("Stop backfilling at records older than this"),
      })
      .default({ pagesPerNight: DEFAULT_BACKFILL_PAGES })
      .describe("P7: older pages read per night until the end or `until`"),
    confirmed: z.boolean().default(false).describe("A person has opened the page and seen records"),
    evidence: z.string().optional(),
    notes: z.string().optional(),
  })
  .superRefine(checkWay);

/**
 * A record page seen in public material that the checker cannot read yet (no preset or
 * recipe fits, the address has no scheme or is a template, or it is one meeting's page, not
 * a list: P6). Listed so nothing seen is lost; never fetched. A person turns it into a source.
 */
export const lead = z
  .strictObject({
    government: id.describe("The id of a government in the catalog"),
    records: recordKind,
    url: z
      .string()
      .min(1)
      // Without a scheme, or a template, it is kept as seen; a scheme, when written, is
      // http(s): the directory shows the address (a `host:8080/…` port is not a scheme).
      .superRefine((s, ctx) => {
        const scheme = /^\s*([a-z][a-z0-9+.-]*):(?!\d)/i.exec(s)?.[1]?.toLowerCase();
        if (scheme !== undefined && scheme !== "http" && scheme !== "https") {
          ctx.addIssue({
            code: "custom",
            message: "a scheme, when written, must be http:// or https://",
          });
          return;
        }
        // Shown, and linked when it is an http(s) URL, as written: never as the parser rewrites it.
        const spelling =
          scheme !== undefined || s.includes("\\")
            ? urlSpellingProblem(s, URL.canParse(s) ? new URL(s).href : undefined)
            : undefined;
        if (spelling !== undefined) ctx.addIssue({ code: "custom", message: spelling });
      })
      // Never fetched, but shown and stored as a source's address is.
      .superRefine((s, ctx) => {
        const long = urlLengthProblem(s);
        if (long !== undefined) ctx.addIssue({ code: "custom", message: long });
      })
      .describe("As seen (may lack a scheme, or be a template); a lead is never fetched"),
    platform: z
      .string()
      .min(1)
      .optional()
      .describe("The platform as the material names it (not necessarily a preset)"),
    why: z.string().min(1).describe("Why the checker cannot read it yet"),
    evidence: z.string().optional(),
    notes: z.string().optional(),
  })
  .describe("A record page not read yet");

export const catalogFile = z
  .strictObject({
    governments: z.array(government).default([]),
    sources: z.array(source).default([]),
    leads: z
      .array(lead)
      .default([])
      .describe("Record pages seen but not read yet: never fetched, a person makes them sources"),
  })
  .describe("A New on Record catalog file");

export type Lead = Zod.output<typeof lead>;
export type ApiSpec = Zod.output<typeof apiSpec>;
export type DownloadSpec = Zod.output<typeof downloadSpec>;
export type FormSpec = Zod.output<typeof formSpec>;
export type CatalogFileInput = Zod.input<typeof catalogFile>;
