/**
 * Files a government publishes for download (P4: preferred over a page): CSV, read by
 * download-csv.ts (header row; columns mapped by name), JSON (as api.ts) and XLSX (one sheet, its
 * header row naming the columns, download-xlsx.ts). The format is told by the bytes first —
 * a zip holding xl/workbook.xml is a workbook whatever the URL says — then by the URL.
 */
import { decodeBody } from "../../policy/body-text.js";
import type { DownloadSpec } from "../catalog/schema.js";
import type { Extraction, ReadContext } from "../record.js";
import { recordsFromJson } from "./api.js";
import { readCsv } from "./download-csv.js";
import { isXlsx, readSheetRows } from "./download-xlsx.js";
import { looksLikeZip } from "./download-zip.js";
import { recordsOfItems } from "./fields.js";
import { readJson } from "./json.js";
import { firstRead, MAX_ROWS } from "./max-rows.js";

type Format = "csv" | "json" | "xlsx" | { note: string };

function formatOf(url: string, spec: DownloadSpec, body: Uint8Array): Format {
  if (isXlsx(body)) return "xlsx";
  // A zip that is not a workbook, or an old BIFF .xls (OLE2 magic D0 CF 11 E0), is said so.
  if (looksLikeZip(body)) return { note: "a zip file, not an XLSX workbook" };
  if (body[0] === 0xd0 && body[1] === 0xcf && body[2] === 0x11 && body[3] === 0xe0)
    return { note: "an old .xls (BIFF) workbook, which is not read; XLSX and CSV are" };
  if (spec.format === "xlsx") return { note: "not an XLSX file" };
  if (spec.format) return spec.format;
  const path = new URL(url).pathname.toLowerCase();
  if (path.endsWith(".json")) return "json";
  if (path.endsWith(".xlsx")) return { note: "not an XLSX file" };
  return "csv";
}

function fromRows(
  rows: Record<string, string>[],
  spec: DownloadSpec,
  url: string,
  ctx: ReadContext,
): Extraction {
  const x: Extraction = { records: recordsOfItems(rows, spec, url, ctx.zone) };
  if (x.records.length === 0)
    x.note = rows.length === 0 ? "empty file" : `no row had a "${spec.title}" value`;
  return x;
}

function extractXlsx(
  body: Uint8Array,
  url: string,
  spec: DownloadSpec,
  ctx: ReadContext,
): Extraction {
  const sheet = readSheetRows(body, {
    sheet: spec.sheet,
    headerRow: spec.headerRow,
    dateColumn: spec.date,
  });
  if (!sheet.ok)
    return { records: [], note: `not a readable XLSX file (${sheet.why})`, notThisWay: true };
  const x = fromRows(sheet.rows, spec, url, ctx);
  if (sheet.truncated) x.note = firstRead("rows of the sheet");
  return x;
}

export function extractDownload(
  body: Uint8Array,
  url: string,
  spec: DownloadSpec,
  ctx: ReadContext = {},
): Extraction {
  const format = formatOf(url, spec, body);
  if (typeof format === "object") return { records: [], note: format.note, notThisWay: true };
  if (format === "xlsx") return extractXlsx(body, url, spec, ctx);
  if (format === "json") {
    const parsed = readJson(body, ctx.contentType);
    if (!parsed.ok) return { records: [], note: parsed.why, notThisWay: true };
    return recordsFromJson(parsed.value, { ...spec, items: spec.items ?? "" }, url, ctx);
  }
  const text = decodeBody(body, ctx.contentType);
  if (/^\s*<(!doctype|html)/i.test(text))
    return { records: [], note: "not a CSV file (HTML)", notThisWay: true };
  const csv = readCsv(text, spec.delimiter ?? ",", MAX_ROWS);
  if (!csv.ok)
    return { records: [], note: `not a readable CSV file (${csv.why})`, notThisWay: true };
  const x = fromRows(csv.rows, spec, url, ctx);
  if (csv.truncated) x.note = firstRead("rows of the file");
  return x;
}
