import { describe, expect, it } from "vitest";
import {
  FEED_ATTRIBUTES_PER_ELEMENT,
  tooManyFeedAttributes,
} from "../../../src/sources/extract/feed-attributes.js";

const attrs = (n: number, form = (i: number) => ` a${i}="1"`) =>
  Array.from({ length: n }, (_, i) => form(i)).join("");

describe("feed attributes counted before the parse", () => {
  it("P14: an element of FEED_ATTRIBUTES_PER_ELEMENT attributes is read, one more is refused", () => {
    const at = (n: number) => `<rss version="2.0"><channel><item${attrs(n)}/></channel></rss>`;
    expect(tooManyFeedAttributes(at(FEED_ATTRIBUTES_PER_ELEMENT))).toBeUndefined();
    expect(tooManyFeedAttributes(at(FEED_ATTRIBUTES_PER_ELEMENT + 1))).toMatch(
      /too many attributes/,
    );
  });

  it('P14: bare attributes and spaced `a = "1"` count once each', () => {
    const n = FEED_ATTRIBUTES_PER_ELEMENT + 1;
    expect(tooManyFeedAttributes(`<rss${attrs(n, (i) => ` b${i}`)}>`)).toBeDefined();
    expect(tooManyFeedAttributes(`<rss${attrs(n - 1, (i) => ` b${i} = '1'`)}>`)).toBeUndefined();
  });

  it("P14: comments, CDATA, processing instructions, end tags and quoted values are not counted", () => {
    const many = `<b${attrs(FEED_ATTRIBUTES_PER_ELEMENT + 5)}>`;
    const feed = `<?xml version="1.0"?><?pi ${many}?><rss><!-- ${many} --><channel><description><![CDATA[${many}]]></description><title a="${attrs(2_000).replaceAll('"', "")}">t</title></channel></rss>`;
    expect(tooManyFeedAttributes(feed)).toBeUndefined();
  });
});
