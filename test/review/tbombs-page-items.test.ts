import { describe, expect, it } from "vitest";
import { MAX_ROWS } from "../../src/sources/extract/download-xlsx.js";
import { extractPage } from "../../src/sources/extract/page.js";

/**
 * tbombs: a page read by a recipe has no bound on the items its `items` selector matches, and
 * each costs tens of µs (suitecut measured 65–95 µs per record). Measured on dist (extractWay): a
 * 19 MB page of 320,000 distinct `<li><a href>…</a> <span>date</span></li>` items took 24 s of
 * CPU and 1.45 GB and gave 320,000 records; 19 MB of one repeated `<li><a href='/x'>a</a></li>`
 * (730,000 items) 36 s and 2 GB; 19 MB of `<i>a</i>` with `items: "i"` (2,400,000 items) did not
 * finish in 60 s. One night's event loop held that long (P13, P14). The outcome asked for is an
 * XLSX sheet's (download-xlsx.ts): at most MAX_ROWS records, and a note saying the rest were not
 * read.
 */
describe("tbombs: a page whose recipe matches very many items", () => {
  it("P14: keeps at most MAX_ROWS records and says so", { timeout: 120_000 }, () => {
    // One item past the bound: the least that must be cut (a cut a row late would keep it all).
    const n = MAX_ROWS + 1;
    const items: string[] = [];
    for (let i = 0; i < n; i++) items.push(`<li><a href="/n/${i}">Notice ${i}</a></li>`);
    const body = new TextEncoder().encode(
      `<!doctype html><html><body><ul>${items.join("")}</ul></body></html>`,
    );
    const x = extractPage(body, "https://ex.test/list", { items: "li", title: "a", link: "a" });
    expect(x.records.length).toBeGreaterThan(0);
    expect(x.records.length).toBeLessThanOrEqual(MAX_ROWS);
    expect(x.note ?? "").toMatch(String(MAX_ROWS));
  });
});
