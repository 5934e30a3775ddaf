/**
 * P21 preparation (research notes §2 "Preparation"): decode the body by its charset, keep
 * 1 MiB for vendor markers (branded Cloudflare templates put them past 300 KB) and 64 KB for
 * generic phrases, decode HTML entities (Akamai writes `Reference&#32;&#35;18&#46;…`), and
 * skip the body entirely for text/plain (a robots.txt that mentions /cdn-cgi/ is no page).
 */
import { decodeBody } from "../body-text.js";
import { decodeEntities } from "./entities.js";
import type { Prepared, RefusalInput } from "./types.js";

export const VENDOR_SCAN_BYTES = 1024 * 1024;
export const GENERIC_SCAN_BYTES = 64 * 1024;

/**
 * The first 1 MiB as text, by the one body decoder (body-text.ts: BOM, charset, `<meta>`,
 * windows-1252 for bytes that are not UTF-8). A character cut at the 1 MiB mark reads as
 * one or two odd characters at the very end, which no marker spans.
 */
export function scannedText(body: Uint8Array | string, contentType: string | undefined): string {
  if (typeof body === "string") return body.slice(0, VENDOR_SCAN_BYTES);
  return decodeBody(body.subarray(0, VENDOR_SCAN_BYTES), contentType);
}

/** Visible text: scripts, styles, comments and tags removed, entities decoded. */
export function visibleText(html: string): string {
  const stripped = html
    .replace(/<!--[\s\S]*?(?:-->|$)/g, " ")
    .replace(/<(script|style|template)\b[^>]*>[\s\S]*?(?:<\/\1\s*>|$)/gi, " ")
    .replace(/<[^>]*>/g, " ");
  return decodeEntities(stripped).replace(/\s+/g, " ").trim();
}

export function prepare(r: RefusalInput): Prepared {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(r.headers)) headers[k.toLowerCase()] = v;
  const contentType = headers["content-type"];
  const plain = /^\s*text\/plain\b/i.test(contentType ?? "");
  const bytes = typeof r.body === "string" ? r.body.length : r.body.byteLength;
  if (plain) {
    const empty = { raw: "", html: "", lower: "", text: "" };
    return { status: r.status, headers, url: r.url, bytes, plain, ...empty };
  }
  const decoded = scannedText(r.body, contentType);
  const html = decodeEntities(decoded).replace(/\s+/g, " ");
  const text = visibleText(decoded.slice(0, GENERIC_SCAN_BYTES)).toLowerCase();
  return {
    status: r.status,
    headers,
    url: r.url,
    bytes,
    plain,
    raw: decoded,
    html,
    lower: html.toLowerCase(),
    text,
  };
}
