import { describe, expect, it } from "vitest";
import { MAX_ROWS } from "../../src/sources/extract/download-xlsx.js";
import { extractFeed } from "../../src/sources/extract/feed.js";

/**
 * tbombs: a feed has no bound on its items. Measured on dist (extractWay): a 19 MB RSS feed of
 * 360,000 distinct tiny items took 5.6 s of CPU and 650 MB and gave 360,000 records; the same
 * size of one repeated item 7.6 s and 660 MB; an Atom feed of tiny entries 7.2 s and 870 MB; a
 * 19 MB JSON Feed 5.8 s. An XLSX sheet stops at MAX_ROWS rows and says so (download-xlsx.ts); a
 * feed should be bounded the same way (P13, P14): at most MAX_ROWS records and a note.
 */
describe("tbombs: a feed of very many items", () => {
  it("P14: an RSS feed of MAX_ROWS + 1 items keeps at most MAX_ROWS records, with a note", () => {
    // One item past the bound: the least that must be cut (a cut a row late would keep it all).
    const n = MAX_ROWS + 1;
    const items: string[] = [];
    for (let i = 0; i < n; i++)
      items.push(`<item><title>Notice ${i}</title><link>https://ex.test/n/${i}</link></item>`);
    const body = new TextEncoder().encode(
      `<?xml version="1.0"?><rss version="2.0"><channel><title>t</title><link>https://ex.test/</link>${items.join("")}</channel></rss>`,
    );
    const x = extractFeed(body, "https://ex.test/feed.xml");
    expect(x.records.length).toBeGreaterThan(0);
    expect(x.records.length).toBeLessThanOrEqual(MAX_ROWS);
    expect(x.note ?? "").toMatch(String(MAX_ROWS));
  });
});
