import { describe, expect, it } from "vitest";
import { MAX_URL_LENGTH } from "../../../src/policy/constants.js";
import { extractFeed } from "../../../src/sources/extract/feed.js";
import { extractPage } from "../../../src/sources/extract/page.js";

const atom = (feedBase: string, entries: string[]): Uint8Array =>
  new TextEncoder().encode(
    `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom" xml:base="${feedBase}"><title>f</title>${entries.join("")}</feed>`,
  );

/**
 * An outside tester's finding (P13, P14): an Atom feed's xml:base is resolved for every entry
 * and every relative link against it, each a new string as long as the base. A feed of 1.1 MB
 * (a feed xml:base of 1,000,000 characters, 2,000 entries with xml:base="b/") cost 85 s of CPU
 * and 3.9 GB at its peak (measured on dist), the memory the product of the base's length and
 * the entries. A base longer than the longest address the checker asks for (MAX_URL_LENGTH) is
 * no address: it is not used, and links resolve against the base around it, so no record's link
 * is longer than that bound and what it resolved against. The bound is asserted, not the memory.
 */
describe("P13, P14: an Atom xml:base longer than MAX_URL_LENGTH is not used", () => {
  it("P13, P14: a feed xml:base of 100,000 characters under 300 entries with their own xml:base: every link within MAX_URL_LENGTH, resolved against the feed's address", () => {
    const long = `https://ex.test/${"a".repeat(100_000)}/`;
    const entries = Array.from(
      { length: 300 },
      (_, i) => `<entry xml:base="b/"><title>t${i}</title><link href="x${i}"/></entry>`,
    );
    const x = extractFeed(atom(long, entries), "https://ex.test/feed");
    expect(x.records).toHaveLength(300);
    for (const r of x.records) expect((r.url ?? "").length).toBeLessThanOrEqual(MAX_URL_LENGTH);
    expect(x.records[0]?.url).toBe("https://ex.test/b/x0");
  });

  it("P13, P14: an entry's xml:base that resolves past MAX_URL_LENGTH is not used; the feed's is", () => {
    const entries = [
      `<entry xml:base="${"c".repeat(MAX_URL_LENGTH)}/"><title>t</title><link href="x"/></entry>`,
    ];
    const x = extractFeed(atom("https://docs.example.gov/m/", entries), "https://ex.test/feed");
    expect(x.records.map((r) => r.url)).toEqual(["https://docs.example.gov/m/x"]);
  });

  it("P6: a base of exactly MAX_URL_LENGTH characters is used", () => {
    const base = `https://ex.test/${"a".repeat(MAX_URL_LENGTH - "https://ex.test//".length)}/`;
    expect(base).toHaveLength(MAX_URL_LENGTH);
    const x = extractFeed(
      atom(base, ["<entry><title>t</title><link href='x'/></entry>"]),
      "https://ex.test/feed",
    );
    expect(x.records[0]?.url).toBe(`${base}x`);
  });
});

/**
 * The same on a page: its `<base href>` of 1,000,000 characters under 300 relative links cost
 * 11 s of CPU and 390 MB (extractPage on dist), each link as long as the base.
 */
describe("P13, P14: a page's <base href> longer than MAX_URL_LENGTH is not used", () => {
  it("P13, P14: a <base href> of 100,000 characters under 300 links: every link within MAX_URL_LENGTH, resolved against the page's address", () => {
    const long = `https://ex.test/${"a".repeat(100_000)}/`;
    const items = Array.from({ length: 300 }, (_, i) => `<li><a href="x${i}">t${i}</a></li>`);
    const page = new TextEncoder().encode(
      `<html><head><base href="${long}"></head><body><ul>${items.join("")}</ul></body></html>`,
    );
    const x = extractPage(page, "https://ex.test/list", { items: "li", title: "a", link: "a" });
    expect(x.records).toHaveLength(300);
    for (const r of x.records) expect((r.url ?? "").length).toBeLessThanOrEqual(MAX_URL_LENGTH);
    expect(x.records[0]?.url).toBe("https://ex.test/x0");
  });
});
