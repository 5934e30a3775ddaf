/**
 * Files a government publishes for download (P4: preferred over a page): CSV, read with
 * csv-parse (header row; columns mapped by name), and JSON (as api.ts). XLSX would need a
 * spreadsheet library this project does not carry, so it is reported, not guessed at.
 */
import { parse } from "csv-parse/sync";
import type { DownloadSpec } from "../catalog/schema.js";
import type { ExtractedRecord, Extraction } from "../record.js";
import { dedupeRecords } from "../record-id.js";
import { parseJsonBody, recordsFromJson } from "./api.js";
import { decodeBody } from "./decode.js";
import { mapRecord } from "./fields.js";

function formatOf(url: string, spec: DownloadSpec, body: Uint8Array): "csv" | "json" | "xlsx" {
  if (spec.format) return spec.format;
  const path = new URL(url).pathname.toLowerCase();
  if (path.endsWith(".json")) return "json";
  if (path.endsWith(".xlsx") || path.endsWith(".xls")) return "xlsx";
  // "PK\3\4": a zip container, which is what an .xlsx is.
  if (body[0] === 0x50 && body[1] === 0x4b && body[2] === 0x03 && body[3] === 0x04) return "xlsx";
  return "csv";
}

export function extractDownload(body: Uint8Array, url: string, spec: DownloadSpec): Extraction {
  const format = formatOf(url, spec, body);
  if (format === "xlsx") return { records: [], note: "spreadsheet (XLSX) files are not read" };
  if (format === "json") {
    const parsed = parseJsonBody(body);
    if (!parsed.ok) return { records: [], note: "not JSON" };
    return recordsFromJson(parsed.value, { ...spec, items: spec.items ?? "" }, url);
  }
  const text = decodeBody(body);
  if (/^\s*<(!doctype|html)/i.test(text)) return { records: [], note: "not a CSV file (HTML)" };
  let rows: Record<string, string>[];
  try {
    rows = parse(text, {
      columns: (header: string[]) => header.map((h) => h.trim()),
      delimiter: spec.delimiter ?? ",",
      bom: true,
      skip_empty_lines: true,
      relax_column_count: true,
      trim: true,
    }) as Record<string, string>[];
  } catch (e) {
    return {
      records: [],
      note: `not a readable CSV file (${(e as Error).message.split("\n")[0]})`,
    };
  }
  const out: ExtractedRecord[] = [];
  for (const row of rows) {
    const rec = mapRecord(row, spec, url);
    if (rec) out.push(rec);
  }
  const x: Extraction = { records: dedupeRecords(out) };
  if (x.records.length === 0)
    x.note = rows.length === 0 ? "empty file" : `no row had a "${spec.title}" value`;
  return x;
}
