import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { decodeBody } from "../../../src/policy/body-text.js";
import type { PageRecipe, WayIn } from "../../../src/sources/catalog/types.js";
import {
  FORMATTING_BUDGET,
  FORMATTING_FREE,
  formattingWork,
  load,
  TooManyFormattingElements,
} from "../../../src/sources/extract/cheerio-load.js";
import { extractWay } from "../../../src/sources/extract/index.js";
import { extractPage } from "../../../src/sources/extract/page.js";

/**
 * parse5 keeps the formatting elements still in effect on a list: it compares each new one with
 * every one of the same name listed (building their attribute lists anew), and reopens those
 * closed too soon inside each new block. A page of `<div><b …></div>x`, each `<b>` different,
 * costs the square of its `<b>`s times their attributes: 3,000 of them with 60 attributes each
 * (1.1 MB) held the event loop for 50 s before the nesting budget stopped it. The elements gone
 * over are counted now (src/sources/extract/cheerio-load.ts): past FORMATTING_FREE in one step
 * each costs its attributes and FORMATTING_ELEMENT_COST, and a page that spends
 * FORMATTING_BUDGET is not read, with a note saying why. The parser's work is counted here,
 * never timed: formattingWork() tells what the last parse went over, free or not (the budget
 * and the free part of each step: under three budgets for these pages).
 */
const enc = (s: string) => new TextEncoder().encode(s);
const URL_ = "https://city.example.gov/bids";
const RECIPE: PageRecipe = { items: "li", title: "a", link: "a", date: "span" };
const ITEM = `<ul><li><a href="/x">Road salt</a> <span>11/01/2026</span></li></ul>`;
const NOTE =
  /^the page leaves too many formatting elements open to read without holding up the night \(stopped at a <b>, number [\d,]+ of those compared or reopened at once; past 64 at once each costs more, up to 1,000,000 in all\)$/;

/** `k` attributes, the last one `i` (so no two `<b>`s are alike). */
const attrs = (k: number, i: number) =>
  Array.from({ length: k }, (_, j) => `a${j}=${j === k - 1 ? i : "v"}`).join(" ");
/** `n` of `unit(i)` and the one record after them. */
const page = (n: number, unit: (i: number) => string) =>
  `<body>${Array.from({ length: n }, (_, i) => unit(i)).join("")}${ITEM}</body>`;

/** What the parser went over for its formatting elements in the last parse. */
function work(): number {
  const w = formattingWork();
  if (w === undefined) throw new Error("parse5's formatting elements are not counted");
  return w.work;
}

describe("P13, P14: a page of formatting elements left open is refused, not parsed for a minute", () => {
  it("P13, P14: 3,000 misnested <b>s of 60 attributes each (1.1 MB, 50 s of CPU before) are not read: no records, the note saying why, a later way still tried, and the parser's work bounded", () => {
    const html = page(3_000, (i) => `<div><b ${attrs(60, i)}></div>x`);
    const x = extractPage(enc(html), URL_, RECIPE);
    expect(x.records).toEqual([]);
    expect(x.note).toMatch(NOTE);
    expect(x.notThisWay).toBe(true);
    // Unbounded, the checks alone would go over some 400 million (3,000²/2 × (32 + 60)).
    expect(work()).toBeLessThan(3 * FORMATTING_BUDGET);
    // The same through the night's reader (dispatch), and a preset's page.
    const way: WayIn = { access: "page", url: URL_, extract: RECIPE };
    expect(extractWay(way, enc(html), URL_)).toEqual({
      records: [],
      note: x.note,
      notThisWay: true,
    });
    const preset: WayIn = { access: "page", url: URL_, platform: "civicplus-agendacenter" };
    expect(extractWay(preset, enc(html), URL_).note).toMatch(NOTE);
  });

  it("P13, P14: the tricks that reopen formatting elements are counted, whether they nest deep (one reopened at each text) or not (all reopened at each <b>)", () => {
    const pages = {
      reopened: page(100_000, (i) => `<div><b id=${i}></div>x`),
      eight: page(3_000, (i) => `<div><b ${attrs(8, i)}></div>x`),
      paragraphs: page(3_000, (i) => `<p><b ${attrs(8, i)}></p>`),
      plain: page(3_000, (i) => `<p><b id=${i}></p>`),
    };
    for (const [name, html] of Object.entries(pages)) {
      expect(() => load(html), name).toThrow(TooManyFormattingElements);
      expect(work(), name).toBeLessThan(3 * FORMATTING_BUDGET);
      expect(extractPage(enc(html), URL_, RECIPE).note, name).toMatch(NOTE);
    }
  });

  it("P14: what ordinary pages never come near is read whole and spends nothing: formatting elements alike or few, and every fixture page; the count starts anew at each parse", () => {
    const ordinary = {
      // Unclosed <font> before each line: alike, so parse5 keeps three of them listed.
      fonts: page(2_000, () => "<font size=2>line<br>\n"),
      // As many different <b>s left open as are free in one step.
      few: page(FORMATTING_FREE - 2, (i) => `<div><b id=${i}></div>x`),
      // Formatting closed as it should be, however much of it.
      closed: page(5_000, (i) => `<div><b ${attrs(8, i)}>x</b></div>`),
    };
    for (const [name, html] of Object.entries(ordinary)) {
      const x = extractPage(enc(html), URL_, RECIPE);
      expect(x.note, name).toBeUndefined();
      expect(x.records, name).toHaveLength(1);
      expect(formattingWork()?.spent, name).toBe(0);
    }
    const roots = [
      join(import.meta.dirname, "..", "..", "fixtures"),
      join(import.meta.dirname, "..", "..", "..", "..", "shared", "fixtures", "platforms"),
    ];
    let files = 0;
    for (const root of roots) {
      for (const f of readdirSync(root, { recursive: true, encoding: "utf8" })) {
        if (!f.endsWith(".html")) continue;
        load(decodeBody(readFileSync(join(root, f))));
        expect(formattingWork()?.spent, f).toBe(0);
        files++;
      }
    }
    expect(files).toBeGreaterThanOrEqual(50);
    // A page read after a refused one is read whole.
    expect(() => load(page(3_000, (i) => `<p><b id=${i}></p>`))).toThrow(TooManyFormattingElements);
    expect(load(page(3, (i) => `<p><b id=${i}></p>`))("li a").text()).toBe("Road salt");
    expect(formattingWork()).toEqual({ spent: 0, work: expect.any(Number) });
    expect(FORMATTING_BUDGET).toBe(1_000_000);
  });
});
