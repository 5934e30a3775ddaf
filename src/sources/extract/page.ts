/**
 * A page made for people, read with a recipe of CSS selectors (P6: records come from the
 * list itself — title, date, link, kind, id — and no link is ever followed). The recipe's
 * `next` names the older page for backfill (P7).
 */
import type { CheerioAPI } from "cheerio";
import type { AnyNode } from "domhandler";
import { decodeBody } from "../../policy/body-text.js";
import type { PageRecipe } from "../catalog/types.js";
import { answerDates } from "../dates.js";
import type { ExtractedRecord, Extraction, ReadContext } from "../record.js";
import { absoluteUrl, dedupeRecords, makeRecord, titleShown, usableBase } from "../record-id.js";
import { load } from "./cheerio-load.js";
import { firstDescendant, isLink } from "./descendants.js";
import { findDate } from "./find-date.js";
import { documentBase } from "./form-target.js";
import { firstRead, MAX_ROWS } from "./max-rows.js";
import { refusedForNesting } from "./nesting.js";
import { parseSelector, pick, read } from "./select.js";

/** Reads the href of the element a selector names (`a`, or `sel@data-url`). */
function hrefOf(
  item: Parameters<typeof pick>[0],
  selector: string | undefined,
): string | undefined {
  if (selector === undefined) {
    // No link selector: the item itself when it is a link, else its first link.
    if (item.is("a[href]")) return item.attr("href");
    return firstLink(item.toArray());
  }
  const sel = parseSelector(selector);
  const el = pick(item, sel);
  return el.attr(sel.attr ?? "href") ?? firstLink(el.toArray());
}

/**
 * The href of the first `a[href]` inside `roots`, in document order: one walk, not cheerio's
 * `.find()`, quadratic over many sibling links (40,000 in one item: seconds; P13, P14).
 */
function firstLink(roots: AnyNode[]): string | undefined {
  return firstDescendant(roots, isLink)?.attribs.href;
}

export function extractPage(
  body: Uint8Array,
  url: string,
  recipe: PageRecipe,
  ctx: ReadContext = {},
): Extraction {
  let $: CheerioAPI;
  try {
    $ = load(decodeBody(body, ctx.contentType));
  } catch (err) {
    return refusedForNesting(err); // P13, P14: nested too deeply to read in good time
  }
  // <base href> changes what relative links mean (HTML §4.2.3). P13, P14: one longer than the
  // longest address the checker asks for (MAX_URL_LENGTH) is not used whole, only what of it a
  // link keeps (record-id.ts usableBase: without its query, else its site; the page's address on
  // its own site): every link resolved against it would be a new string as long (a base of
  // 1,000,000 characters under 300 links: 11 s of CPU, 390 MB, docs/benchmarks.md).
  const base = usableBase(documentBase($, url), url);
  // P13, P14: at most MAX_ROWS items read, as an XLSX sheet's rows (320,000 items of a 19 MB
  // page: 24 s of CPU and 1.45 GB before this bound; docs/benchmarks.md).
  const matched = $(recipe.items).toArray();
  const truncated = matched.length > MAX_ROWS;
  const items = (truncated ? matched.slice(0, MAX_ROWS) : matched).map((node) => {
    const item = $(node);
    return { item, dateText: read(item, recipe.date) };
  });
  // All the dates of the page decide together whether they are written day-first.
  const dates = answerDates(
    items.map((i) => i.dateText),
    ctx.zone,
  );
  const out: ExtractedRecord[] = [];
  // Each record's own date text, for the id of one whose link other rows share (record-id.ts).
  const dateTexts = new Map<ExtractedRecord, string>();
  for (const { item, dateText } of items) {
    const link = absoluteUrl(hrefOf(item, recipe.link), base);
    const linkText = recipe.link
      ? read(item, parseSelector(recipe.link).css ?? ":scope")
      : undefined;
    const title = titleShown(read(item, recipe.title ?? ":scope")) ?? linkText;
    if (!title) continue;
    const date = dateText ? findDate(dateText, dates) : undefined;
    // P6, P11: without a link, the record is known by its date as its own row reads it, not
    // as the page's other rows decide (record-id.ts).
    const alone = !link && dateText ? answerDates([dateText], ctx.zone) : dates;
    const idDate = dateText && alone.order !== dates.order ? findDate(dateText, alone) : date;
    const rec = makeRecord({
      title,
      platformId: read(item, recipe.id),
      url: link,
      date,
      idDate,
      kind: read(item, recipe.kind),
    });
    if (dateText) dateTexts.set(rec, dateText);
    out.push(rec);
  }
  const ownDate = (r: ExtractedRecord) => {
    const text = dateTexts.get(r);
    return text === undefined ? undefined : findDate(text, answerDates([text], ctx.zone));
  };
  const extraction: Extraction = {
    records: dedupeRecords(out, { splitSharedLinks: true, ownDate }),
  };
  if (recipe.next) {
    const next = absoluteUrl(hrefOf($.root(), recipe.next), base);
    // A "next" that points back at this page would loop a backfill forever (P7 must end).
    if (next && next !== absoluteUrl(url, url)) extraction.next = next;
  }
  if (extraction.records.length === 0) extraction.note = "no items matched the recipe";
  else if (truncated) extraction.note = firstRead("items the recipe matched");
  return extraction;
}
