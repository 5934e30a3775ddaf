/**
 * Whether a CSS selector of a catalog (a page recipe's fields, a form's `selector`) can be read
 * by the reader, said when the catalog is loaded rather than by every night's `extract-error`.
 *
 * The reader runs selectors through cheerio, whose `find` is cheerio-select: css-what parses
 * the text, and css-select compiles each run of it between cheerio's positional filters
 * (`:first`, `:eq(n)`, …). The same two packages are used here, found where cheerio-select finds
 * them, so a selector is refused in the reader's own words ("Expected name, found [[",
 * "Unknown pseudo-class :foo"). Only their parser and compiler are loaded, never an HTML
 * parser, css-select's index (domutils and entities) or cheerio itself: `nor catalog check`
 * and a night of feeds stay as light as they were. Each distinct selector is checked once a
 * process.
 */

import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { requireCjs } from "../../cjs.js";
import { keptAnswers } from "../../policy/kept-answers.js";
import { parseSelector } from "./field-selector.js";

/** css-what's token, as far as this file looks at it. */
interface Token {
  type: string;
  name?: string;
  data?: unknown;
}
type Rule = Token[];

interface Engine {
  parse(selector: string): Rule[];
  isTraversal(t: Token): boolean;
  /** css-select's compileToken, when its file was found. */
  compile: ((token: Rule[], options: object, context: undefined) => unknown) | undefined;
}

let engine: Engine | undefined;

function loadEngine(): Engine {
  // cheerio's own cheerio-select, and the css-what and css-select that one requires.
  const fromCheerio = createRequire(requireCjs.resolve("cheerio"));
  const fromSelect = createRequire(fromCheerio.resolve("cheerio-select"));
  const what = fromSelect("css-what") as Pick<Engine, "parse" | "isTraversal">;
  let compile: Engine["compile"];
  try {
    // css-select's compiler alone: its index also loads domutils (and entities through it).
    const file = join(dirname(fromSelect.resolve("css-select")), "compile.js");
    compile = (fromSelect(file) as { compileToken: Engine["compile"] }).compileToken;
  } catch {
    compile = undefined;
  }
  return { parse: what.parse, isTraversal: what.isTraversal, compile };
}

/** cheerio-select's positional filters (its positionals.js), which css-select never sees. */
const POSITIONALS = new Set(["first", "last", "eq", "gt", "nth", "lt", "even", "odd"]);

function isFilter(t: Token): boolean {
  if (t.type !== "pseudo") return false;
  if (t.name !== undefined && POSITIONALS.has(t.name)) return true;
  return (
    t.name === "not" && Array.isArray(t.data) && (t.data as Rule[]).some((r) => r.some(isFilter))
  );
}

/** The runs css-select compiles, as cheerio-select cuts a rule at its positional filters. */
function runs(rule: Rule, out: Rule[]): void {
  let run: Rule = [];
  for (const t of rule) {
    if (!isFilter(t)) {
      run.push(t);
      continue;
    }
    out.push(run);
    run = [];
    if (t.name === "not") for (const r of t.data as Rule[]) runs(r, out);
  }
  out.push(run);
}

/** No element is ever matched: compiling reads no document. */
const NO_DOCUMENT = {
  isTag: () => true,
  getParent: () => null,
  getChildren: () => [],
  getName: () => "",
  getAttributeValue: () => undefined,
  hasAttrib: () => false,
  existsOne: () => false,
  getSiblings: () => [],
  getText: () => "",
  removeSubsets: (x: unknown) => x,
  findAll: () => [],
  findOne: () => null,
};

function check(css: string): string | undefined {
  engine ??= loadEngine();
  const { parse, isTraversal, compile } = engine;
  try {
    const rules = parse(css);
    if (compile === undefined) return undefined;
    const options = { adapter: NO_DOCUMENT, xmlMode: false, equals: Object.is };
    for (const rule of rules) {
      const out: Rule[] = [];
      runs(rule, out);
      for (const run of out) {
        if (run.length === 0) continue;
        // After a filter a run that starts with a combinator is read from every element.
        const first = run[0]!;
        const token = isTraversal(first) ? [{ type: "universal", namespace: null }, ...run] : run;
        compile([token], options, undefined);
      }
    }
    return undefined;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

/**
 * What the reader would say of this CSS selector, or undefined when it reads it. Checked
 * selectors kept (bounded, as `nor start` lives long).
 */
export const cssProblem: (css: string) => string | undefined = keptAnswers(check, {
  max: 50_000,
});

/** A page recipe's fields, each read by the reader as written here (page.ts). */
export const RECIPE_FIELDS = ["items", "title", "date", "link", "id", "kind", "next"] as const;

/**
 * The CSS the reader runs for a recipe field's value: `items` whole (`$(items)`), the others
 * without their `@attr` and never for none or `:scope` (the item itself; select.ts).
 */
export function recipeCss(field: string, value: string): string | undefined {
  if (field === "items") return value;
  const { css } = parseSelector(value);
  return !css || css === ":scope" ? undefined : css;
}

/** A field's selector and what is wrong with it. */
export interface SelectorProblem {
  /** Within the object given: `items`, `selector`. */
  field: string;
  message: string;
}

function problemOf(field: string, value: unknown, css: string | undefined) {
  if (typeof value !== "string" || css === undefined) return undefined;
  const why = cssProblem(css);
  if (why === undefined) return undefined;
  return { field, message: `not a CSS selector the reader can use: ${why}` };
}

/** The problems of a page recipe's selectors (a value that is not a string is the schema's). */
export function recipeSelectorProblems(recipe: unknown): SelectorProblem[] {
  if (recipe === null || typeof recipe !== "object" || Array.isArray(recipe)) return [];
  const r = recipe as Record<string, unknown>;
  const out: SelectorProblem[] = [];
  for (const field of RECIPE_FIELDS) {
    const v = r[field];
    const p = problemOf(field, v, typeof v === "string" ? recipeCss(field, v) : undefined);
    if (p) out.push(p);
  }
  return out;
}

/** The problem of a form spec's `selector` (run whole: `$(selector)`, form.ts). */
export function formSelectorProblems(form: unknown): SelectorProblem[] {
  if (form === null || typeof form !== "object" || Array.isArray(form)) return [];
  const v = (form as Record<string, unknown>)["selector"];
  const p = problemOf("selector", v, typeof v === "string" ? v : undefined);
  return p ? [p] : [];
}
