import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { AnyNode } from "domhandler";
import { describe, expect, it } from "vitest";
import { decodeBody } from "../../../src/policy/body-text.js";
import type { PageRecipe, WayIn } from "../../../src/sources/catalog/types.js";
import {
  ATTRIBUTES_BUDGET,
  ATTRIBUTES_FREE,
  load,
  NESTING_BUDGET,
  NESTING_FREE_DEPTH,
  TooDeeplyNested,
} from "../../../src/sources/extract/cheerio-load.js";
import { extractDownload } from "../../../src/sources/extract/download.js";
import { readSheetRows } from "../../../src/sources/extract/download-xlsx.js";
import { buildFormRequest, nextPagerRequest } from "../../../src/sources/extract/form.js";
import { extractWay } from "../../../src/sources/extract/index.js";
import { extractPage } from "../../../src/sources/extract/page.js";
import { mostAttributes } from "./tree-measure.js";
import { zipByHand } from "./zip-by-hand.js";

/**
 * A page nested deep enough to make the HTML parser quadratic (parse5 looks down its stack of
 * open elements at nearly every tag) held the event loop, and the whole night with it, for
 * minutes: an outside tester's 200,000 nested `<div>`s (2.2 MB) made a night of 30 s take
 * 511 s. The parser's own stack is counted now (src/sources/extract/cheerio-load.ts): past
 * NESTING_FREE_DEPTH each element costs its depth beyond it, and a page that spends
 * NESTING_BUDGET is not read, with a note saying why.
 */
const enc = (s: string) => new TextEncoder().encode(s);
const URL_ = "https://city.example.gov/bids";
const RECIPE: PageRecipe = { items: "li", title: "a", link: "a", date: "span" };
const ITEM = `<ul><li><a href="/x">Road salt</a> <span>11/01/2026</span></li></ul>`;
const NOTE =
  /^the page nests its elements too deeply to read without holding up the night \(stopped [\d,]+ levels deep; past 256 levels a page may nest 10,000,000 element-levels in all\)$/;

const FORMATTING_NOTE =
  /^the page leaves too many formatting elements open to read without holding/;

/** `inner` inside `depth` nested `<div>`s, as the tester's page was built. */
const nested = (depth: number, inner = ITEM) =>
  `<!doctype html><html><body>${"<div>".repeat(depth)}${inner}${"</div>".repeat(depth)}</body></html>`;

/** How deep the parsed tree goes (the document's children are at depth 1). */
function deepest(node: AnyNode): number {
  let max = 0;
  const walk: [AnyNode, number][] = [[node, 0]];
  for (let next = walk.pop(); next; next = walk.pop()) {
    const [n, d] = next;
    if (d > max) max = d;
    if ("children" in n) for (const c of n.children) walk.push([c, d + 1]);
  }
  return max;
}

describe("P13, P14: a page nested too deeply is refused, not parsed for minutes", () => {
  it("P13, P14: the outside tester's page of 200,000 nested <div>s is not read: no records, the note saying why, and a later way is still tried", () => {
    const x = extractPage(enc(nested(200_000)), URL_, RECIPE);
    expect(x.records).toEqual([]);
    expect(x.note).toMatch(NOTE);
    expect(x.notThisWay).toBe(true);
    // The same through the night's reader (dispatch), with the note kept as one line.
    const way: WayIn = { access: "page", url: URL_, extract: RECIPE };
    const w = extractWay(way, enc(nested(200_000)), URL_);
    expect(w).toEqual({ records: [], note: x.note, notThisWay: true });
  });

  it("P13, P14: a preset's page is bounded the same way (the presets parse through the same load)", () => {
    const way: WayIn = { access: "page", url: URL_, platform: "civicplus-agendacenter" };
    const x = extractWay(way, enc(nested(200_000)), URL_);
    expect(x.records).toEqual([]);
    expect(x.note).toMatch(NOTE);
    expect(x.notThisWay).toBe(true);
  });

  it("P13, P14: tricks that nest without nested tags are counted as the parser nests them: misnested end tags, reopened formatting, self-closing divs, tables in cells", () => {
    const pages = {
      // </span> cannot close past a <div>: every pair nests two deeper.
      misnested: "<span><div></span>".repeat(100_000),
      // The formatting element left open is reopened inside the next block, and kept.
      reopened: Array.from({ length: 100_000 }, (_, i) => `<div><b id=${i}></div>x`).join(""),
      // `/>` means nothing on an HTML element: each <div/> opens one more.
      selfClosing: "<div/>".repeat(200_000),
      cells: "<table><tr><td>".repeat(100_000),
      // Unclosed <font> before each line, as old generated pages write them.
      fonts: "<font size=2>line<br>\n".repeat(200_000),
    };
    for (const [name, html] of Object.entries(pages)) {
      const x = extractPage(enc(`<body>${html}${ITEM}`), URL_, RECIPE);
      // The reopened <b>s spend the formatting elements' budget first, sooner than the nesting
      // one (formatting.test.ts): refused all the same.
      expect(x.note, name).toMatch(name === "reopened" ? FORMATTING_NOTE : NOTE);
      expect(x.records, name).toEqual([]);
    }
  });

  it("P14: it is depth times breadth that is bounded: 1,000 levels deep around 20,000 elements is refused, around 2,000 read", () => {
    const many = (n: number) =>
      `<ul>${Array.from({ length: n }, (_, i) => `<li><a href="/y/${i}">y</a></li>`).join("")}</ul>${ITEM}`;
    expect(extractPage(enc(nested(1_000, many(20_000))), URL_, RECIPE).note).toMatch(NOTE);
    expect(extractPage(enc(nested(1_000, many(2_000))), URL_, RECIPE).records).toHaveLength(2_001);
  });

  it("P14: what ordinary pages never come near is read whole: 3,000 levels around one list, and 256 levels around 20,000 records", () => {
    const x = extractPage(enc(nested(3_000)), URL_, RECIPE);
    expect(x.note).toBeUndefined();
    expect(x.records).toEqual([
      {
        id: "https://city.example.gov/x",
        title: "Road salt",
        url: "https://city.example.gov/x",
        date: "2026-11-01",
      },
    ]);
    // Up to the free depth nothing is counted, however long the page.
    const rows = Array.from(
      { length: 20_000 },
      (_, i) => `<li><a href="/r/${i}">Record ${i}</a> <span>11/01/2026</span></li>`,
    ).join("");
    // <html>, <body>, <ul>, <li> and <a> make up the rest of the free depth.
    const page = nested(NESTING_FREE_DEPTH - 5, `<ul>${rows}</ul>`);
    const wide = extractPage(enc(page), URL_, RECIPE);
    expect(wide.note).toBeUndefined();
    expect(wide.records).toHaveLength(20_000);
    // The deepest element at the free depth, its text one below.
    expect(deepest(load(page).root()[0]!)).toBe(NESTING_FREE_DEPTH + 1);
  });

  it("P14: the count starts anew at each parse: a page read after a refused one is read whole", () => {
    expect(() => load(nested(200_000))).toThrow(TooDeeplyNested);
    expect(load(nested(3_000))("li a").text()).toBe("Road salt");
    const $ = load("<p>x</p>");
    // A fragment parsed by the same `$` is counted on its own too.
    expect($("<div><b>y</b></div>").find("b").text()).toBe("y");
  });

  it("P14: no real fixture page nests anywhere near the free depth, nor carries near the free count of attributes, so none spends any budget", () => {
    const root = join(import.meta.dirname, "..", "..", "fixtures");
    const files = readdirSync(root, { recursive: true, encoding: "utf8" }).filter((f) =>
      f.endsWith(".html"),
    );
    expect(files.length).toBeGreaterThanOrEqual(50);
    let max = 0;
    let attributes = 0;
    for (const f of files) {
      const top = load(decodeBody(readFileSync(join(root, f)))).root()[0]!;
      max = Math.max(max, deepest(top));
      attributes = Math.max(attributes, mostAttributes(top));
    }
    expect(max).toBeLessThan(NESTING_FREE_DEPTH / 4);
    expect(NESTING_BUDGET).toBe(10_000_000);
    // Nor does any carry near the free count of attributes on one element (attributes.test.ts).
    expect(attributes).toBeLessThan(ATTRIBUTES_FREE / 2);
    expect(ATTRIBUTES_BUDGET).toBe(10_000_000);
  });

  it("P13, P14: a form page nested too deeply is no search sent (its reason the note), and a result page so nested turns no page", () => {
    const form = `<form action="/search" method="post"><input name="q" value="x"></form>`;
    const NO_FIELDS = { fields: {} };
    const deep = enc(nested(200_000, form));
    expect(() => buildFormRequest(deep, URL_, NO_FIELDS, Date.UTC(2026, 10, 1))).toThrow(NOTE);
    const pager = `<form action="/r" method="post"><a href="javascript:__doPostBack('g','Page$2')">2</a></form>`;
    expect(nextPagerRequest(enc(nested(200_000, pager)), URL_, NO_FIELDS, 1)).toBeUndefined();
    // The control: the same pages, shallow, send and turn.
    expect(
      buildFormRequest(enc(nested(3, form)), URL_, NO_FIELDS, Date.UTC(2026, 10, 1)).method,
    ).toBe("POST");
    expect(nextPagerRequest(enc(nested(3, pager)), URL_, NO_FIELDS, 1)?.body).toContain("Page%242");
  });
});

describe("P13, P14: an XLSX sheet nested too deeply is refused as a page is", () => {
  const workbook = (sheet: string) =>
    zipByHand([
      {
        name: "xl/workbook.xml",
        data: enc(
          '<workbook xmlns:r="r"><sheets><sheet name="Bids" sheetId="1" r:id="rId1"/></sheets></workbook>',
        ),
      },
      {
        name: "xl/_rels/workbook.xml.rels",
        data: enc(
          '<Relationships><Relationship Id="rId1" Target="worksheets/sheet1.xml"/></Relationships>',
        ),
      },
      { name: "xl/worksheets/sheet1.xml", data: enc(sheet) },
    ]);
  const rows = `<row r="1"><c r="A1" t="inlineStr"><is><t>Bid Title</t></is></c></row><row r="2"><c r="A2" t="inlineStr"><is><t>Road salt</t></is></c></row>`;
  const sheet = (depth: number) =>
    `<worksheet><sheetData>${rows}</sheetData>${"<x>".repeat(depth)}${"</x>".repeat(depth)}</worksheet>`;

  it("P13, P14: a sheet of 200,000 nested elements is not read, the note saying why; the same sheet shallow is", () => {
    const deep = readSheetRows(workbook(sheet(200_000)), {});
    expect(deep).toEqual({
      ok: false,
      why: expect.stringMatching(
        /^its XML nests its elements too deeply to read without holding up the night \(stopped [\d,]+ levels deep;/,
      ),
    });
    const x = extractDownload(workbook(sheet(200_000)), URL_, { title: "Bid Title" });
    expect(x.records).toEqual([]);
    expect(x.note).toMatch(/^not a readable XLSX file \(its XML nests its elements too deeply/);
    expect(x.notThisWay).toBe(true);
    const shallow = extractDownload(workbook(sheet(3)), URL_, { title: "Bid Title" });
    expect(shallow.records.map((r) => r.title)).toEqual(["Road salt"]);
  });
});
