import { describe, expect, it } from "vitest";
import { parseCatalog } from "../../src/sources/catalog/load.js";
import { cssProblem } from "../../src/sources/extract/selector-check.js";
import { problems } from "./catalog-problems.js";

const GOV = `governments:
  - { id: city-of-akron, name: City of Akron, kind: city }
`;

const WORDS = "not a CSS selector the reader can use";

describe("a catalog's CSS selectors are read when it is loaded", () => {
  it("refuses a page recipe's items the reader cannot parse, at its line and field, in the parser's words", () => {
    const text = `${GOV}sources:
  - id: akron-agendas
    government: city-of-akron
    records: agendas
    url: https://www.akronohio.gov/agendas
    extract: { items: 'li[[[' }
`;
    expect(problems(text)).toEqual([
      `cat.yaml:8:23: sources[0].extract.items: ${WORDS}: Expected name, found [[`,
    ]);
  });

  it("checks every field (the CSS of `sel@attr`), alternates and a form's selector, each problem at its place", () => {
    const text = `${GOV}sources:
  - id: akron-agendas
    government: city-of-akron
    records: agendas
    url: https://www.akronohio.gov/agendas
    extract:
      items: tr
      title: "td:foo"
      date: "time[[@datetime"
      link: "a@href"
      id: "@data-id"
      kind: ":scope"
      next: "a:contains('Next'),"
    alternates:
      - access: form
        url: https://www.akronohio.gov/search
        form: { selector: "form::before" }
        extract: { items: "tr:first td:bar" }
`;
    expect(problems(text)).toEqual([
      `cat.yaml:10:14: sources[0].extract.title: ${WORDS}: Unknown pseudo-class :foo`,
      // Brackets left open: the `@` is the CSS's, so the whole is CSS, as the reader takes it.
      `cat.yaml:11:13: sources[0].extract.date: ${WORDS}: Expected name, found [@datetime`,
      `cat.yaml:15:13: sources[0].extract.next: ${WORDS}: Empty sub-selector`,
      `cat.yaml:19:27: sources[0].alternates[0].form.selector: ${WORDS}: Pseudo-elements are not supported by css-select`,
      `cat.yaml:20:27: sources[0].alternates[0].extract.items: ${WORDS}: Unknown pseudo-class :bar`,
    ]);
  });

  it("accepts the selectors cheerio reads: positionals, :contains, :has, `@` inside CSS, :scope", () => {
    const text = `${GOV}sources:
  - id: akron-agendas
    government: city-of-akron
    records: agendas
    url: https://www.akronohio.gov/agendas
    extract:
      items: "#fileList tr:has(> td > a[href*='I_Library.php']), li:eq(2)"
      title: "td:first-child a:first"
      date: "td:nth-child(2n+1)@data-date"
      link: 'a[href*="@"]'
      kind: ":scope"
      next: "a:contains('Next'):last"
`;
    expect(parseCatalog(text, "cat.yaml").sources).toHaveLength(1);
  });

  it("says what cheerio says of the same selector", async () => {
    const { load } = await import("../../src/sources/extract/cheerio-load.js");
    const $ = load("<ul><li><a href=x>a</a></li></ul>");
    for (const css of [
      "li[[[",
      "li:foo",
      "a,",
      "li:nth-child(x)",
      ":not(",
      "a::before",
      "li:has(> a:foo)",
    ]) {
      let said: string | undefined;
      try {
        $.root().find(css);
      } catch (e) {
        said = (e as Error).message;
      }
      expect(said).toBeDefined();
      expect(cssProblem(css)).toBe(said);
    }
    for (const css of ["li:first a", "a:contains(x)", "li:eq(1) > a", "td:nth-of-type(2n+1)"]) {
      expect(() => $.root().find(css)).not.toThrow();
      expect(cssProblem(css)).toBeUndefined();
    }
  });
});
