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
 */
import { XMLParser } from "fast-xml-parser";
import { Expression } from "path-expression-matcher";

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
  options.stopNodes = paths.map((p: unknown) => (typeof p === "string" ? new Expression(p) : p));
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
  return ok;
}
