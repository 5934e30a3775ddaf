import { describe, expect, it } from "vitest";
import { extractPage } from "../../src/sources/extract/page.js";

/**
 * tbombs: cheerio's `.find()` from an element is quadratic in the number of elements it matches
 * there. Measured on dist (cheerio-load.ts load(), then `$("div").find("i")` over N sibling
 * `<i>`): 10,000 → 0.45 s, 20,000 → 3.4 s, 40,000 → 7.7 s of CPU, where `$("div i")` took 0.02 s
 * for the same 40,000. page.ts hrefOf (~line 25: `item.find("a[href]").first()`, a recipe
 * without `link`) runs it inside one item, so a single item holding 40,000 links (640 KB) holds
 * the night's event loop for seconds, and a 19 MB item of links for hours. The same call shape is
 * in form.ts formEntries (tbombs-form-inputs.test.ts), support/aspnet.ts and several presets.
 * No work counter reaches into cheerio, so this test is sized for the suite's own time limit (60 s,
 * vitest.config.ts) instead of a time of its own (never a wall-time assertion): 100,000 links cost
 * some 100 s on the old code (the square of 40,000's 16 s), about a second in one walk. P13, P14.
 */
describe("tbombs: one page item holding 100,000 links", () => {
  it("P14: the item's first link is found by one walk, not a search over every link", () => {
    const links = '<a href="/n/1">x</a>'.repeat(100_000);
    const body = new TextEncoder().encode(
      `<!doctype html><html><body><div class="item"><h2>Notice</h2>${links}</div></body></html>`,
    );
    const x = extractPage(body, "https://ex.test/list", { items: "div.item", title: "h2" });
    expect(x.records.map((r) => r.url)).toEqual(["https://ex.test/n/1"]);
  });
});
