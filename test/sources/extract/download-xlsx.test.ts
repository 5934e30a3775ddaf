import { constants, deflateRawSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import writeExcelFile, { type SheetData } from "write-excel-file/node";
import { loadXml } from "../../../src/sources/extract/cheerio-load.js";
import { extractDownload } from "../../../src/sources/extract/download.js";
import {
  MAX_ROWS,
  MAX_XML_BYTES,
  readSheetRows,
  serialToText,
} from "../../../src/sources/extract/download-xlsx.js";
import { extractWay } from "../../../src/sources/extract/index.js";
import { zipByHand } from "./zip-by-hand.js";

const xlsx = async (data: SheetData): Promise<Uint8Array> =>
  new Uint8Array(await writeExcelFile(data).toBuffer());

const BIDS: SheetData = [
  ["Bid Number", "Bid Title", "Due Date", "Document"],
  [
    "2026-01",
    "Salt, road",
    // Excel keeps wall-clock time without a zone; the writer stores this UTC reading as such.
    { value: new Date(Date.UTC(2026, 2, 2, 14, 0)), type: Date, format: "mm/dd/yyyy hh:mm" },
    "/bids/2026-01.pdf",
  ],
  // A bare serial number in the date column (no date style), as many exports write it.
  [7, "Culvert pipe", 46090, null],
  [null, null, null, null],
  [
    "2026-03",
    "Summer mowing",
    { value: new Date(Date.UTC(2026, 6, 1)), type: Date, format: "mm/dd/yyyy" },
    "https://county.example.gov/bids/3",
  ],
];
const MAP = { title: "Bid Title", date: "Due Date", id: "Bid Number", link: "Document" };

const enc = (s: string) => new TextEncoder().encode(s);
const WORKBOOK = enc(
  '<workbook xmlns:r="r"><sheets><sheet name="Bids" sheetId="1" r:id="rId1"/></sheets></workbook>',
);
const RELS = enc(
  '<Relationships><Relationship Id="rId1" Target="worksheets/sheet1.xml"/></Relationships>',
);

/**
 * `n` MiB of spaces as one raw deflate stream, built without deflating `n` MiB: one MiB deflated
 * with a full flush (the stream's state reset, its output ending on a byte boundary) gives the
 * same bytes each time, so those bytes `n` times, then the final empty block, inflate to the
 * `n` MiB. Deflating the 200 MiB themselves cost some 0.4 s of CPU for the same bomb.
 */
function deflatedZeros(mib: number): Uint8Array {
  const chunk = Buffer.alloc(1024 * 1024, 0x20);
  const oneMiB = deflateRawSync(chunk, {
    level: constants.Z_BEST_COMPRESSION,
    finishFlush: constants.Z_FULL_FLUSH,
  });
  const end = deflateRawSync(Buffer.alloc(0));
  return new Uint8Array(Buffer.concat([...Array.from({ length: mib }, () => oneMiB), end]));
}

describe("extractDownload: XLSX workbooks (P4)", () => {
  it("P4: reads the first sheet: header names the columns, date cells and serials become New York dates", async () => {
    const x = extractDownload(await xlsx(BIDS), "https://county.example.gov/bids/open.xlsx", MAP);
    expect(x.note).toBeUndefined();
    expect(x.records).toEqual([
      {
        id: "2026-01",
        title: "Salt, road",
        date: "2026-03-02T14:00:00-05:00",
        url: "https://county.example.gov/bids/2026-01.pdf",
      },
      { id: "7", title: "Culvert pipe", date: "2026-03-09" },
      {
        id: "2026-03",
        title: "Summer mowing",
        date: "2026-07-01",
        url: "https://county.example.gov/bids/3",
      },
    ]);
  });

  it("P4: a workbook is told by its bytes (zip with xl/workbook.xml), not by its URL", async () => {
    const body = await xlsx(BIDS);
    for (const url of ["https://x.gov/export?type=bids", "https://x.gov/bids.csv"])
      expect(extractDownload(body, url, MAP).records.map((r) => r.title)).toEqual([
        "Salt, road",
        "Culvert pipe",
        "Summer mowing",
      ]);
    // And the other way: an .xlsx URL that answers something else is said so, not misread.
    expect(extractDownload(enc("a,b\n1,2\n"), "https://x.gov/b.xlsx", MAP).note).toBe(
      "not an XLSX file",
    );
    expect(extractDownload(enc("PK\u0003\u0004rest"), "https://x.gov/bids", MAP).note).toBe(
      "a zip file, not an XLSX workbook",
    );
    const biff = new Uint8Array([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
    expect(extractDownload(biff, "https://x.gov/b.xls", MAP).note).toMatch(/old \.xls \(BIFF\)/);
  });

  it("P4: picks a sheet by name or position and a header row below a title block", async () => {
    const cover: SheetData = [
      ["Lake County bids"],
      ["as of today"],
      ["Title", "When"],
      ["Gravel", "2026-04-01"],
    ];
    const body = new Uint8Array(
      await writeExcelFile([
        { data: [["Notes"], ["nothing here"]], sheet: "Read me" },
        { data: cover, sheet: "Open bids" },
      ]).toBuffer(),
    );
    const spec = { title: "Title", date: "When", headerRow: 3 };
    for (const sheet of ["Open bids", 2]) {
      expect(extractDownload(body, "https://x.gov/f", { ...spec, sheet }).records).toEqual([
        { id: expect.stringMatching(/^h:/), title: "Gravel", date: "2026-04-01" },
      ]);
    }
    expect(extractDownload(body, "https://x.gov/f", { ...spec, sheet: "Closed" }).note).toBe(
      'not a readable XLSX file (no sheet "Closed" (sheets: Read me, Open bids))',
    );
    expect(extractDownload(body, "https://x.gov/f", { title: "Title" }).note).toBe(
      'no row had a "Title" value',
    );
  });

  it("P4: a zip bomb (200 MiB of XML in a 200 KiB file, sizes lied about) is refused under the cap", async () => {
    const bomb = deflatedZeros(200);
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const body = zipByHand([
      { name: "xl/workbook.xml", data: WORKBOOK },
      { name: "xl/_rels/workbook.xml.rels", data: RELS },
      // The directory claims 100 bytes; only zlib's own output cap counts.
      { name: "xl/worksheets/sheet1.xml", data: bomb, method: 8, declared: 100 },
    ]);
    const before = process.memoryUsage().rss;
    const x = extractDownload(body, "https://x.gov/bids.xlsx", MAP);
    expect(x).toEqual({
      records: [],
      note: `not a readable XLSX file (more than ${MAX_XML_BYTES / 1048576} MiB of XML once uncompressed)`,
      notThisWay: true,
    });
    // Inflating stopped at the cap: memory grew by less than the bomb's 200 MiB.
    expect(process.memoryUsage().rss - before).toBeLessThan(150 * 1024 * 1024);
  });

  it(`P4: reads at most ${MAX_ROWS} rows and says so; hand-made parts with prefixes and inline strings read`, () => {
    const row = (i: number) =>
      `<x:row r="${i}"><x:c r="A${i}" t="inlineStr"><x:is><x:t>Item ${i}</x:t></x:is></x:c></x:row>`;
    const rows = [
      '<x:row r="1"><x:c r="A1" t="inlineStr"><x:is><x:t>Title</x:t></x:is></x:c></x:row>',
    ];
    for (let i = 2; i <= MAX_ROWS + 5; i++) rows.push(row(i));
    const sheet = enc(
      `<x:worksheet xmlns:x="m"><x:sheetData>${rows.join("")}</x:sheetData></x:worksheet>`,
    );
    const body = zipByHand([
      { name: "xl/workbook.xml", data: WORKBOOK },
      { name: "xl/_rels/workbook.xml.rels", data: RELS },
      { name: "xl/worksheets/sheet1.xml", data: sheet },
    ]);
    const x = extractDownload(body, "https://x.gov/f", { title: "Title" });
    expect(x.records).toHaveLength(MAX_ROWS);
    expect(x.records[0]?.title).toBe("Item 2");
    expect(x.note).toBe(`only the first ${MAX_ROWS} rows of the sheet were read`);
  });

  it("P4: a cell's text is read off the tree as cheerio's selectors read it: rich runs, comments, CDATA, two values, a t outside its is, a t inside a t", () => {
    const cells = [
      '<c r="A2" t="inlineStr"><is><r><t>Road</t></r><r><rPr/><t xml:space="preserve"> salt</t></r></is></c>',
      '<c r="B2" t="str"><v>12<!-- a comment -->3</v></c>',
      '<c r="C2" t="str"><v><![CDATA[a <b> & c]]></v></c>',
      '<c r="D2" t="str"><v>1</v><f>x</f><v>2</v></c>',
      '<c r="E2" t="inlineStr"><t>not this</t><is><t>but this</t></is></c>',
      '<c r="F2" t="inlineStr"><is><t>a<t>b</t></t><is><t>c</t></is></is></c>',
      '<c r="G2"><v> 7 </v></c>',
      '<c r="H2" t="b"><v>1</v></c>',
    ];
    const names = ["A", "B", "C", "D", "E", "F", "G", "H"];
    const header = names.map((n) => `<c r="${n}1" t="inlineStr"><is><t>${n}</t></is></c>`);
    const xml = `<worksheet><sheetData><row r="1">${header.join("")}</row><row r="2">${cells.join("")}</row></sheetData></worksheet>`;
    const body = zipByHand([
      { name: "xl/workbook.xml", data: WORKBOOK },
      { name: "xl/_rels/workbook.xml.rels", data: RELS },
      { name: "xl/worksheets/sheet1.xml", data: enc(xml) },
    ]);
    const read = readSheetRows(body, {});
    // The same cells read through cheerio's selectors, as the reader once read every cell.
    const $ = loadXml(xml);
    const byCheerio: Record<string, string> = {};
    $("sheetData > row[r=2] > c").each((i, c) => {
      const $c = $(c);
      const t = $c.attr("t");
      const v = $c.children("v").text();
      byCheerio[names[i]!] =
        t === "inlineStr" ? $c.find("is t").text() : t === "b" ? (v === "1" ? "TRUE" : "FALSE") : v;
    });
    expect(read).toEqual({ ok: true, rows: [byCheerio], truncated: false });
    expect(byCheerio).toEqual({
      A: "Road salt",
      B: "123",
      C: "a <b> & c",
      D: "12",
      E: "but this",
      F: "abbc",
      G: " 7 ",
      H: "TRUE",
    });
  });

  it("Excel serials: 1900 system (leap-year bug absorbed) and 1904 system, whole days stay dates", () => {
    expect(serialToText(61)).toBe("1900-03-01");
    expect(serialToText(46083.75)).toBe("2026-03-02T18:00:00");
    expect(serialToText(44621, true)).toBe("2026-03-02");
    expect(serialToText(0)).toBeUndefined();
    expect(serialToText(Number.NaN)).toBeUndefined();
  });

  it("P4: the night's dispatch (extractWay) reads a download way's workbook", async () => {
    const way = { access: "download" as const, url: "https://x.gov/bids", download: MAP };
    const x = extractWay(way, await xlsx(BIDS), way.url);
    expect(x.records.map((r) => r.date)).toEqual([
      "2026-03-02T14:00:00-05:00",
      "2026-03-09",
      "2026-07-01",
    ]);
  });
});
