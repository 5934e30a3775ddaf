/**
 * A page recipe's field selector split into its CSS and its `@attr` (select.ts reads it). Kept
 * apart from the reader so the catalog's check (selector-check.ts) takes no HTML code with it.
 */

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
