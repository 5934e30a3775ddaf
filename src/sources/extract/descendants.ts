/**
 * An element's descendant elements in document order, by one walk of its subtree. cheerio's
 * `.find()` from an element sorts its matches into document order, comparing siblings by their
 * place among their parent's children: quadratic over many siblings (40,000 inputs in a form,
 * 16 s and more of CPU; docs/benchmarks.md). A walk visits each node once and yields them in
 * order already (P13, P14).
 */

import { createRequire } from "node:module";
import type { Cheerio } from "cheerio";
import type { AnyNode, Element } from "domhandler";
import { hasChildren, isTag } from "domhandler";
import { requireCjs } from "../../cjs.js";
import { keptAnswers } from "../../policy/kept-answers.js";

/**
 * Calls `visit` on each descendant element of `roots` (not the roots themselves), in document
 * order, each element once even when one root holds another; stops when `visit` returns true.
 * Returns whether it stopped.
 */
export function walkDescendants(
  roots: readonly AnyNode[],
  visit: (el: Element) => boolean | undefined,
): boolean {
  // One root: its subtree is a tree, so no node comes twice and nothing need be remembered
  // (a set of every node seen was most of the walk's cost on a whole page).
  if (roots.length === 1) return walkTree(roots[0] as AnyNode, visit);
  const seen = new Set<AnyNode>();
  for (const root of roots) {
    if (seen.has(root) || !hasChildren(root)) continue;
    // Children pushed in reverse, so the first child is taken first: document order.
    const stack: AnyNode[] = [];
    for (let i = root.children.length - 1; i >= 0; i--) stack.push(root.children[i] as AnyNode);
    for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
      if (seen.has(node)) continue;
      seen.add(node);
      if (isTag(node) && visit(node)) return true;
      if (hasChildren(node))
        for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i] as AnyNode);
    }
  }
  return false;
}

/** `walkDescendants` of one root: the same visits in the same order, without the set. */
function walkTree(root: AnyNode, visit: (el: Element) => boolean | undefined): boolean {
  if (!hasChildren(root)) return false;
  const stack: AnyNode[] = [];
  for (let i = root.children.length - 1; i >= 0; i--) stack.push(root.children[i] as AnyNode);
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (isTag(node) && visit(node)) return true;
    if (hasChildren(node))
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i] as AnyNode);
  }
  return false;
}

/** The first descendant element of `roots`, in document order, that `test` accepts. */
export function firstDescendant(
  roots: readonly AnyNode[],
  test: (el: Element) => boolean,
): Element | undefined {
  let found: Element | undefined;
  walkDescendants(roots, (el) => {
    if (!test(el)) return false;
    found = el;
    return true;
  });
  return found;
}

/**
 * A selector of one element alone: a type, classes, an id, attributes (`a[href]`, `td.date`),
 * no combinator and no pseudo-class. Whether an element matches it does not depend on where
 * the search started, so filtering the walked descendants is the same as cheerio's `.find()`.
 */
const COMPOUND = /^(?:[A-Za-z*][\w-]*)?(?:[.#][\w-]+|\[[^\]]*\])*$/;

/**
 * `item.find(css).first()`, in one walk of the item's subtree when the selector is a plain
 * compound one (docs/benchmarks.md: one item of 40,000 links, seconds through `.find()`);
 * any other selector through cheerio as before.
 */
export function findFirst(item: Cheerio<AnyNode>, css: string): Cheerio<AnyNode> {
  if (css === "" || !COMPOUND.test(css)) return item.find(css).first();
  // The first element of the walk the selector matches: what `.filter(css).first()` of all the
  // walked elements gave, without building the list or compiling the selector again per item.
  const found = firstDescendant(item.toArray(), compoundTest(css, item.options.xmlMode === true));
  return item._make<AnyNode>(found === undefined ? [] : [found]);
}

type Compiled = (el: Element) => boolean;

let compileSelector: ((css: string, options: { xmlMode: boolean }) => Compiled) | undefined;

/** cheerio's own css-select (the one its cheerio-select's `.filter()` compiles with). */
function compile(css: string, xmlMode: boolean): Compiled {
  if (compileSelector === undefined) {
    const fromCheerio = createRequire(requireCjs.resolve("cheerio"));
    const fromSelect = createRequire(fromCheerio.resolve("cheerio-select"));
    compileSelector = (fromSelect("css-select") as { compile: typeof compileSelector }).compile;
  }
  return (compileSelector as NonNullable<typeof compileSelector>)(css, { xmlMode });
}

/** Compiled compound selectors, by text, for HTML and for XML: a recipe's few, compiled once each. */
const htmlTests = keptAnswers((css: string) => compile(css, false), { max: 1000 });
const xmlTests = keptAnswers((css: string) => compile(css, true), { max: 1000 });

/**
 * The test cheerio's `.filter(css)` applies to each element for a compound selector (no
 * positional filter, no traversal: what cheerio-select's `filterElements` compiles, through
 * css-select's public `compile` with the selection's xmlMode), compiled once and kept.
 */
function compoundTest(css: string, xmlMode: boolean): Compiled {
  return xmlMode ? xmlTests(css) : htmlTests(css);
}

/** The descendant elements of `roots` that `test` accepts, in document order, in one walk. */
export function descendantsWhere(
  roots: readonly AnyNode[],
  test: (el: Element) => boolean,
): Element[] {
  const out: Element[] = [];
  walkDescendants(roots, (el) => {
    if (test(el)) out.push(el);
    return false;
  });
  return out;
}

/** `a[href]`, as cheerio's `.find("a[href]")` in an HTML page matches it. */
export function isLink(el: Element): boolean {
  return el.name === "a" && el.attribs.href !== undefined;
}
