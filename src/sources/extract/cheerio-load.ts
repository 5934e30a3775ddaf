/**
 * cheerio's `load`, taken from the one file of the package that makes it (load-parse.js). The
 * package's index gives the same function but first loads what cheerio fetches pages with:
 * undici's whole index (fetch, WebSocket, its caches), an encoding sniffer, a parser stream.
 * The engine fetches with its own transport, yet a night with page or form sources paid for all
 * that at its start: cheerio imported took 154–171 ms of CPU, load-parse.js required 49–76 ms
 * (docs/benchmarks.md, "CommonJS packages required").
 * The file is found beside the index cheerio's `require` entry resolves to, and required
 * (cjs.ts says why); a cheerio without it is loaded whole, as before.
 *
 * Every parse through it is bounded in nesting, in attributes and in formatting elements left
 * open (P13, P14; below, from NESTING_FREE_DEPTH, ATTRIBUTES_FREE and FORMATTING_FREE).
 * This module stands alone beside cjs.ts (test/sources/extract/cheerio-load.test.ts imports it
 * so, beside a stand-in cheerio): what reads the bound's error is in nesting.ts.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type * as Cheerio from "cheerio";
import type * as DomHandlerModule from "domhandler";
import { requireCjs } from "../../cjs.js";

function loadParse(): typeof Cheerio.load {
  const file = join(dirname(requireCjs.resolve("cheerio")), "load-parse.js");
  const part = existsSync(file) ? (requireCjs(file) as Partial<typeof Cheerio>) : undefined;
  return typeof part?.load === "function"
    ? part.load
    : (requireCjs("cheerio") as typeof Cheerio).load;
}

export const load: typeof Cheerio.load = loadParse();

/**
 * P13, P14: how deeply a page may nest its elements. An HTML parser keeps the elements still
 * open on a stack, and parse5 (cheerio's parser for pages) looks down it at nearly every tag to
 * find what is in scope: a tag costs about as many steps as the page is deep there. One page of
 * 200,000 nested `<div>`s (2.2 MB, far under the size limit) held the event loop, and with it
 * every lane's timers and the night's deadline, for over eight minutes. Browsers bound nesting
 * too (Chromium's parser nests no deeper than 512).
 *
 * So the parser's own stack is counted as it grows: no second pass over the page, one addition
 * a tag. Elements opened up to NESTING_FREE_DEPTH deep cost nothing (real pages nest a few
 * dozen deep: the deepest fixture 45), so an ordinary page, however long, is never refused.
 * Each one opened deeper costs its depth beyond that, and once a page has spent NESTING_BUDGET
 * its parse stops there (TooDeeplyNested) and the page is not read: nesting.ts turns that into
 * the reader's note. It is depth times breadth that is bounded, not depth alone: one chain of
 * elements may go about 4,700 deep, and a page nested 1,000 deep around 20,000 elements is
 * refused as the 200,000-deep one is; what a page may spend costs the parser about a tenth of a
 * second (docs/catalog.md, "Pages nested too deeply").
 */
export const NESTING_FREE_DEPTH = 256;
export const NESTING_BUDGET = 10_000_000;

/**
 * P13, P14: how many attributes an element may carry. parse5's tokenizer looks through the
 * attributes a tag already has for each new one (a name given twice keeps its first value), so
 * a tag costs about the square of its attributes: one `<div>` of 20,000 attributes (170 kB)
 * took a second, and a page of a few hundred such tags under the size limit would hold up the
 * night for minutes. As with nesting, the first ATTRIBUTES_FREE attributes of an element cost
 * nothing (real elements carry a few, a few dozen at most), each one after costs how many it
 * follows beyond that, and a page that has spent ATTRIBUTES_BUDGET in all is not read (about
 * 4,500 attributes on one element; a twentieth of a second of the parser's time).
 */
export const ATTRIBUTES_FREE = 64;
export const ATTRIBUTES_BUDGET = 10_000_000;

/**
 * P13, P14: how many formatting elements (`<b>`, `<font>`, `<a>` …) a page may leave open. parse5
 * keeps the formatting elements still in effect on a list, and reopens them inside each new
 * block: a `<b>` closed by the `</div>` around it rather than by `</b>` is reopened at the next
 * text, and stays on the list. Before it lists a new one, parse5 compares it with every one of
 * the same name already there, attributes and all (the HTML standard's "Noah's Ark" check, which
 * keeps no more than three alike), building each listed element's attribute list anew: a page
 * of `<div><b id=N></div>x`, each `<b>` different, costs the square of its `<b>`s times their
 * attributes. 3,000 of them with 60 attributes each (1.1 MB) held the event loop for 50 s
 * before the nesting budget stopped the parse (docs/benchmarks.md).
 *
 * And a page can have parse5 reopen every listed element at each new one: `<p><b id=N></p>`
 * over and over, the `<b>`s made anew again and again (3,000 of them: 1.2 s with one attribute,
 * 2.2 s with eight, stopped by the nesting budget only once they were some 500 deep).
 *
 * So the elements gone over in those two steps are counted (each attribute list built for the
 * check, each element made anew when reopening): in one step the first FORMATTING_FREE cost
 * nothing (real pages list a handful; no fixture's step comes near), each one after costs
 * FORMATTING_ELEMENT_COST and its attributes (making or listing an element costs more than one
 * of its attributes does), and a page that has spent FORMATTING_BUDGET in all is not read: such
 * pages are stopped within their first few hundred `<b>`s, in under 0.3 s of CPU with the rest
 * of the page's reading (against 1–50 s before; docs/benchmarks.md).
 */
export const FORMATTING_FREE = 64;
export const FORMATTING_ELEMENT_COST = 32;
export const FORMATTING_BUDGET = 1_000_000;

/**
 * Thrown from inside the parser, which it stops, when a page would cost too much to parse (P13,
 * P14): the subclasses say why. nesting.ts knows them by name.
 */
export class TooCostlyToParse extends Error {
  /** What the message says of the page, for another subject (an XLSX's "its XML"). */
  readonly detail: string;
  constructor(detail: string) {
    super(`the page ${detail}`);
    this.detail = detail;
  }
}

/** A page that has spent its nesting budget. */
export class TooDeeplyNested extends TooCostlyToParse {
  override name = "TooDeeplyNested";
  /** How deep the page was nested where its parse was stopped. */
  readonly depth: number;
  constructor(depth: number) {
    super(
      `nests its elements too deeply to read without holding up the night (stopped ${depth.toLocaleString("en-US")} levels deep; past ${NESTING_FREE_DEPTH} levels a page may nest ${NESTING_BUDGET.toLocaleString("en-US")} element-levels in all)`,
    );
    this.depth = depth;
  }
}

/** A page that has spent its attributes' budget. */
export class TooManyAttributes extends TooCostlyToParse {
  override name = "TooManyAttributes";
  constructor(count: number) {
    super(
      `gives its elements too many attributes to read without holding up the night (stopped at attribute number ${count.toLocaleString("en-US")} of one element; past ${ATTRIBUTES_FREE} on one element each costs more, up to ${ATTRIBUTES_BUDGET.toLocaleString("en-US")} in all)`,
    );
  }
}

/** A page that has spent its formatting elements' budget. */
export class TooManyFormattingElements extends TooCostlyToParse {
  override name = "TooManyFormattingElements";
  constructor(count: number, tag: string) {
    super(
      `leaves too many formatting elements open to read without holding up the night (stopped at a <${tag}>, number ${count.toLocaleString("en-US")} of those compared or reopened at once; past ${FORMATTING_FREE} at once each costs more, up to ${FORMATTING_BUDGET.toLocaleString("en-US")} in all)`,
    );
  }
}

/**
 * The elements parse5 goes over for its formatting elements in one parse, each an attribute list
 * built or an element reopened (parsing is synchronous: one count serves one parser).
 */
class FormattingCount {
  /** What the parse has spent of FORMATTING_BUDGET. */
  spent = 0;
  /** All it has gone over, free or not, in the same units (for tests: the parser's work). */
  work = 0;
  /** Elements gone over in the step under way; undefined outside one. */
  private step: number | undefined;

  /** A new parse begins. */
  reset(): void {
    this.spent = 0;
    this.work = 0;
    this.step = undefined;
  }

  /** A step that goes over the list begins (a check or a reopening). */
  begin(): void {
    this.step = 0;
  }

  /** The step is over. */
  end(): void {
    this.step = undefined;
  }

  /** Whether a step is under way. */
  get counting(): boolean {
    return this.step !== undefined;
  }

  /** An element named `tag` of `attributes` attributes is gone over (counted only in a step). */
  element(attributes: number, tag: string): void {
    if (this.step === undefined) return;
    const cost = FORMATTING_ELEMENT_COST + attributes;
    this.work += cost;
    if (++this.step > FORMATTING_FREE) {
      this.spent += cost;
      if (this.spent > FORMATTING_BUDGET) throw new TooManyFormattingElements(this.step, tag);
    }
  }
}

/** The attributes of one parse (parsing is synchronous: one count serves one parser). */
class AttributeCount {
  private spent = 0;

  /** A new parse begins. */
  reset(): void {
    this.spent = 0;
  }

  /** An element that has `before` attributes already is given one more. */
  add(before: number): void {
    const beyond = before + 1 - ATTRIBUTES_FREE;
    if (beyond > 0) {
      this.spent += beyond;
      if (this.spent > ATTRIBUTES_BUDGET) throw new TooManyAttributes(before + 1);
    }
  }
}

/** The open elements of one parse (parsing is synchronous: one count serves one parser). */
class NestingCount {
  private depth = 0;
  private spent = 0;

  /** A new parse begins. */
  reset(): void {
    this.depth = 0;
    this.spent = 0;
  }

  /** An element is pushed on the parser's stack of open elements. */
  open(): void {
    const beyond = ++this.depth - NESTING_FREE_DEPTH;
    if (beyond > 0) {
      this.spent += beyond;
      if (this.spent > NESTING_BUDGET) throw new TooDeeplyNested(this.depth);
    }
  }

  /** An element is taken off it. */
  close(): void {
    this.depth--;
  }
}

/** cheerio's own dependencies, as cheerio itself requires them (the same module objects). */
const fromCheerio: NodeJS.Require = createRequire(requireCjs.resolve("cheerio"));

type TreeAdapter = NonNullable<Cheerio.CheerioOptions["treeAdapter"]>;

/**
 * cheerio has parse5 parse every page through one object, the htmlparser2 tree adapter (its
 * parsers/parse5-adapter.js takes it unless it is given another). parse5 asks that object for a
 * new document as each parse begins, and tells it of every push and pop of its stack of open
 * elements (onItemPush, onItemPop): the count is kept there, so every page, form page and
 * preset's page parsed by `load` (or a fragment by its `$`) is bounded, `load` still being
 * cheerio's own function. The count's error stops parse5 where it is thrown and leaves `load`.
 * A cheerio without the adapter beside it (a stand-in in tests) is left as it is.
 */
function guardNesting(): void {
  let adapter: TreeAdapter;
  try {
    ({ adapter } = fromCheerio("parse5-htmlparser2-tree-adapter") as { adapter: TreeAdapter });
  } catch {
    return;
  }
  const count = new NestingCount();
  const attributes = guardAttributes();
  const formatting = guardFormatting(adapter);
  formattingCount = formatting;
  const createDocument = adapter.createDocument;
  adapter.createDocument = () => {
    count.reset();
    attributes?.reset();
    formatting?.reset();
    return createDocument();
  };
  adapter.onItemPush = () => count.open();
  adapter.onItemPop = () => count.close();
}

/** What parse5's tokenizer is, as far as the count of attributes needs it. */
interface Parse5Tokenizer {
  currentToken: { attrs?: unknown[] } | null;
  _leaveAttrName(): void;
}

/**
 * The count of attributes (ATTRIBUTES_BUDGET) is kept where parse5's tokenizer adds an
 * attribute to its tag (`_leaveAttrName`, where it looks for the name among those already
 * there), in the parse5 cheerio parses with. Undefined (no bound) when that parse5 has no such
 * step: test/sources/extract/attributes.test.ts fails then, so an upgrade that moves it is seen.
 */
function guardAttributes(): AttributeCount | undefined {
  let proto: Parse5Tokenizer | undefined;
  try {
    const parse5 = fromCheerio("parse5") as {
      Tokenizer?: { prototype: Parse5Tokenizer };
    };
    proto = parse5.Tokenizer?.prototype;
  } catch {
    return undefined;
  }
  const leave = proto?._leaveAttrName;
  if (proto === undefined || typeof leave !== "function") return undefined;
  const count = new AttributeCount();
  proto._leaveAttrName = function (this: Parse5Tokenizer) {
    count.add(this.currentToken?.attrs?.length ?? 0);
    leave.call(this);
  };
  return count;
}

let formattingCount: FormattingCount | undefined;

/**
 * What the last parse (or the one under way) spent of FORMATTING_BUDGET, and the work its
 * formatting elements cost in all, free or not, in the same units; undefined when parse5 is not
 * counted (see guardFormatting). For tests: the parser's work, counted, never timed.
 */
export function formattingWork(): { spent: number; work: number } | undefined {
  return formattingCount && { spent: formattingCount.spent, work: formattingCount.work };
}

/** What parse5's parser and its list of formatting elements are, as far as the count needs them. */
interface Parse5Step {
  treeAdapter: TreeAdapter;
}
interface Parse5FormattingList extends Parse5Step {
  _ensureNoahArkCondition(element: unknown): void;
}
interface Parse5Parser extends Parse5Step {
  _reconstructActiveFormattingElements(): void;
}

/**
 * The count of formatting elements (FORMATTING_BUDGET) is kept in the two steps of parse5's
 * that go over its list of them: the check of a new one against those listed
 * (`_ensureNoahArkCondition`, which builds their attribute lists through the tree adapter's
 * `getAttrList`), and the reopening of those closed too soon
 * (`_reconstructActiveFormattingElements`, which makes each anew through `createElement`). The
 * adapter's two are counted only inside those steps (cheerio also asks for attribute lists when
 * it writes a page out, and every element of a page is made). The list's class is not exported
 * by parse5: it is found on a parser's own list. Undefined (no bound) when that parse5 has no
 * such steps: test/sources/extract/formatting.test.ts fails then, so an upgrade that moves them
 * is seen.
 */
function guardFormatting(adapter: TreeAdapter): FormattingCount | undefined {
  let parser: Parse5Parser | undefined;
  let list: Parse5FormattingList | undefined;
  try {
    const parse5 = fromCheerio("parse5") as {
      Parser?: { new (options: object): { activeFormattingElements?: object } };
    };
    const made = parse5.Parser ? new parse5.Parser({}) : undefined;
    parser = made ? (Object.getPrototypeOf(made) as Parse5Parser) : undefined;
    const listed = made?.activeFormattingElements;
    list = listed ? (Object.getPrototypeOf(listed) as Parse5FormattingList) : undefined;
  } catch {
    return undefined;
  }
  const check = list?._ensureNoahArkCondition;
  const reopen = parser?._reconstructActiveFormattingElements;
  if (!list || !parser || typeof check !== "function" || typeof reopen !== "function") {
    return undefined;
  }
  const count = new FormattingCount();
  const { getAttrList, createElement } = adapter;
  adapter.getAttrList = (element) => {
    const attributes = getAttrList.call(adapter, element);
    if (count.counting) count.element(attributes.length, adapter.getTagName(element));
    return attributes;
  };
  adapter.createElement = (tag, namespace, attributes) => {
    count.element(attributes.length, tag);
    return createElement.call(adapter, tag, namespace, attributes);
  };
  /** `step` with the count on when it goes through cheerio's adapter. */
  const counted = <T extends Parse5Step, A extends unknown[]>(step: (this: T, ...a: A) => void) =>
    function (this: T, ...args: A): void {
      if (this.treeAdapter !== adapter) {
        step.apply(this, args);
        return;
      }
      count.begin();
      try {
        step.apply(this, args);
      } finally {
        count.end();
      }
    };
  list._ensureNoahArkCondition = counted(check);
  parser._reconstructActiveFormattingElements = counted(reopen);
  return count;
}
guardNesting();

interface XmlParser {
  end(text: string): void;
}
type XmlParserClass = new (handler: DomHandlerModule.DomHandler, options: object) => XmlParser;

/**
 * XML (an XLSX's parts) as `load(text, { xml: true })` reads it, bounded in nesting as a page is.
 * In XML mode cheerio parses with htmlparser2, whose stack of open elements grows at its front
 * (a sheet of 200,000 nested elements took 21 s): the tree is built here with a DomHandler that
 * counts its open elements, from the same htmlparser2 and domhandler cheerio would use, and the
 * document handed to `load` (which takes a parsed document as it is). Throws TooDeeplyNested.
 */
export function loadXml(text: string): Cheerio.CheerioAPI {
  counted ??= countedHandler();
  const options = { xmlMode: true };
  const handler = new counted.Handler(undefined, options);
  new counted.Parser(handler, options).end(text);
  return load(handler.root, { xml: true });
}

let counted: ReturnType<typeof countedHandler> | undefined;

function countedHandler() {
  const { DomHandler } = fromCheerio("domhandler") as typeof DomHandlerModule;
  const { Parser } = fromCheerio("htmlparser2") as { Parser: XmlParserClass };
  class Handler extends DomHandler {
    private readonly count = new NestingCount();
    override onopentag(name: string, attribs: Record<string, string>): void {
      this.count.open();
      super.onopentag(name, attribs);
    }
    override onclosetag(): void {
      this.count.close();
      super.onclosetag();
    }
  }
  return { Handler, Parser };
}
