import { describe, expect, it } from "vitest";
import { extractDownload } from "../../src/sources/extract/download.js";
import { MAX_ROWS } from "../../src/sources/extract/download-xlsx.js";

/**
 * tbombs: an XLSX sheet is read to MAX_ROWS rows and says so; a CSV download has no such bound.
 * Measured on dist: a 19.5 MB CSV of 1,500,000 rows `a,2024-01-01` took 11 s of CPU and 900 MB;
 * 775,000 distinct rows (19 MB) became 775,000 records in 6.3 s and 630 MB; a 16 MB file of
 * `\r`-ended lines (4,000,000 rows) 23 s and 1.5 GB. One night's single event loop held that long
 * (P13, P14). The outcome asked for here is the XLSX reader's: at most MAX_ROWS rows kept, and a
 * note saying the rest were not read.
 */
describe("tbombs: a CSV download of very many rows", () => {
  it("P14: keeps at most MAX_ROWS records and says the rest were not read", () => {
    // One row past the bound: the least that must be cut (a cut a row late would keep it all).
    const n = MAX_ROWS + 1;
    const lines = ["Title,Date,Id"];
    for (let i = 0; i < n; i++) lines.push(`Notice ${i},2024-01-01,${i}`);
    const body = new TextEncoder().encode(lines.join("\n"));
    const x = extractDownload(body, "https://ex.test/list.csv", {
      title: "Title",
      date: "Date",
      id: "Id",
    });
    expect(x.records.length).toBeGreaterThan(0);
    expect(x.records.length).toBeLessThanOrEqual(MAX_ROWS);
    expect(x.note ?? "").toMatch(String(MAX_ROWS));
  });

  it("P14: `\\r`-only line ends count as rows for the same bound", () => {
    const n = MAX_ROWS + 1;
    const lines = ["Title,Id"];
    for (let i = 0; i < n; i++) lines.push(`Notice ${i},${i}`);
    const body = new TextEncoder().encode(lines.join("\r"));
    const x = extractDownload(body, "https://ex.test/list.csv", { title: "Title", id: "Id" });
    expect(x.records.length).toBeLessThanOrEqual(MAX_ROWS);
    expect(x.note ?? "").toMatch(String(MAX_ROWS));
  });
});
