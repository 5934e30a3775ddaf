import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { load } from "../../../src/sources/extract/cheerio-load.js";

/**
 * The engine's cheerio `load` (src/sources/extract/cheerio-load.ts) is the package's own, taken
 * from the file that makes it: the very function cheerio's CommonJS index gives, so every page,
 * form and preset is parsed exactly as through `require("cheerio")`.
 */
describe("cheerio's load, without cheerio's index", () => {
  it("P6: is the function cheerio itself exports, and parses a page as it does", () => {
    const cheerio = createRequire(import.meta.url)("cheerio") as typeof import("cheerio");
    expect(load).toBe(cheerio.load);
    const $ = load(`<ul><li class="bid"><a href="/b/1">Road &amp; salt</a></li></ul>`);
    expect($("li.bid a").text()).toBe("Road & salt");
    expect($("li.bid a").attr("href")).toBe("/b/1");
  });
});
