import { describe, expect, it } from "vitest";
import { extractDownload } from "../../src/sources/extract/download.js";
import { MAX_XML_BYTES, readSheetRows } from "../../src/sources/extract/download-xlsx.js";
import { zipByHand } from "../sources/extract/zip-by-hand.js";

function workbook(sharedText: string, rows: number): Uint8Array {
  const row = (i: number) =>
    `<row><c t="inlineStr"><is><t>${i}</t></is></c><c t="s"><v>0</v></c></row>`;
  const header =
    '<row><c t="inlineStr"><is><t>Id</t></is></c><c t="inlineStr"><is><t>Title</t></is></c></row>';
  return zipByHand([
    {
      name: "xl/workbook.xml",
      data: '<workbook xmlns:r="r"><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>',
    },
    {
      name: "xl/_rels/workbook.xml.rels",
      data: '<Relationships><Relationship Id="rId1" Target="worksheets/sheet1.xml"/></Relationships>',
    },
    { name: "xl/sharedStrings.xml", data: `<sst><si><t>${sharedText}</t></si></sst>` },
    {
      name: "xl/worksheets/sheet1.xml",
      data: `<worksheet><sheetData>${header}${Array.from({ length: rows }, (_, i) => row(i)).join("")}</sheetData></worksheet>`,
    },
  ]);
}

/**
 * A shared string is written once and read in every cell that names it: one of 1 MB named by
 * 2,000 rows (a file of 7 kB) made 2,000 records of a 1 MB title, 8.3 s of CPU to extract with
 * the event loop held (recordId hashes each title, shownText reads it); 20 MB named by the
 * MAX_ROWS rows (all of it within the XML cap, a zip of some hundred kB) would hold the night
 * for hours, its deadline with it (P13). The rows may read out a few times the XML cap at most.
 */
describe("revsuitecut: a long shared string named by many cells of an XLSX", () => {
  it("P13, P14: the rows never read out more than four times the XML cap of text; past it, the sheet is not read", () => {
    const body = workbook("y".repeat(1_000_000), 200);
    expect(body.length).toBeLessThan(10_000);
    const read = readSheetRows(body, {});
    const total = read.ok
      ? read.rows.reduce((n, r) => n + Object.values(r).reduce((m, v) => m + v.length, 0), 0)
      : 0;
    expect(total).toBeLessThanOrEqual(4 * MAX_XML_BYTES);
    expect(read).toMatchObject({ ok: false, why: expect.stringMatching(/shared strings/) });
    const x = extractDownload(body, "https://county.example.gov/a.xlsx", {
      title: "Title",
      id: "Id",
    });
    expect(x.records).toEqual([]);
    expect(x.note).toMatch(/^not a readable XLSX file \(/);
  });

  it("P4: a shared string named by many rows, within the bound, is read in each", () => {
    const read = readSheetRows(workbook("Road salt", 500), {});
    expect(read.ok && read.rows.length).toBe(500);
    expect(read.ok && read.rows[499]).toEqual({ Id: "499", Title: "Road salt" });
  });
});
