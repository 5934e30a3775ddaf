/**
 * Field mapping shared by JSON answers (api) and downloaded files (download): dotted paths
 * into each item (`value`, `d.results`, `location.name`; a key that itself contains dots,
 * such as `@odata.nextLink`, is matched whole first), and `{field}` templates for links
 * built from ids (`/events/{id}`).
 */

import { answerDates, type DateOptions } from "../dates.js";
import type { ExtractedRecord } from "../record.js";
import { absoluteUrl, cleanText, dedupeRecords, makeRecord, withoutMarkup } from "../record-id.js";
import { findDate } from "./find-date.js";

export interface FieldMap {
  title: string;
  date?: string | undefined;
  id?: string | undefined;
  link?: string | undefined;
  kind?: string | undefined;
}

/** Value at a dotted path; a key containing dots (`@odata.nextLink`) is tried whole first. */
export function getPath(obj: unknown, path: string): unknown {
  if (path === "" || path === ".") return obj;
  if (obj === null || typeof obj !== "object") return undefined;
  const rec = obj as Record<string, unknown>;
  if (path in rec) return rec[path];
  const dot = path.indexOf(".");
  for (let i = dot; i !== -1; i = path.indexOf(".", i + 1)) {
    const head = path.slice(0, i);
    if (head in rec) {
      const v = getPath(rec[head], path.slice(i + 1));
      if (v !== undefined) return v;
    }
  }
  return undefined;
}

/**
 * P13, P14: how much of a title's or a kind's text is read. A title is a line or a few; a CSV
 * field or a JSON string can be 19 MB (the body up to 20 MiB), and cleaning it (its entities,
 * its whitespace, its markup: record-id.ts) cost 9 s of CPU, where what is read of it is shown
 * in a line. The text past this many characters is not read.
 */
export const SHOWN_FIELD_MAX = 10_000;

function scalar(v: unknown, max = Number.POSITIVE_INFINITY): string | undefined {
  if (typeof v === "string") return cleanText(v.length > max ? v.slice(0, max) : v) || undefined;
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  if (typeof v === "boolean") return String(v);
  return undefined;
}

/**
 * `{field}` templates are filled from the item; a plain path reads the item. `max`: how much of
 * each value is read (SHOWN_FIELD_MAX for what is only shown: a title, a kind).
 */
function fieldText(
  item: unknown,
  spec: string | undefined,
  max = Number.POSITIVE_INFINITY,
): string | undefined {
  if (spec === undefined) return undefined;
  if (!spec.includes("{")) return scalar(getPath(item, spec), max);
  let missing = false;
  const out = spec.replace(/\{([^{}]+)\}/g, (_, p: string) => {
    const v = scalar(getPath(item, p.trim()), max);
    if (v === undefined) missing = true;
    return v === undefined ? "" : encodeURIComponent(v).replace(/%2F/gi, "/");
  });
  return missing ? undefined : out;
}

/**
 * Title with markup removed (some calendars put `<b>` in titles); a `<` or `>` of the title
 * itself (`Purchases < $25,000`) stays (record-id.ts `withoutMarkup`).
 */
function plainTitle(s: string | undefined): string | undefined {
  return s === undefined ? undefined : withoutMarkup(s) || undefined;
}

function rawDateOf(item: unknown, map: FieldMap): unknown {
  return map.date ? getPath(item, map.date) : undefined;
}

/**
 * How to read the dates of one answer's items: the government's zone, and day-first or
 * month-first as the date values of all the items decide together (dates.ts).
 */
export function datesOfItems(
  items: readonly unknown[],
  map: FieldMap,
  zone: string | undefined,
): DateOptions {
  return answerDates(
    items.map((i) => {
      const v = rawDateOf(i, map);
      return typeof v === "string" ? v : undefined;
    }),
    zone,
  );
}

/**
 * The records of one answer's items (mapRecord), the first of each id kept; items that share a
 * link but show different records each a record, its id made of its own date (record-id.ts).
 */
export function recordsOfItems(
  items: readonly unknown[],
  map: FieldMap,
  url: string,
  zone: string | undefined,
): ExtractedRecord[] {
  const dates = datesOfItems(items, map, zone);
  const itemOf = new Map<ExtractedRecord, unknown>();
  for (const item of items) {
    const rec = mapRecord(item, map, url, dates);
    if (rec) itemOf.set(rec, item);
  }
  return dedupeRecords([...itemOf.keys()], {
    splitSharedLinks: true,
    ownDate: (r) => ownDateOf(itemOf.get(r), map, zone),
  });
}

/** A date value as an answer gives it: text, or a number of seconds or milliseconds. */
function readDate(raw: unknown, dates: DateOptions): string | undefined {
  if (typeof raw === "number") return findDate(`/Date(${raw > 1e11 ? raw : raw * 1000})/`, dates);
  return typeof raw === "string" ? findDate(raw, dates) : undefined;
}

/**
 * An item's date as its own value reads alone (day-first or month-first as that value decides,
 * month-first when it does not), never as the answer's other items decide: what an id is made of
 * (record-id.ts).
 */
function ownDateOf(item: unknown, map: FieldMap, zone: string | undefined): string | undefined {
  const raw = rawDateOf(item, map);
  return readDate(
    raw,
    typeof raw === "string" ? answerDates([raw], zone) : { ...(zone ? { zone } : {}) },
  );
}

/**
 * One record from one item, or undefined when it has no title (it cannot be shown). `dates`:
 * the answer's zone and order (`datesOfItems`).
 */
export function mapRecord(
  item: unknown,
  map: FieldMap,
  baseUrl: string,
  dates: DateOptions = {},
): ExtractedRecord | undefined {
  const title = plainTitle(fieldText(item, map.title, SHOWN_FIELD_MAX));
  if (!title) return undefined;
  const rawDate = rawDateOf(item, map);
  const date = readDate(rawDate, dates);
  const link = absoluteUrl(fieldText(item, map.link), baseUrl);
  const platformId = fieldText(item, map.id);
  // P6, P11: without an id or a link, the record is known by its date as its own item reads it,
  // not as the answer's other items decide (record-id.ts; page.ts does the same for a page).
  const alone =
    !link && !platformId && typeof rawDate === "string"
      ? answerDates([rawDate], dates.zone)
      : undefined;
  const idDate =
    alone !== undefined && alone.order !== (dates.order ?? "mdy")
      ? findDate(rawDate as string, alone)
      : date;
  return makeRecord({
    title,
    platformId,
    url: link,
    date,
    idDate,
    kind: fieldText(item, map.kind, SHOWN_FIELD_MAX),
  });
}
