/**
 * P21 preparation (research notes §2 "Preparation"): decode the body by its charset, keep
 * 1 MiB for vendor markers (branded Cloudflare templates put them past 300 KB) and 64 KB for
 * generic phrases, decode HTML entities (Akamai writes `Reference&#32;&#35;18&#46;…`), and
 * skip the body entirely for text/plain (a robots.txt that mentions /cdn-cgi/ is no page).
 */
import { decodeEntities } from "./entities.js";
import type { Prepared, RefusalInput } from "./types.js";

export const VENDOR_SCAN_BYTES = 1024 * 1024;
export const GENERIC_SCAN_BYTES = 64 * 1024;

function charsetOf(contentType: string | undefined): string | undefined {
  const m = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? "");
  return m?.[1]?.toLowerCase();
}

/** A decoder for a charset label, or undefined when the label is unknown. */
function decoderFor(label: string) {
  try {
    return new TextDecoder(label);
  } catch {
    return undefined; // unknown label: the caller falls back to UTF-8 / Latin-1
  }
}

/** UTF-8 unless the header names another charset; bytes that are not UTF-8 read as Latin-1. */
export function decodeBody(body: Uint8Array | string, contentType: string | undefined): string {
  if (typeof body === "string") return body.slice(0, VENDOR_SCAN_BYTES);
  const bytes = body.subarray(0, VENDOR_SCAN_BYTES);
  const label = charsetOf(contentType);
  if (label !== undefined && label !== "utf-8" && label !== "utf8") {
    const decoder = decoderFor(label);
    if (decoder) return decoder.decode(bytes);
  }
  try {
    // stream: a multi-byte character cut at the 1 MiB mark is not an encoding error.
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes, { stream: true });
  } catch {
    return new TextDecoder("latin1").decode(bytes);
  }
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
    return { status: r.status, headers, url: r.url, bytes, plain, html: "", lower: "", text: "" };
  }
  const decoded = decodeBody(r.body, contentType);
  const html = decodeEntities(decoded).replace(/\s+/g, " ");
  const text = visibleText(decoded.slice(0, GENERIC_SCAN_BYTES)).toLowerCase();
  return {
    status: r.status,
    headers,
    url: r.url,
    bytes,
    plain,
    html,
    lower: html.toLowerCase(),
    text,
  };
}
