/**
 * The small selector language of page recipes: a CSS selector, optionally ending in `@attr`
 * to read an attribute instead of the text (`a@href`, `time@datetime`, `@data-id` on the item
 * itself). `:scope` is the item.
 */
import type { Cheerio } from "cheerio";
import type { AnyNode } from "domhandler";
import { cleanText } from "../record-id.js";

export interface FieldSelector {
  css: string | undefined;
  attr: string | undefined;
}

export function parseSelector(sel: string): FieldSelector {
  const m = /^(.*?)@([\w:.-]+)$/.exec(sel.trim());
  // An `@` inside [..] or quotes belongs to CSS (a[href*="@"]); only a trailing one is ours.
  if (m && balanced(m[1]!)) return { css: m[1]!.trim() || undefined, attr: m[2] };
  return { css: sel.trim(), attr: undefined };
}

function balanced(s: string): boolean {
  let depth = 0;
  let quote: string | undefined;
  for (const ch of s) {
    if (quote) {
      if (ch === quote) quote = undefined;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === "[" || ch === "(") depth++;
    else if (ch === "]" || ch === ")") depth--;
  }
  return depth === 0 && quote === undefined;
}

/** The first element the selector names within `item` (the item itself for none/`:scope`). */
export function pick(item: Cheerio<AnyNode>, sel: FieldSelector): Cheerio<AnyNode> {
  if (!sel.css || sel.css === ":scope") return item;
  return item.find(sel.css).first();
}

/** Text or attribute value, cleaned; undefined when absent or blank. */
export function read(item: Cheerio<AnyNode>, selector: string | undefined): string | undefined {
  if (selector === undefined) return undefined;
  const sel = parseSelector(selector);
  const el = pick(item, sel);
  if (el.length === 0) return undefined;
  const raw = sel.attr ? el.attr(sel.attr) : el.text();
  if (raw === undefined) return undefined;
  const v = cleanText(raw);
  return v === "" ? undefined : v;
}
