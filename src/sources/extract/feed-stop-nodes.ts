/**
 * Feed parsing without compiling feedsmith's stop-node paths at every document.
 *
 * feedsmith keeps one fast-xml-parser `XMLParser` per format, its options naming about 425
 * stop-node paths (`item.title`, `rss.channel.link`, …). fast-xml-parser 5.11 turns each path
 * string into a path-expression-matcher `Expression` anew at every `parse` (in the constructor
 * of the per-document `OrderedObjParser`), which was two thirds of the CPU of reading a small
 * RSS feed: about 0.3 of 0.4 ms (docs/benchmarks.md, the engine end to end).
 *
 * fast-xml-parser takes an `Expression` in place of a path string and uses it as it is (the
 * "already an Expression object" branch next to the string one), and an `Expression` is not
 * changed by matching. So at a parser's first parse the path strings of its options (already
 * normalized by fast-xml-parser's options builder) are replaced by the Expressions it would
 * have made of them, once; every parse after that uses those. The result of a parse is the same:
 * the same expressions, in the same order, in the same set.
 *
 * A self-check guards it: a stop node is parsed through the replacement before it is kept,
 * and if the Expression is not taken as one (another copy of path-expression-matcher under
 * fast-xml-parser after an upgrade, whose `instanceof` would fail and whose parser would then
 * silently skip the stop node) the original `parse` is put back and every parse compiles its
 * paths as before.
 *
 * The set those Expressions go into is built at every parse too: the per-document parser adds
 * each of the ~425 to a fresh path-expression-matcher `ExpressionSet` and seals it (about 47 of
 * a small feed's 84 µs). So for each compiled list one set is built and sealed once (the
 * template), and a fresh set that is handed exactly that list, in that order, and then sealed
 * takes the template's indexes instead (shared: a sealed set is only read). Anything else added
 * to a set goes the usual way, and a set read before its seal catches up first. A second
 * self-check compares a set built both ways, and fast-xml-parser parsing through a shared set,
 * and puts the usual way back if anything differs.
 */
import { XMLParser } from "fast-xml-parser";
import { Expression, ExpressionSet, Matcher } from "path-expression-matcher";

interface WithStopNodes {
  options?: { stopNodes?: unknown };
}

let state: "off" | "on" | "refused" = "off";

/** Options objects whose stop nodes are compiled already (one per feedsmith parser). */
const compiled = new WeakSet<object>();

function compileStopNodes(parser: unknown): void {
  const options = (parser as WithStopNodes).options;
  if (options === undefined || options === null || compiled.has(options)) return;
  compiled.add(options);
  const paths = options.stopNodes;
  if (!Array.isArray(paths) || !paths.some((p) => typeof p === "string")) return;
  const list = paths.map((p: unknown) => (typeof p === "string" ? new Expression(p) : p));
  options.stopNodes = list;
  keepTemplate(list.filter((p): p is Expression => p instanceof Expression));
}

/** A compiled list (what fast-xml-parser adds, in order) and the set it makes, sealed. */
interface Template {
  list: readonly Expression[];
  set: ExpressionSet;
}

/** Templates by their list's first Expression (each compiled list has Expressions of its own). */
const templates = new WeakMap<Expression, Template>();
/** On a set being handed a template's list: how far it has come (a property: read 425 times a parse). */
const REPLAY = Symbol("stop-node template replay");
type Replaying = ExpressionSet & { [REPLAY]?: { template: Template; next: number } | undefined };

const usualAdd = ExpressionSet.prototype.add;
const usualSeal = ExpressionSet.prototype.seal;
let templatesOn = false;

function keepTemplate(list: readonly Expression[]): void {
  if (!templatesOn || list.length === 0) return;
  const set = new ExpressionSet();
  for (const e of list) usualAdd.call(set, e);
  usualSeal.call(set);
  templates.set(list[0] as Expression, { list, set });
}

/** What a set handed part of a template's list holds, added the usual way. */
function catchUp(set: Replaying, r: { template: Template; next: number }): void {
  set[REPLAY] = undefined;
  for (let i = 0; i < r.next; i++) usualAdd.call(set, r.template.list[i] as Expression);
}

function add(this: Replaying, expression: Expression): ExpressionSet {
  const r = this[REPLAY];
  if (r !== undefined) {
    if (r.template.list[r.next] === expression) {
      r.next++;
      return this;
    }
    catchUp(this, r);
  } else if (!this.isSealed && this.size === 0) {
    const template = templates.get(expression);
    if (template !== undefined) {
      this[REPLAY] = { template, next: 1 };
      return this;
    }
  }
  return usualAdd.call(this, expression);
}

function seal(this: Replaying): ExpressionSet {
  const r = this[REPLAY];
  if (r !== undefined) {
    if (r.next === r.template.list.length) {
      this[REPLAY] = undefined;
      // The template's indexes, sealed flag included: read only from here on.
      Object.assign(this, r.template.set);
      return this;
    }
    catchUp(this, r);
  }
  return usualSeal.call(this);
}

/**
 * The set's readers, as they were: a set still being handed a list (not sealed yet) catches up
 * first, so whatever reads it before its seal sees what was added.
 */
const usualHas = ExpressionSet.prototype.has;
const usualFindMatch = ExpressionSet.prototype.findMatch;
const usualSize = Object.getOwnPropertyDescriptor(ExpressionSet.prototype, "size");

function has(this: Replaying, expression: Expression): boolean {
  const r = this[REPLAY];
  if (r !== undefined) catchUp(this, r);
  return usualHas.call(this, expression);
}

function findMatch(this: Replaying, ...args: Parameters<ExpressionSet["findMatch"]>) {
  const r = this[REPLAY];
  if (r !== undefined) catchUp(this, r);
  return usualFindMatch.apply(this, args);
}

function setReaders(on: boolean): void {
  ExpressionSet.prototype.add = on ? add : usualAdd;
  ExpressionSet.prototype.seal = on ? seal : usualSeal;
  ExpressionSet.prototype.has = on ? has : usualHas;
  ExpressionSet.prototype.findMatch = on ? findMatch : usualFindMatch;
  const get = usualSize?.get;
  if (usualSize === undefined || get === undefined) return;
  Object.defineProperty(ExpressionSet.prototype, "size", {
    ...usualSize,
    get: on
      ? function size(this: Replaying) {
          const r = this[REPLAY];
          if (r !== undefined) catchUp(this, r);
          return get.call(this);
        }
      : get,
  });
}

/** The same own fields, each the same value or a collection of the same entries. */
function sameSet(a: ExpressionSet, b: ExpressionSet): boolean {
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  if (ka.length === 0 || ka.join() !== kb.join()) return false;
  for (const k of ka) {
    const x = (a as unknown as Record<string, unknown>)[k];
    const y = (b as unknown as Record<string, unknown>)[k];
    const flat = (v: unknown): unknown[] | undefined =>
      v instanceof Map
        ? [...v].flatMap(([key, val]) => [key, ...(Array.isArray(val) ? val : [val])])
        : v instanceof Set || Array.isArray(v)
          ? [...v]
          : undefined;
    const fx = flat(x);
    const fy = flat(y);
    if (fx === undefined || fy === undefined) {
      if (x !== y) return false;
    } else if (fx.length !== fy.length || fx.some((v, i) => v !== fy[i])) return false;
  }
  return true;
}

/**
 * Installs the shared sets, if a set built through them is the set built the usual way and
 * fast-xml-parser, parsing through them, still finds its stop nodes.
 */
function useTemplates(): void {
  if (usualSize?.get === undefined || !usualSize.configurable) return;
  setReaders(true);
  templatesOn = true;
  let ok = false;
  try {
    const list = ["rss.channel.item.title", "feed.entry.*", "..script", "a.b", "a.b"].map(
      (p) => new Expression(p),
    );
    keepTemplate(list);
    const viaTemplate = new ExpressionSet();
    for (const e of list) viaTemplate.add(e);
    viaTemplate.seal();
    const usual = new ExpressionSet();
    for (const e of list) usualAdd.call(usual, e);
    usualSeal.call(usual);
    // Handed only part of the list, a set is built the usual way; read before its seal, it
    // answers as one built the usual way.
    const part = new ExpressionSet();
    part.add(list[0] as Expression);
    const early = part.size;
    part.add(list[1] as Expression);
    part.seal();
    const paths = [
      ["rss", "channel", "item", "title"],
      ["feed", "entry", "id"],
      ["x", "script"],
      ["a", "b"],
      ["a", "c"],
    ];
    const found = (set: ExpressionSet) =>
      paths.map((path) => {
        const m = new Matcher();
        for (const tag of path) m.push(tag);
        return set.findMatch(m)?.pattern ?? null;
      });
    // fast-xml-parser, parsing twice with its stop nodes shared, keeps them as text.
    const probe = new XMLParser({ stopNodes: ["r.a", "r.b"] });
    const parses = [1, 2].map(
      (n) => probe.parse(`<r><a><x>${n}</x></a><b><y/></b></r>`) as unknown,
    );
    ok =
      sameSet(viaTemplate, usual) &&
      found(viaTemplate).join() === found(usual).join() &&
      found(usual).filter((x) => x !== null).length === 4 &&
      viaTemplate.isSealed &&
      viaTemplate.size === 4 &&
      early === 1 &&
      part.size === 2 &&
      part.isSealed &&
      templates.get(list[0] as Expression)?.set !== viaTemplate &&
      JSON.stringify(parses) ===
        JSON.stringify([1, 2].map((n) => ({ r: { a: `<x>${n}</x>`, b: "<y/>" } })));
  } catch {
    ok = false;
  }
  if (!ok) {
    setReaders(false);
    templatesOn = false;
  }
}

/** Whether the shared sets are in use (false when their self-check refused them). */
export function sharedStopNodeSets(): boolean {
  return templatesOn;
}

/**
 * Installs the once-per-parser compiling of stop-node paths (idempotent). Returns whether it
 * is in use: false when the self-check found fast-xml-parser not taking our Expressions.
 */
export function compileStopNodesOnce(): boolean {
  if (state !== "off") return state === "on";
  const original = XMLParser.prototype.parse;
  type Parse = (this: XMLParser, ...args: Parameters<typeof original>) => unknown;
  const replacement: Parse = function parse(this: XMLParser, ...args) {
    compileStopNodes(this);
    return (original as Parse).apply(this, args);
  };
  XMLParser.prototype.parse = replacement as typeof original;
  // The self-check: `b` is a stop node, so its content stays the text it was.
  let ok = false;
  try {
    const probe = new XMLParser({ stopNodes: ["a.b"] });
    const out = probe.parse("<a><b><c>1</c></b></a>") as { a?: { b?: unknown } };
    const options = (probe as unknown as WithStopNodes).options;
    ok =
      out.a?.b === "<c>1</c>" &&
      Array.isArray(options?.stopNodes) &&
      options.stopNodes[0] instanceof Expression;
  } catch {
    ok = false;
  }
  if (!ok) XMLParser.prototype.parse = original;
  state = ok ? "on" : "refused";
  if (ok) useTemplates();
  return ok;
}
