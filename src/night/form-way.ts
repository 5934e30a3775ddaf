/**
 * P5: a public search form is read the way a visitor would: first its own page (purpose
 * "form"), whose hidden fields (ASP.NET __VIEWSTATE and the rest) are replayed with the
 * recipe's fields filled in; then the submission, whose answer is the list of records. The
 * form page is asked for conditionally (P12) and a 304 is filled in from our copy (P8).
 * Result pages are turned with the form's own pager (`nextFormPage`).
 */
import type { Fetcher, FetchOutcome } from "../net/types.js";
import { type FormSpec, formSpec } from "../sources/catalog/schema.js";
import type { WayIn } from "../sources/catalog/types.js";
import {
  buildFormRequest,
  NotSubmitted,
  nextPagerRequest,
  pagerRequestAgain,
} from "../sources/extract/form.js";
import { failureOutcome } from "./outcome.js";
import type { ValidatorStore } from "./reader.js";
import { fetchOrCopy } from "./stored-copy.js";
import type { NightOutcome, PageRequest } from "./types.js";

/** The way's form spec; `{today}` is the government's today unless the spec names a zone. */
function specOf(way: WayIn): FormSpec {
  const spec = formSpec.parse(way.form ?? {});
  return spec.zone === undefined && way.timezone !== undefined
    ? { ...spec, zone: way.timezone }
    : spec;
}

/**
 * The search request built from the form page, or why not. `answer`: the site's answer to the
 * form page when it was read (P11: whether it moved permanently, or a move asked redirects now).
 */
export type FormOpening =
  | { kind: "request"; req: PageRequest; answer: FetchOutcome }
  | { kind: "failed"; outcome: NightOutcome; answer?: FetchOutcome };

export interface FormContext {
  fetcher: Fetcher;
  validators: ValidatorStore;
}

/** The form page as the night will read it: tonight's answer or, after a 304, our copy. */
type FormPage =
  | { body: Uint8Array; url: string; contentType?: string; answer: FetchOutcome }
  | { failed: NightOutcome };

/** P12, P8: the form page is a GET like any other (see stored-copy.ts), of `at`. */
async function formPage(ctx: FormContext, at: string, sourceId: string): Promise<FormPage> {
  const page = await fetchOrCopy(ctx.fetcher, ctx.validators, {
    url: at,
    purpose: "form",
    source: sourceId,
  });
  if (page.kind === "read") return page;
  if (page.outcome.kind === "not-modified") {
    return {
      failed: {
        kind: "error",
        reason: `HTTP 304 for the form page ${page.outcome.url}, which was asked for without validators`,
      },
    };
  }
  return { failed: failureOutcome(page.outcome) };
}

/**
 * Fetches the form page and builds the search request from it. Never throws. `at`: where the
 * form page is asked, its catalog URL unless it moved permanently (P11).
 */
export async function openFormWay(
  ctx: FormContext,
  way: WayIn,
  sourceId: string,
  now: number,
  at: string = way.url,
): Promise<FormOpening> {
  const page = await formPage(ctx, at, sourceId);
  if ("failed" in page) return { kind: "failed", outcome: page.failed };
  const { answer } = page;
  try {
    const fr = buildFormRequest(page.body, page.url, specOf(way), now, page.contentType);
    const req: PageRequest = { url: fr.url, method: fr.method, pageNo: 1 };
    if (fr.body !== undefined) req.body = fr.body;
    if (fr.contentType !== undefined) req.contentType = fr.contentType;
    return { kind: "request", req, answer };
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    // P3: a form that would send a password or a credential is never submitted: the checker's
    // own refusal, nothing asked (no row, no request sent), said as an error with its why.
    if (err instanceof NotSubmitted)
      return { kind: "failed", outcome: { kind: "error", reason, url: page.url }, answer };
    return { kind: "failed", outcome: { kind: "extract-error", reason, url: page.url }, answer };
  }
}

/** The postback for the next result page, or undefined on the last one. */
export function nextFormPage(
  way: WayIn,
  previous: PageRequest,
  body: Uint8Array,
  /** The result page's Content-Type (its charset: the page is read, and posted back, in it). */
  contentType?: string,
): PageRequest | undefined {
  const pageNo = previous.pageNo ?? 1;
  // The pager posts back to the page that showed it.
  const fr = nextPagerRequest(body, previous.url, specOf(way), pageNo, contentType);
  if (!fr) return undefined;
  const req: PageRequest = { url: fr.url, method: fr.method, pageNo: pageNo + 1 };
  if (fr.body !== undefined) req.body = fr.body;
  if (fr.contentType !== undefined) req.contentType = fr.contentType;
  return req;
}

/**
 * P5, P7: the result page an earlier night's backfill left off at (`cursor`), asked for tonight
 * from tonight's result page `first` (its answer `body`: the first, or one on the way) by the
 * link a visitor would click, with tonight's page state; where that page shows no link to it,
 * the link furthest towards it (`hop`); undefined when it shows neither.
 */
export function resumeFormPage(
  way: WayIn,
  cursor: PageRequest,
  first: PageRequest,
  body: Uint8Array,
  contentType?: string,
): PageRequest | undefined {
  if (cursor.method !== "POST" || cursor.body === undefined) return undefined;
  const fr = pagerRequestAgain(
    body,
    first.url,
    specOf(way),
    cursor.body,
    first.pageNo ?? 1,
    contentType,
  );
  if (!fr) return undefined;
  const req: PageRequest = { url: fr.url, method: fr.method };
  req.pageNo = fr.hop ? fr.page : (cursor.pageNo ?? fr.page);
  if (fr.hop) req.hop = true;
  if (fr.body !== undefined) req.body = fr.body;
  if (fr.contentType !== undefined) req.contentType = fr.contentType;
  return req;
}
