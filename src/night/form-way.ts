/**
 * P5: a public search form is read the way a visitor would: first its own page (purpose
 * "form"), whose hidden fields (ASP.NET __VIEWSTATE and the rest) are replayed with the
 * recipe's fields filled in; then the submission, whose answer is the list of records.
 * Result pages are turned with the form's own pager (`nextFormPage`).
 */
import type { Fetcher } from "../net/types.js";
import { type FormSpec, formSpec } from "../sources/catalog/schema.js";
import type { WayIn } from "../sources/catalog/types.js";
import { buildFormRequest, nextPagerRequest } from "../sources/extract/form.js";
import { failureOutcome } from "./outcome.js";
import type { NightOutcome, PageRequest } from "./types.js";

/** True for a form way that the night fills in itself (a platform preset does its own). */
export function isGenericForm(way: WayIn): boolean {
  return way.access === "form" && way.platform === undefined;
}

function specOf(way: WayIn): FormSpec {
  return formSpec.parse(way.form ?? {});
}

export type FormOpening =
  | { kind: "request"; req: PageRequest }
  | { kind: "failed"; outcome: NightOutcome };

/** Fetches the form page and builds the search request from it. Never throws. */
export async function openFormWay(
  fetcher: Fetcher,
  way: WayIn,
  sourceId: string,
  now: number,
): Promise<FormOpening> {
  const page = await fetcher.fetch({ url: way.url, purpose: "form", source: sourceId });
  if (page.kind !== "ok") {
    // A 304 cannot happen (no validators were sent); anything else is the night's outcome.
    return page.kind === "not-modified"
      ? { kind: "failed", outcome: { kind: "error", reason: "unexpected 304 for a form page" } }
      : { kind: "failed", outcome: failureOutcome(page) };
  }
  try {
    const fr = buildFormRequest(page.body, page.url, specOf(way), now);
    const req: PageRequest = { url: fr.url, method: fr.method, pageNo: 1 };
    if (fr.body !== undefined) req.body = fr.body;
    if (fr.contentType !== undefined) req.contentType = fr.contentType;
    return { kind: "request", req };
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return { kind: "failed", outcome: { kind: "extract-error", reason, url: page.url } };
  }
}

/** The postback for the next result page, or undefined on the last one. */
export function nextFormPage(
  way: WayIn,
  previous: PageRequest,
  body: Uint8Array,
): PageRequest | undefined {
  const pageNo = previous.pageNo ?? 1;
  // The pager posts back to the page that showed it.
  const fr = nextPagerRequest(body, previous.url, specOf(way), pageNo);
  if (!fr) return undefined;
  const req: PageRequest = { url: fr.url, method: fr.method, pageNo: pageNo + 1 };
  if (fr.body !== undefined) req.body = fr.body;
  if (fr.contentType !== undefined) req.contentType = fr.contentType;
  return req;
}
