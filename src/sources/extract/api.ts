/**
 * JSON answers from a public API (P4: preferred over a page), mapped by dotted paths:
 * `{ items: "value", title: "eventName", date: "startDateTime", id: "id", next: "@odata.nextLink" }`.
 * A body that is not JSON, or has no array at `items`, is the site's answer — a note, not a
 * crash.
 */
import type { ApiSpec } from "../catalog/schema.js";
import type { Extraction, ReadContext } from "../record.js";
import { absoluteUrl } from "../record-id.js";
import { getPath, recordsOfItems } from "./fields.js";
import { readJson } from "./json.js";

/** Records from an already-parsed JSON value (also used by download.ts for JSON files). */
export function recordsFromJson(
  value: unknown,
  spec: ApiSpec,
  url: string,
  ctx: ReadContext = {},
): Extraction {
  const list = getPath(value, spec.items);
  if (!Array.isArray(list)) {
    return {
      records: [],
      note: `no array at "${spec.items || "(top level)"}" in the JSON answer`,
      notThisWay: true,
    };
  }
  const x: Extraction = { records: recordsOfItems(list, spec, url, ctx.zone) };
  const nextRaw = spec.next ? getPath(value, spec.next) : undefined;
  const next = typeof nextRaw === "string" ? absoluteUrl(nextRaw, url) : undefined;
  if (next && next !== url) x.next = next;
  if (x.records.length === 0) x.note = list.length === 0 ? "empty list" : "no item had a title";
  return x;
}

export function extractApi(
  body: Uint8Array,
  url: string,
  spec: ApiSpec,
  ctx: ReadContext = {},
): Extraction {
  const parsed = readJson(body, ctx.contentType);
  if (!parsed.ok) return { records: [], note: parsed.why, notThisWay: true };
  return recordsFromJson(parsed.value, spec, url, ctx);
}
