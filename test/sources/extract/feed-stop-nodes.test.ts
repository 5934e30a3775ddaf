import { XMLParser } from "fast-xml-parser";
import { parseFeed } from "feedsmith";
import { Expression, ExpressionSet, Matcher } from "path-expression-matcher";
import { describe, expect, it } from "vitest";
import { extractFeed } from "../../../src/sources/extract/feed.js";
import {
  compileStopNodesOnce,
  sharedStopNodeSets,
} from "../../../src/sources/extract/feed-stop-nodes.js";
import { platformXmlFixtures } from "./xml-fixtures.js";

/** Every XML fixture under test/fixtures/platforms, with a few feeds of every shape. */
function feeds(): { name: string; text: string }[] {
  const out = platformXmlFixtures().map((f) => ({ name: f.name, text: f.body.toString("utf8") }));
  const item = (i: number) =>
    `<item><title>A <b>bold</b> &amp; ${i}</title><link>https://g.gov/a/${i}</link><description><p>x</p></description><dc:date>2026-11-0${i}</dc:date></item>`;
  out.push(
    {
      name: "rss with markup in stop nodes",
      text: `<?xml version="1.0"?><rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel><title>T</title><link>https://g.gov/</link>${[1, 2, 3].map(item).join("")}</channel></rss>`,
    },
    {
      name: "atom",
      text: `<feed xmlns="http://www.w3.org/2005/Atom"><title>T</title><entry><title type="html">A &lt;b&gt;b&lt;/b&gt;</title><link href="https://g.gov/e/1"/><id>urn:1</id><published>2026-11-05T10:00:00Z</published></entry></feed>`,
    },
    {
      name: "rdf",
      text: `<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel rdf:about="https://g.gov/"><title>T</title></channel><item rdf:about="https://g.gov/i/1"><title>I <i>1</i></title><link>https://g.gov/i/1</link><dc:date>2026-11-05</dc:date></item></rdf:RDF>`,
    },
  );
  return out;
}

/** The fast-xml-parser instances feedsmith parses with, seen by parsing each format once. */
function feedsmithParsers(samples: readonly string[]): XMLParser[] {
  const seen = new Set<XMLParser>();
  const parse = XMLParser.prototype.parse;
  XMLParser.prototype.parse = function (this: XMLParser, ...args: Parameters<typeof parse>) {
    seen.add(this);
    return parse.apply(this, args);
  } as typeof parse;
  try {
    for (const s of samples) {
      try {
        parseFeed(s);
      } catch {
        // Not a feed (the BoardDocs XML): its parse still met a parser.
      }
    }
  } finally {
    XMLParser.prototype.parse = parse;
  }
  return [...seen];
}

const stopNodesOf = (p: XMLParser) =>
  (p as unknown as { options: { stopNodes: unknown[] } }).options;

describe("feedsmith's stop-node paths compiled once per parser", () => {
  it("is in use here: fast-xml-parser takes our Expressions (the self-check passed)", () => {
    expect(compileStopNodesOnce()).toBe(true);
    expect(sharedStopNodeSets()).toBe(true);
    const all = feeds();
    const parsers = feedsmithParsers(all.map((f) => f.text));
    expect(parsers.length).toBeGreaterThanOrEqual(3);
    for (const p of parsers) {
      const paths = stopNodesOf(p).stopNodes;
      expect(paths.length).toBeGreaterThan(10);
      expect(paths.every((e) => e instanceof Expression)).toBe(true);
    }
  });

  it("every fixture feed parses to the same feed and the same records as with the paths compiled at each parse", () => {
    compileStopNodesOnce();
    const all = feeds();
    expect(all.length).toBeGreaterThanOrEqual(9);
    const parsers = feedsmithParsers(all.map((f) => f.text));
    const compiled = parsers.map((p) => stopNodesOf(p).stopNodes);
    const run = () =>
      all.map((f) => {
        let feed: unknown;
        try {
          feed = parseFeed(f.text);
        } catch (err) {
          feed = `throws ${(err as Error).name}`;
        }
        const records = extractFeed(new TextEncoder().encode(f.text), "https://g.gov/feed");
        return JSON.stringify({ name: f.name, feed, records });
      });
    const once = run();
    // As fast-xml-parser does without the change: the path strings, compiled at every parse.
    for (const [i, p] of parsers.entries())
      stopNodesOf(p).stopNodes = (compiled[i] as Expression[]).map((e) => e.pattern);
    let each: string[];
    try {
      each = run();
    } finally {
      for (const [i, p] of parsers.entries()) stopNodesOf(p).stopNodes = compiled[i] as unknown[];
    }
    expect(once).toEqual(each);
    // The markup in a stop node is kept as text, then stripped to the title.
    expect(once.find((s) => s.includes("rss with markup"))).toContain('"title":"A bold & 1"');
  });

  it("a set handed the compiled list takes the shared indexes; one handed part of it, or more, is built the usual way", () => {
    compileStopNodesOnce();
    const parser = new XMLParser({ stopNodes: ["r.a", "r.b", "..c"] });
    expect(parser.parse("<r><a><x>1</x></a><b>2</b></r>")).toEqual({
      r: { a: "<x>1</x>", b: "2" },
    });
    const list = stopNodesOf(parser).stopNodes as Expression[];
    expect(list.every((e) => e instanceof Expression)).toBe(true);
    const whole = new ExpressionSet();
    for (const e of list) whole.add(e);
    whole.seal();
    const part = new ExpressionSet();
    part.add(list[0] as Expression);
    part.add(new Expression("r.z"));
    part.seal();
    const longer = new ExpressionSet();
    for (const e of list) longer.add(e);
    longer.add(new Expression("r.y"));
    longer.seal();
    expect([whole.size, part.size, longer.size]).toEqual([3, 2, 4]);
    expect(whole.isSealed && part.isSealed && longer.isSealed).toBe(true);
    const at = (...path: string[]) => {
      const m = new Matcher();
      for (const tag of path) m.push(tag);
      return m;
    };
    expect(whole.matchesAny(at("r", "b"))).toBe(true);
    expect(whole.matchesAny(at("q", "w", "c"))).toBe(true);
    expect(whole.matchesAny(at("r", "z"))).toBe(false);
    expect(part.matchesAny(at("r", "z"))).toBe(true);
    expect(part.matchesAny(at("r", "b"))).toBe(false);
    expect(longer.matchesAny(at("r", "y"))).toBe(true);
    // A sealed set, shared or not, takes nothing more.
    expect(() => whole.add(new Expression("r.w"))).toThrow(TypeError);
  });

  describe("the shared set, against what could go wrong in it", () => {
    const compiledList = (): Expression[] => {
      compileStopNodesOnce();
      const p = new XMLParser({ stopNodes: ["r.a", "r.b", "..c"] });
      p.parse("<r/>");
      return stopNodesOf(p).stopNodes as Expression[];
    };
    const fields = (x: ExpressionSet) => x as unknown as Record<string, unknown>;

    it("two sets handed the whole list share one index", () => {
      const list = compiledList();
      const [a, b] = [new ExpressionSet(), new ExpressionSet()];
      for (const x of [a, b]) {
        for (const e of list) x.add(e);
        x.seal();
      }
      expect(fields(a)["_byDepthAndTag"]).toBe(fields(b)["_byDepthAndTag"]);
      const sym = Object.getOwnPropertySymbols(a)[0];
      expect(
        sym === undefined || (a as unknown as Record<symbol, unknown>)[sym] === undefined,
      ).toBe(true);
    });

    it("what a set held before the list is kept, and a sealed empty set refuses the list", () => {
      const list = compiledList();
      const x = new ExpressionSet();
      x.add(new Expression("r.z"));
      for (const e of list) x.add(e);
      x.seal();
      expect(x.size).toBe(4);
      const sealed = new ExpressionSet().seal();
      expect(() => sealed.add(list[0] as Expression)).toThrow(TypeError);
    });

    it("a set read before its seal answers as one built the usual way", () => {
      const list = compiledList();
      const handed = () => {
        const x = new ExpressionSet();
        for (const e of list) x.add(e);
        return x;
      };
      const m = new Matcher();
      m.push("r");
      m.push("b");
      // Each reader first, on a set of its own.
      expect(handed().has(list[1] as Expression)).toBe(true);
      expect(handed().matchesAny(m)).toBe(true);
      expect(handed().findMatch(m)?.pattern).toBe("r.b");
      const x = handed();
      expect(x.size).toBe(3);
      x.seal();
      expect([x.size, x.matchesAny(m)]).toEqual([3, true]);
      const y = new ExpressionSet();
      y.add(list[0] as Expression);
      expect(y.findMatch(m)).toBeNull();
      expect(y.size).toBe(1);
    });
  });
});
