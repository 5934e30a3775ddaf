/**
 * The small selector language of page recipes: a CSS selector, optionally ending in `@attr`
 * to read an attribute instead of the text (`a@href`, `time@datetime`, `@data-id` on the item
 * itself). `:scope` is the item.
 */
import type { Cheerio } from "cheerio";
import type { AnyNode } from "domhandler";
import { cleanText } from "../record-id.js";
import { type FieldSelector, parseSelector } from "./field-selector.js";

export { type FieldSelector, parseSelector };

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
