import { describe, expect, it } from "vitest";
import { extractDownload } from "../../src/sources/extract/download.js";
import { readSheetRows } from "../../src/sources/extract/download-xlsx.js";
import { zipByHand } from "../sources/extract/zip-by-hand.js";

const WORKBOOK = {
  name: "xl/workbook.xml",
  data: '<workbook xmlns:r="r"><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>',
};
const RELS = {
  name: "xl/_rels/workbook.xml.rels",
  data: '<Relationships><Relationship Id="rId1" Target="worksheets/sheet1.xml"/></Relationships>',
};

/** `depth` t elements nested in one another around `text`: each t's text holds all below it. */
const chain = (depth: number, text: string) =>
  `${"<t>".repeat(depth)}${text}${"</t>".repeat(depth)}`;

const sheet = (cell: string) =>
  `<worksheet><sheetData><row><c t="inlineStr"><is><t>Title</t></is></c></row><row>${cell}</row></sheetData></worksheet>`;

/**
 * A `t` inside a `t` is read again inside the other (as cheerio's `find("is t").text()` reads
 * it, and the reader keeps that), so a chain of them nested within the depth a part may nest
 * for free multiplies the text: 250 deep around 100 kB gives 25 MB of one cell's text from a
 * file of a few kB (around 1 MB, a 250-million-character title that took 2.5 s of CPU and half
 * a GB to read; 600 deep, a RangeError out of the reader, the source put down as the checker's
 * own error). What the XML holds bounds what the sheet may read out of it, as the body's cap
 * (P14) bounds the XML.
 */
describe("revsuitecut: t elements nested in one another in an XLSX", () => {
  const limit = (xml: string) => Buffer.byteLength(xml);

  it("P14: an inline string's nested t elements never read out more text than the sheet's XML holds", () => {
    const xml = sheet(`<c t="inlineStr"><is>${chain(250, "x".repeat(100_000))}</is></c>`);
    const body = zipByHand([WORKBOOK, RELS, { name: "xl/worksheets/sheet1.xml", data: xml }]);
    expect(body.length).toBeLessThan(4_000);
    const read = readSheetRows(body, {});
    const text = read.ok ? (read.rows[0]?.["Title"] ?? "") : "";
    expect(text.length).toBeLessThanOrEqual(limit(xml));
    expect(read).toMatchObject({ ok: false, why: expect.stringMatching(/^its XML /) });
    // Through the download reader: a note, no record.
    const x = extractDownload(body, "https://county.example.gov/a.xlsx", { title: "Title" });
    expect(x.records).toEqual([]);
    expect(x.note).toMatch(/^not a readable XLSX file \(its XML /);
  });

  it("P14: nested deeper (600), the reader says so instead of throwing a RangeError", () => {
    const xml = sheet(`<c t="inlineStr"><is>${chain(600, "x".repeat(1_000_000))}</is></c>`);
    const body = zipByHand([WORKBOOK, RELS, { name: "xl/worksheets/sheet1.xml", data: xml }]);
    expect(readSheetRows(body, {})).toMatchObject({
      ok: false,
      why: expect.stringMatching(/^its XML /),
    });
  });

  it("P14: a shared string's nested t elements never read out more text than its part holds", () => {
    const sst = `<sst><si>${chain(250, "y".repeat(100_000))}</si></sst>`;
    const body = zipByHand([
      WORKBOOK,
      RELS,
      { name: "xl/sharedStrings.xml", data: sst },
      { name: "xl/worksheets/sheet1.xml", data: sheet('<c t="s"><v>0</v></c>') },
    ]);
    const read = readSheetRows(body, {});
    const text = read.ok ? (read.rows[0]?.["Title"] ?? "") : "";
    expect(text.length).toBeLessThanOrEqual(limit(sst));
    expect(read).toMatchObject({ ok: false, why: expect.stringMatching(/^its XML /) });
  });

  it("P4: t elements nested a few deep in a small sheet are still read as before", () => {
    const xml = sheet('<c t="inlineStr"><is><t>a<t>b</t></t><is><t>c</t></is></is></c>');
    const body = zipByHand([WORKBOOK, RELS, { name: "xl/worksheets/sheet1.xml", data: xml }]);
    expect(readSheetRows(body, {})).toEqual({
      ok: true,
      rows: [{ Title: "abbc" }],
      truncated: false,
    });
  });
});
