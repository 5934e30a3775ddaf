import type { Cheerio } from "cheerio";
import type { AnyNode } from "domhandler";
import { describe, expect, it } from "vitest";
import { load } from "../../../src/sources/extract/cheerio-load.js";
import {
  descendantsWhere,
  findFirst,
  isLink,
  walkDescendants,
} from "../../../src/sources/extract/descendants.js";

const PAGE = `<!doctype html><html><body>
<div class="item" id="one"><h2>One</h2><p><a name="x">no href</a><span class="date d">1 May</span></p>
  <a href="/1" data-id="7">first</a><div class="item"><a href="/inner">inner</a></div>
  <TD>cell</TD><input NAME="q" type="hidden"></div>
<div class="item" id="two"><svg><a href="/svg">svg link</a></svg><b>two</b></div>
</body></html>`;

describe("descendants: one walk gives what cheerio's .find() gives", () => {
  it("P14: findFirst names the same element as .find(css).first() for compound selectors and others", () => {
    const $ = load(PAGE);
    const selectors = [
      "a[href]",
      "a",
      "h2",
      "span.date",
      ".d",
      "#one",
      "[data-id]",
      "a[href^='/i']",
      "input[name]",
      "div.item",
      "p span",
      "p > a",
      "a:not([href])",
      "td",
      "*",
    ];
    const items: Cheerio<AnyNode>[] = [$("#one"), $("#two"), $("div.item"), $.root()];
    for (const item of items) {
      for (const css of selectors) {
        const want = item.find(css).first().get(0);
        expect(findFirst(item, css).get(0), css).toBe(want);
      }
    }
  });

  it("P14: the walk visits each descendant once, in document order, even when one root holds another", () => {
    const $ = load(PAGE);
    const seen: string[] = [];
    walkDescendants($("div.item").toArray(), (el) => {
      seen.push(el.name);
      return false;
    });
    expect(seen).toEqual(
      $("div.item")
        .find("*")
        .toArray()
        .map((e) => e.name),
    );
  });

  it('P14: descendantsWhere(isLink) lists what .find("a[href]") lists, in the same order', () => {
    const $ = load(PAGE);
    for (const item of [$("#one"), $("#two"), $("div.item"), $("body")])
      expect(descendantsWhere(item.toArray(), isLink)).toEqual(item.find("a[href]").toArray());
  });
});
