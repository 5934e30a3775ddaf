import { describe, expect, it } from "vitest";
import type { PageRecipe, WayIn } from "../../../src/sources/catalog/types.js";
import { discoverCandidates } from "../../../src/sources/discover.js";
import {
  ATTRIBUTES_FREE,
  load,
  TooManyAttributes,
} from "../../../src/sources/extract/cheerio-load.js";
import { buildFormRequest, nextPagerRequest } from "../../../src/sources/extract/form.js";
import { extractWay } from "../../../src/sources/extract/index.js";
import { extractPage } from "../../../src/sources/extract/page.js";
import { mostAttributes } from "./tree-measure.js";

/**
 * parse5's tokenizer looks through a tag's attributes for each new one, so a tag costs about
 * the square of its attributes: one `<div>` of 20,000 attributes (170 kB) held the event loop
 * for a second, and a page of a few hundred such tags under the 20 MiB limit would hold the
 * night (every lane's timers, its deadline) for minutes. The attributes are counted where the
 * tokenizer adds them (src/sources/extract/cheerio-load.ts): past ATTRIBUTES_FREE on one
 * element each costs how many it follows beyond that, and a page that spends ATTRIBUTES_BUDGET
 * is not read, with a note saying why.
 */
const enc = (s: string) => new TextEncoder().encode(s);
const URL_ = "https://city.example.gov/bids";
const RECIPE: PageRecipe = { items: "li", title: "a", link: "a", date: "span" };
const ITEM = `<ul><li><a href="/x">Road salt</a> <span>11/01/2026</span></li></ul>`;
const NOTE =
  /^the page gives its elements too many attributes to read without holding up the night \(stopped at attribute number [\d,]+ of one element; past 64 on one element each costs more, up to 10,000,000 in all\)$/;

/** An element of `n` attributes (`a0=x a1=x …`, or all one name when `same`). */
const tag = (n: number, name = "div", same = false) =>
  `<${name} ${Array.from({ length: n }, (_, i) => (same ? "a=x" : `a${i}=x`)).join(" ")}>`;

const page = (inner: string) => `<!doctype html><html><body>${inner}${ITEM}</body></html>`;

describe("P13, P14: a page of too many attributes is refused, not parsed for minutes", () => {
  it("P13, P14: one element of 20,000 attributes is not read: no records, the note saying why, and a later way is still tried", () => {
    const html = page(`${tag(20_000)}</div>`);
    const x = extractPage(enc(html), URL_, RECIPE);
    expect(x.records).toEqual([]);
    expect(x.note).toMatch(NOTE);
    expect(x.notThisWay).toBe(true);
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

  it("P14: it is the page's total that is bounded: many elements of 3,000 attributes each are refused, one is read; a name given again is found at once and not counted", () => {
    // Each such element spends about 4.3 million: three go past the budget.
    expect(extractPage(enc(page(`${tag(3_000)}</div>`.repeat(3))), URL_, RECIPE).note).toMatch(
      NOTE,
    );
    const one = extractPage(enc(page(`${tag(3_000)}</div>`)), URL_, RECIPE);
    expect(one.note).toBeUndefined();
    expect(one.records).toHaveLength(1);
    // The same name 20,000 times: each found at once among the one kept, and not counted.
    expect(mostAttributes(load(page(`${tag(20_000, "div", true)}</div>`)).root()[0]!)).toBe(1);
    // End tags, on which attributes mean nothing, are tokenized the same way.
    expect(() => load(page(`<div></div ${tag(20_000, "x").slice(3)}`))).toThrow(TooManyAttributes);
  });

  it("P14: what ordinary pages never come near is read whole: 2,000 records of 64 attributes each, and the count starts anew at each parse", () => {
    const rows = Array.from(
      { length: 2_000 },
      (_, i) =>
        `<li ${Array.from({ length: ATTRIBUTES_FREE - 1 }, (_, j) => `data-${j}=${i}`).join(" ")}><a href="/r/${i}">Record ${i}</a> <span>11/01/2026</span></li>`,
    ).join("");
    const wide = extractPage(enc(`<ul>${rows}</ul>`), URL_, RECIPE);
    expect(wide.note).toBeUndefined();
    expect(wide.records).toHaveLength(2_000);
    expect(() => load(page(`${tag(20_000)}</div>`))).toThrow(TooManyAttributes);
    expect(load(page(`${tag(3_000)}</div>`))("li a").text()).toBe("Road salt");
    expect(mostAttributes(load(page(`${tag(3_000)}</div>`)).root()[0]!)).toBe(3_000);
  });

  it("P13, P14: a form page of too many attributes sends no search (its reason the error), a result page of them turns no page, and a homepage of them offers no candidates", () => {
    const form = `<form action="/search" method="post"><input name="q" value="x">${tag(20_000, "input")}</form>`;
    const NO_FIELDS = { fields: {} };
    expect(() => buildFormRequest(enc(page(form)), URL_, NO_FIELDS, Date.UTC(2026, 10, 1))).toThrow(
      NOTE,
    );
    const pager = `<form action="/r" method="post"><a href="javascript:__doPostBack('g','Page$2')">2</a>${tag(20_000, "i")}</i></form>`;
    expect(nextPagerRequest(enc(page(pager)), URL_, NO_FIELDS, 1)).toBeUndefined();
    expect(discoverCandidates(page(`${tag(20_000, "a")}</a>`), URL_)).toEqual([]);
  });
});
