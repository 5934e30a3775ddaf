/**
 * XLSX downloads (P4: a file the government publishes, preferred over a page), read
 * synchronously because the night's extraction port is synchronous: the workbook, its shared
 * strings and styles and one sheet (ECMA-376 Part 1 §18.2, §18.3, §18.4, §18.8) are taken out
 * of the zip under a cap and parsed with cheerio in XML mode. Rows become header → text maps,
 * so the catalog's column mapping is the CSV one.
 *
 * Limits (a zip bomb must not blow memory): at most MAX_XML_BYTES of XML inflated in all, the
 * cap enforced by zlib while inflating; at most MAX_ROWS data rows read. Nor may a part nest
 * its elements deeper than a page may (cheerio-load.ts): that would hold up the night instead.
 */
import type { AnyNode, Element } from "domhandler";
import { decodeBody } from "../../policy/body-text.js";
import { loadXml, TooCostlyToParse } from "./cheerio-load.js";
import { descendantsWhere } from "./descendants.js";
import { looksLikeZip, readZipEntry, type ZipEntry, zipIndex } from "./download-zip.js";
import { MAX_ROWS } from "./max-rows.js";

export const MAX_XML_BYTES = 32 * 1024 * 1024;
export { MAX_ROWS } from "./max-rows.js";
/**
 * At most this much text (UTF-16 code units) read out of a sheet's rows, counted in the named
 * columns. A shared string is written once and read in every cell that names it: one of 1 MB
 * named by 2,000 rows (a file of 7 kB) made 2,000 records of a 1 MB title and 8.3 s of CPU to
 * extract, the event loop held; 20 MB named by MAX_ROWS rows, hours, and the night's deadline
 * with them (P13). Four times the XML cap leaves a real sheet room (its rows' text a second of
 * CPU downstream at most): a cell that names a shared string costs some 20 bytes of XML, so it
 * takes shared strings of some 80 characters in every cell of a full sheet to come near it.
 */
export const MAX_SHEET_TEXT = 4 * MAX_XML_BYTES;

export interface SheetChoice {
  /** A sheet name, or its 1-based position in the workbook; default the first. */
  sheet?: string | number | undefined;
  /** 1-based row holding the column names; default 1. */
  headerRow?: number | undefined;
  /** The column whose numbers are Excel serial dates even without a date style. */
  dateColumn?: string | undefined;
}

export type SheetRows =
  | { ok: true; rows: Record<string, string>[]; truncated: boolean }
  | { ok: false; why: string };

/** An XLSX is a zip whose directory holds xl/workbook.xml (ECMA-376 Part 2, the package). */
export function isXlsx(body: Uint8Array): boolean {
  if (!looksLikeZip(body)) return false;
  const idx = zipIndex(body);
  return idx.ok && idx.entries.has("xl/workbook.xml");
}

/**
 * Tag prefixes (`x:row`, written by the Open XML SDK) are dropped so selectors stay plain. The
 * parse is bounded in nesting as a page's is (cheerio-load.ts, P13, P14).
 */
const xml = (bytes: Uint8Array) =>
  loadXml(decodeBody(bytes).replace(/<(\/?)[A-Za-z_][\w.-]*:/g, "<$1"));

export function readSheetRows(body: Uint8Array, choice: SheetChoice): SheetRows {
  try {
    return readSheet(body, choice);
  } catch (err) {
    // A part nested too deeply to parse without holding up the night: no sheet read.
    if (err instanceof TooCostlyToParse) return { ok: false, why: `its XML ${err.detail}` };
    throw err;
  }
}

function readSheet(body: Uint8Array, choice: SheetChoice): SheetRows {
  const idx = zipIndex(body);
  if (!idx.ok) return idx;
  let budget = MAX_XML_BYTES;
  const part = (name: string): Uint8Array | undefined | { why: string } => {
    const e: ZipEntry | undefined = idx.entries.get(name);
    if (!e) return undefined;
    const r = readZipEntry(body, e, budget);
    if (!r.ok && r.tooLarge)
      return { why: `more than ${MAX_XML_BYTES / 1048576} MiB of XML once uncompressed` };
    if (!r.ok) return { why: r.why };
    budget -= r.bytes.length;
    return r.bytes;
  };
  const wb = part("xl/workbook.xml");
  if (!(wb instanceof Uint8Array)) return { ok: false, why: whyOf(wb, "no xl/workbook.xml") };
  const $wb = xml(wb);
  const sheets = $wb("sheets > sheet")
    .toArray()
    .map((s) => ({ name: s.attribs["name"] ?? "", rid: s.attribs["r:id"] ?? s.attribs["id"] }));
  const want = choice.sheet ?? 1;
  const chosen =
    typeof want === "number" ? sheets[want - 1] : sheets.find((s) => s.name === want.trim());
  if (!chosen)
    return {
      ok: false,
      why: `no sheet ${JSON.stringify(want)} (sheets: ${sheets.map((s) => s.name).join(", ")})`,
    };
  const rels = part("xl/_rels/workbook.xml.rels");
  if (!(rels instanceof Uint8Array)) return { ok: false, why: whyOf(rels, "no workbook rels") };
  const target = xml(rels)("Relationship")
    .toArray()
    .find((r) => r.attribs["Id"] === chosen.rid)?.attribs["Target"];
  if (!target) return { ok: false, why: `sheet "${chosen.name}" has no part` };
  const sheetPath = target.startsWith("/") ? target.slice(1) : `xl/${target.replace(/^\.\//, "")}`;
  const epoch1904 = /^(1|true)$/.test($wb("workbookPr").attr("date1904") ?? "");
  const strings = part("xl/sharedStrings.xml");
  if (strings && !(strings instanceof Uint8Array)) return { ok: false, why: strings.why };
  const styles = part("xl/styles.xml");
  if (styles && !(styles instanceof Uint8Array)) return { ok: false, why: styles.why };
  const sheet = part(sheetPath);
  if (!(sheet instanceof Uint8Array)) return { ok: false, why: whyOf(sheet, `no ${sheetPath}`) };
  const cells: CellContext = {
    shared: strings ? sharedStrings(strings) : [],
    dateStyles: styles ? dateStyles(styles) : new Set(),
    epoch1904,
    inline: new TextBudget(sheet.length),
  };
  return tableOf(xml(sheet), cells, choice);
}

function whyOf(r: { why: string } | undefined, missing: string): string {
  return r ? r.why : missing;
}

interface CellContext {
  shared: string[];
  /** Indexes into cellXfs whose number format shows a date (§18.8.30, §18.8.31). */
  dateStyles: Set<number>;
  epoch1904: boolean;
  /** The inline strings' text read out of the sheet, bounded by its bytes (TextBudget). */
  inline: TextBudget;
}

/** §18.4.8: plain `<t>` or rich-text runs `<r><t>`; phonetic runs (`rPh`) are not the text. */
function sharedStrings(bytes: Uint8Array): string[] {
  const $ = xml(bytes);
  const budget = new TextBudget(bytes.length);
  return $("sst > si")
    .toArray()
    .map((si) => {
      let text = "";
      for (const t of $(si).find("t").toArray())
        if ($(t).parents("rPh").length === 0) text += budget.take($(t).text());
      return text;
    });
}

/**
 * A `t` inside another is read again inside it (as cheerio reads `find("t")`, and the reader
 * keeps that), so t elements nested in one another multiply their text: 250 deep, within the
 * depth a part nests for free (cheerio-load.ts), around 100 kB made a cell of 25 MB out of a
 * file of a few kB, and 600 deep around 1 MB more than a string may hold (a RangeError out of
 * the reader). Nested so, a part may not read out more text than its own bytes: what a part's
 * text nodes hold once each never comes to more (an entity or a character of several bytes
 * reads as one), so only nesting meets this bound, and the sheet is then not read (P14: its
 * cap on the body bounds what is read out of it).
 */
class TextRepeated extends TooCostlyToParse {
  override name = "TextRepeated";
}

class TextBudget {
  private left: number;
  constructor(private readonly bytes: number) {
    this.left = bytes;
  }

  /** `text`, counted against the part's bytes. */
  take(text: string): string {
    this.left -= text.length;
    if (this.left < 0)
      throw new TextRepeated(
        `nests its t elements in one another, reading out more text than its ${this.bytes.toLocaleString("en-US")} bytes hold`,
      );
    return text;
  }
}

/** Built-in date/time format ids (§18.8.30) and custom codes with d/m/y/h/s outside quotes. */
const BUILTIN_DATE_FORMATS = new Set([14, 15, 16, 17, 18, 19, 20, 21, 22, 45, 46, 47]);
function dateStyles(bytes: Uint8Array): Set<number> {
  const $ = xml(bytes);
  const custom = new Map<number, string>();
  for (const f of $("numFmts > numFmt").toArray())
    custom.set(Number(f.attribs["numFmtId"]), f.attribs["formatCode"] ?? "");
  const out = new Set<number>();
  $("cellXfs > xf").each((i, xf) => {
    const id = Number(xf.attribs["numFmtId"] ?? 0);
    const code = custom.get(id);
    const bare = code?.replace(/"[^"]*"|\[[^\]]*\]|\\./g, "");
    if (BUILTIN_DATE_FORMATS.has(id) || (bare !== undefined && /[dmyhs]/i.test(bare))) out.add(i);
  });
  return out;
}

/** Column letters of `B12` → 1 (0-based). */
function columnOf(ref: string | undefined): number | undefined {
  const m = ref ? /^([A-Z]+)\d+$/i.exec(ref) : null;
  if (!m) return undefined;
  let n = 0;
  for (const ch of m[1]!.toUpperCase()) n = n * 26 + ch.charCodeAt(0) - 64;
  return n - 1;
}

/**
 * An Excel serial date (days since 1899-12-30, which absorbs the 1900 leap-year bug for dates
 * after February 1900; 1462 days later in the 1904 system) as a wall-clock text: date-only
 * for whole days, else `YYYY-MM-DDTHH:MM:SS`, read later in the government's zone (dates.ts).
 */
export function serialToText(serial: number, epoch1904 = false): string | undefined {
  if (!Number.isFinite(serial) || serial < 1 || serial > 2958465) return undefined;
  const ms = Math.round((serial + (epoch1904 ? 1462 : 0)) * 86400) * 1000;
  const d = new Date(Date.UTC(1899, 11, 30) + ms);
  const iso = d.toISOString();
  return Number.isInteger(serial) ? iso.slice(0, 10) : iso.slice(0, 19);
}

type Cell = { text: string; date?: string };

/**
 * A sheet's element children of one name, and their text as cheerio's `.children(name).text()`
 * gives it (domutils' textContent: the text nodes' data in order, comments left out), read off
 * the tree straight: a cheerio object made for each row and each cell cost more than the rest
 * of a sheet's reading (a sheet of MAX_ROWS rows, about 2 s of 4 s of CPU). In XML mode every
 * element is a "tag" and names are compared as written, as cheerio's selectors compare them.
 */
function childrenNamed(node: Element, name: string): Element[] {
  const out: Element[] = [];
  for (const c of node.children) if (c.type === "tag" && c.name === name) out.push(c);
  return out;
}

function textOf(node: AnyNode): string {
  if (node.type === "text") return node.data;
  if (node.type === "comment" || !("children" in node)) return "";
  let out = "";
  for (const c of node.children) out += textOf(c);
  return out;
}

/**
 * `$(cell).find("is t").text()`, read the same way: each `t` below an `is` below the cell, in
 * the document's order, its text (a `t` inside another counted again, as cheerio counts it).
 */
function inlineText(cell: Element, budget: TextBudget): string {
  let out = "";
  const walk = (node: Element, inIs: boolean): void => {
    for (const c of node.children) {
      if (c.type !== "tag") continue;
      if (inIs && c.name === "t") out += budget.take(textOf(c));
      walk(c, inIs || c.name === "is");
    }
  };
  walk(cell, false);
  return out;
}

function cellValue(c: Element, ctx: CellContext): Cell | undefined {
  const t = c.attribs["t"] ?? "n";
  let v = "";
  for (const e of childrenNamed(c, "v")) v += textOf(e);
  switch (t) {
    case "s":
      return { text: ctx.shared[Number(v)] ?? "" };
    case "inlineStr":
      return { text: inlineText(c, ctx.inline) };
    case "str":
      return { text: v };
    case "b":
      return { text: v === "1" ? "TRUE" : "FALSE" };
    case "d": // ISO 8601 text (§18.18.11 ST_CellType d)
      return { text: v, date: v };
    case "e":
      return undefined;
    default: {
      if (v === "") return undefined;
      const styled = ctx.dateStyles.has(Number(c.attribs["s"] ?? -1));
      const date = styled ? serialToText(Number(v), ctx.epoch1904) : undefined;
      return date ? { text: date, date } : { text: v };
    }
  }
}

function tableOf($: ReturnType<typeof loadXml>, ctx: CellContext, choice: SheetChoice): SheetRows {
  const headerRow = choice.headerRow ?? 1;
  let header: string[] | undefined;
  const rows: Record<string, string>[] = [];
  let truncated = false;
  let position = 0;
  let text = 0;
  // `$("sheetData > row")` (an XML document: names as written), found by one walk.
  const sheetRows = descendantsWhere(
    $.root().toArray(),
    (el) =>
      el.name === "row" && el.parent?.type === "tag" && (el.parent as Element).name === "sheetData",
  );
  for (const row of sheetRows) {
    position = Number(row.attribs["r"] ?? position + 1);
    if (position < headerRow) continue;
    const cells: (Cell | undefined)[] = [];
    let col = 0;
    for (const c of childrenNamed(row, "c")) {
      col = columnOf(c.attribs["r"]) ?? col;
      cells[col] = cellValue(c, ctx);
      col++;
    }
    if (!header) {
      header = Array.from(cells, (c) => c?.text.trim() ?? "");
      continue;
    }
    if (rows.length >= MAX_ROWS) {
      truncated = true;
      break;
    }
    const out: Record<string, string> = {};
    header.forEach((name, i) => {
      const c = cells[i];
      if (!name || !c) return;
      // A plain number in the date column is still a serial date (many exports drop styles).
      const serial =
        name === choice.dateColumn && !c.date && /^\d+(\.\d+)?$/.test(c.text)
          ? serialToText(Number(c.text), ctx.epoch1904)
          : undefined;
      out[name] = serial ?? c.text;
      text += out[name].length;
    });
    if (text > MAX_SHEET_TEXT)
      return {
        ok: false,
        why: `its rows read out more than ${MAX_SHEET_TEXT / 1048576} Mi characters of text, shared strings named cell after cell`,
      };
    rows.push(out);
  }
  if (!header) return { ok: false, why: `no header row ${headerRow} in the sheet` };
  return { ok: true, rows, truncated };
}
