import { describe, expect, it } from "vitest";
import { buildFormRequest } from "../../src/sources/extract/form.js";

/**
 * tbombs: reading a form's controls is quadratic in their number. Measured on dist
 * (buildFormRequest, a form of N `<input name=a value=1>`): 10,000 inputs 1.4 s of CPU, 20,000
 * 4.2 s, 40,000 (880 KB) 16–25 s; 800,000 (17.6 MB, under the 20 MiB body limit) did not finish
 * in 290 s. The parse itself is quick (load() of 20,000 inputs: 0.17 s); the time is in
 * formEntries (src/sources/extract/form.ts ~line 46: 2.6 s for 20,000), and nearly all of that is
 * its first call, `form.find("input, select, textarea")`: cheerio's `.find` from the form over
 * 20,000 sibling inputs alone took 2.2 s (even `.find("input")`), while the per-control calls
 * (attr, is, closest) took 0.7 s together. A guess: css-select's search from a context element
 * (or its document-order sort of the matches) does work per sibling for each match. No work counter reaches into it, so this test is sized
 * for the suite's own time limit (60 s, vitest.config.ts) instead of a time of its own (never a
 * wall-time assertion): 90,000 inputs cost some 80–125 s on the old code (the square of 40,000's
 * 16–25 s), a few seconds read in one walk (descendants.ts). P13, P14.
 */
describe("tbombs: a form with tens of thousands of inputs", () => {
  it("P14: 90,000 inputs are read into the request by one walk, not a search per control", () => {
    const page = new TextEncoder().encode(
      `<!doctype html><html><body><form method="post" action="/s">${'<input name="a" value="1">'.repeat(90_000)}</form></body></html>`,
    );
    const r = buildFormRequest(page, "https://ex.test/f", { fields: {} }, 0);
    expect(r.method).toBe("POST");
    expect((r.body ?? "").length).toBeLessThanOrEqual(4 * 90_000);
  });
});
