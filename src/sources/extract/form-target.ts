/**
 * Where a form is sent, as a browser sends it (HTML §4.10.21.3, the form submission algorithm):
 * the submitter's `formaction` if it has one, else the form's `action`, parsed as the URL
 * parser parses it (ASCII tab, line feed and carriage return removed wherever they are, C0
 * controls and spaces trimmed at both ends) against the document's base URL (its first
 * `<base href>`, HTML §4.2.3, else the page's address); no action, or an empty one, is the
 * page's own address. Undefined when the result is no http(s) address: a browser sends no
 * search to `javascript:`, `mailto:` or `data:`, so neither does the checker (P5).
 */
import type { CheerioAPI } from "cheerio";
import { asTheParserReads } from "../record-id.js";

/** An http(s) address without its fragment, or undefined. */
function webAddress(s: string, base: string): string | undefined {
  let u: URL;
  try {
    u = new URL(s, base);
  } catch {
    return undefined;
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") return undefined;
  u.hash = "";
  return u.href;
}

/** The document's base URL: its first `<base href>` against the page's address, else the page's. */
export function documentBase($: CheerioAPI, pageUrl: string): string {
  const href = $("base[href]").first().attr("href");
  return (href !== undefined ? webAddress(asTheParserReads(href), pageUrl) : undefined) ?? pageUrl;
}

export function formTarget(
  action: string | undefined,
  pageUrl: string,
  base: string,
  /** The submitter's `formaction`, which wins when present. */
  formaction?: string,
): string | undefined {
  const chosen = asTheParserReads(formaction ?? action ?? "");
  if (chosen === "") return webAddress(pageUrl, pageUrl);
  return webAddress(chosen, base);
}
