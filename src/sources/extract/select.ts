/**
 * The small selector language of page recipes: a CSS selector, optionally ending in `@attr`
 * to read an attribute instead of the text (`a@href`, `time@datetime`, `@data-id` on the item
 * itself). `:scope` is the item.
 */
import type { Cheerio } from "cheerio";
import type { AnyNode, Element, Text } from "domhandler";
import { cleanText } from "../record-id.js";
import { findFirst } from "./descendants.js";
import { type FieldSelector, parseSelector } from "./field-selector.js";

export { type FieldSelector, parseSelector };

/** The first element the selector names within `item` (the item itself for none/`:scope`). */
export function pick(item: Cheerio<AnyNode>, sel: FieldSelector): Cheerio<AnyNode> {
  if (!sel.css || sel.css === ":scope") return item;
  return findFirst(item, sel.css);
}

/**
 * Elements a browser lays out apart from the text around them (HTML §15, the rendering's
 * `display: block`, `list-item` and the table's rows and cells): innerText sets their text on
 * a line or in a cell of its own, so `<p>Bid 2026-14</p><p>Road Salt</p>` is two words apart.
 */
const APART = new Set([
  "address",
  "article",
  "aside",
  "blockquote",
  "body",
  "caption",
  "center",
  "dd",
  "details",
  "dialog",
  "dir",
  "div",
  "dl",
  "dt",
  "fieldset",
  "figcaption",
  "figure",
  "footer",
  "form",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "header",
  "hgroup",
  "hr",
  "html",
  "legend",
  "li",
  "listing",
  "main",
  "menu",
  "nav",
  "ol",
  "optgroup",
  "option",
  "p",
  "plaintext",
  "pre",
  "search",
  "section",
  "summary",
  "table",
  "tbody",
  "td",
  "tfoot",
  "th",
  "thead",
  "tr",
  "ul",
  "xmp",
]);

/**
 * The text of a selection as a browser's innerText separates it: what cheerio's `.text()`
 * joins (every text node, in order), with a space for each `<br>` and at each edge of an
 * element laid out apart (APART), so `Regular Meeting<br>11/04/2026` is not
 * `Regular Meeting11/04/2026`. Inline elements add nothing (`<b>Re</b>gular` is one word);
 * whitespace is collapsed by the caller (cleanText). Walked without recursion: a page may nest
 * deeper than the stack.
 */
export function innerText(el: Cheerio<AnyNode>): string {
  let out = "";
  const todo: (AnyNode | " ")[] = el.toArray().reverse();
  for (let n = todo.pop(); n !== undefined; n = todo.pop()) {
    if (n === " ") {
      out += " ";
      continue;
    }
    const type: string = n.type;
    if (type === "text") {
      out += (n as Text).data;
      continue;
    }
    if (type === "comment" || !("children" in n)) continue;
    const name = type === "tag" ? (n as Element).name : undefined;
    if (name === "br") {
      out += " ";
      continue;
    }
    const apart = name !== undefined && APART.has(name);
    if (apart) {
      out += " ";
      todo.push(" ");
    }
    for (let i = n.children.length - 1; i >= 0; i--) todo.push(n.children[i]!);
  }
  return out;
}

/** Text or attribute value, cleaned; undefined when absent or blank. */
export function read(item: Cheerio<AnyNode>, selector: string | undefined): string | undefined {
  if (selector === undefined) return undefined;
  const sel = parseSelector(selector);
  const el = pick(item, sel);
  if (el.length === 0) return undefined;
  const raw = sel.attr ? el.attr(sel.attr) : innerText(el);
  if (raw === undefined) return undefined;
  const v = cleanText(raw);
  return v === "" ? undefined : v;
}

/**
 * An element's text as a browser shows it, cleaned (innerText, then cleanText): words apart at
 * a `<br>` or a block's edge. What the platform presets read their cells with.
 */
export function textOf(el: Cheerio<AnyNode>): string {
  return cleanText(innerText(el));
}
