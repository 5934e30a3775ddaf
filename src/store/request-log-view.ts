import type { RequestLogEntry } from "../net/types.js";
import { noteLine } from "../policy/shown-text.js";
import { formatInZone, SITE_OWNER_ZONE } from "../policy/zone.js";

/**
 * How an attempt reads to a person (P27): as one JSON object (UTC times, for tools) or as a
 * row of an aligned table (New York times, to match what a site owner's logs show).
 */
export interface RequestLogJson {
  startedAt: string;
  endedAt: string | null;
  method: string;
  url: string;
  status: number | null;
  outcome: string;
  site: string;
  origin: string;
  source: string | null;
  purpose: string;
  attempt: number;
  bytes: number;
  failure?: string;
  night?: string;
  validatorsSent?: RequestLogEntry["validatorsSent"];
  validatorsReceived?: RequestLogEntry["validatorsReceived"];
  evidence?: RequestLogEntry["evidence"];
}

export function toJson(e: RequestLogEntry): RequestLogJson {
  const j: RequestLogJson = {
    startedAt: new Date(e.startedAt).toISOString(),
    endedAt: e.endedAt === null ? null : new Date(e.endedAt).toISOString(),
    method: e.method,
    url: e.url,
    status: e.status,
    outcome: e.outcome,
    site: e.site,
    origin: e.origin,
    source: e.source ?? null,
    purpose: e.purpose,
    attempt: e.attempt,
    bytes: e.bytes,
  };
  if (e.failure !== undefined) j.failure = e.failure;
  if (e.night !== undefined) j.night = e.night;
  if (e.validatorsSent !== undefined) j.validatorsSent = e.validatorsSent;
  if (e.validatorsReceived !== undefined) j.validatorsReceived = e.validatorsReceived;
  if (e.evidence !== undefined) j.evidence = e.evidence;
  return j;
}

const HEADERS = [
  `TIME (${SITE_OWNER_ZONE})`,
  "MS",
  "METHOD",
  "STATUS",
  "BYTES",
  "PURPOSE",
  "SITE",
  "SOURCE",
  "URL",
] as const;

/** A refusal's evidence (P21) as a site owner's support desk asks for it: provider, verdict, reference id. */
export function evidenceCell(ev: RequestLogEntry["evidence"]): string {
  if (ev === undefined) return "";
  return [ev.provider, ev.verdict, ev.reference === undefined ? "" : `ref ${ev.reference}`]
    .filter((p) => p !== "")
    .join(" ");
}

/**
 * The table's lines, header first; every column but the last padded to width. MS is how long
 * the attempt took (its end is the start plus that; `-` when it never ended). An EVIDENCE
 * column, before the URL, appears only when some row is a refusal with its evidence; the URL
 * stays last and unpadded, however long.
 */
export function toTable(
  entries: readonly RequestLogEntry[],
  /**
   * For a table printed a page at a time: the EVIDENCE column whether or not these rows have
   * one, the columns at least these widths (the first page's, which it returns in `widths`),
   * and the header only when asked.
   */
  paged?: { widths?: number[]; header: boolean },
): string[] {
  const withEvidence = paged !== undefined || entries.some((e) => e.evidence !== undefined);
  const headers: string[] = withEvidence
    ? [...HEADERS.slice(0, -1), "EVIDENCE", "URL"]
    : [...HEADERS];
  const rows: string[][] = [headers];
  for (const e of entries) {
    const status = `${e.status ?? "-"} ${e.outcome}`;
    // The failure may carry what the site sent (a Content-Encoding it named, a certificate's
    // name): one line of text for the terminal, its controls and length gone (--jsonl has it whole).
    const url = e.failure ? `${e.url}  (${noteLine(e.failure)})` : e.url;
    const row = [
      formatInZone(e.startedAt, SITE_OWNER_ZONE),
      e.endedAt === null ? "-" : String(e.endedAt - e.startedAt),
      e.method,
      e.attempt > 1 ? `${status} #${e.attempt}` : status,
      String(e.bytes),
      e.purpose,
      e.site,
      e.source ?? "-",
    ];
    // The evidence before the URL, so a long URL never pushes the reference id out of sight.
    if (withEvidence) row.push(evidenceCell(e.evidence) || "-");
    row.push(url);
    rows.push(row);
  }
  // A loop, not Math.max(...rows): a day's log can outgrow the spread argument limit.
  const widths: number[] = paged?.widths ?? headers.map(() => 0);
  if (paged?.widths === undefined) {
    for (const r of rows) {
      for (const [i, cell] of r.entries()) widths[i] = Math.max(widths[i] ?? 0, cell.length);
    }
    if (paged) paged.widths = widths;
  }
  if (paged && !paged.header) rows.shift();
  return rows.map((r) =>
    r
      .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd(),
  );
}
