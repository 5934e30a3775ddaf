/**
 * Bytes to text, the one decoder for every reader of an answer (platform presets and the
 * generic api, download, feed, page and form readers), picking the charset the way a browser
 * does (WHATWG Encoding): a byte-order mark first, then the Content-Type charset, then an XML
 * declaration or `<meta charset>` / `<meta http-equiv="Content-Type">` in the first bytes.
 * UTF-8 (declared or not) that is not valid UTF-8 is read byte by byte as windows-1252 where
 * it is invalid: older county pages are windows-1252 whatever they say, and a stray byte must
 * not garble the rest of the page.
 */

import { TextDecoder } from "node:util";

const SNIFF_BYTES = 2048;

function bomCharset(b: Uint8Array): string | undefined {
  if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return "utf-8";
  if (b[0] === 0xfe && b[1] === 0xff) return "utf-16be";
  if (b[0] === 0xff && b[1] === 0xfe) return "utf-16le";
  return undefined;
}

function declaredCharset(head: string): string | undefined {
  const m =
    /<\?xml[^>]*encoding\s*=\s*["']([\w.:-]+)["']/i.exec(head) ??
    /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head);
  return m?.[1];
}

function decoder(label: string | undefined): TextDecoder | undefined {
  if (!label) return undefined;
  try {
    return new TextDecoder(label.toLowerCase());
  } catch {
    return undefined; // unknown label: fall through to sniffing
  }
}

export function charsetOf(contentType: string | undefined): string | undefined {
  return contentType ? /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType)?.[1] : undefined;
}

const cp1252 = new TextDecoder("windows-1252");
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** Length of the valid UTF-8 sequence starting at `i` (RFC 3629 §4), or 0 when invalid. */
function utf8Length(b: Uint8Array, i: number): number {
  const c = b[i]!;
  let n: number;
  let lo = 0x80;
  let hi = 0xbf;
  if (c >= 0xc2 && c <= 0xdf) n = 2;
  else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    if (c === 0xe0) lo = 0xa0; // no overlongs
    if (c === 0xed) hi = 0x9f; // no surrogates
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    if (c === 0xf0) lo = 0x90;
    if (c === 0xf4) hi = 0x8f; // nothing past U+10FFFF
  } else return 0;
  if (i + n > b.length) return 0;
  const second = b[i + 1]!;
  if (second < lo || second > hi) return 0;
  for (let k = 2; k < n; k++) if ((b[i + k]! & 0xc0) !== 0x80) return 0;
  return n;
}

/** UTF-8 where it is valid, windows-1252 for each byte where it is not. */
function utf8Or1252(body: Uint8Array): string {
  try {
    return strictUtf8.decode(body);
  } catch {
    // Some bytes are not UTF-8: keep every valid sequence, read the rest as windows-1252.
  }
  let out = "";
  let run = 0; // start of the current stretch of valid UTF-8
  let i = 0;
  while (i < body.length) {
    if (body[i]! < 0x80) {
      i++;
      continue;
    }
    const n = utf8Length(body, i);
    if (n > 0) {
      i += n;
      continue;
    }
    out += strictUtf8.decode(body.subarray(run, i)) + cp1252.decode(body.subarray(i, i + 1));
    i++;
    run = i;
  }
  return out + strictUtf8.decode(body.subarray(run));
}

/** Decodes a response body to text (BOM dropped). `contentType`: the response's header. */
export function decodeBody(body: Uint8Array, contentType?: string): string {
  const bom = bomCharset(body);
  if (bom === "utf-8") return utf8Or1252(body.subarray(3));
  if (bom) return new TextDecoder(bom).decode(body); // TextDecoder drops the BOM itself
  const given = decoder(charsetOf(contentType));
  if (given && given.encoding !== "utf-8") return given.decode(body);
  if (given) return utf8Or1252(body);
  const head = cp1252.decode(body.subarray(0, SNIFF_BYTES));
  const declared = decoder(declaredCharset(head));
  if (declared && declared.encoding !== "utf-8") return declared.decode(body);
  return utf8Or1252(body);
}

/** A cheap sniff for "this is a web page": a feed or API URL answering HTML is said so. */
export function looksLikeHtml(text: string): boolean {
  const head = text.slice(0, 2048).trimStart().toLowerCase();
  return head.startsWith("<!doctype html") || head.startsWith("<html") || /<html[\s>]/.test(head);
}

/** The `<title>` of an HTML page, for saying which page answered. */
export function htmlTitle(text: string): string | undefined {
  const t = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(text.slice(0, 16384))?.[1];
  const clean = t?.replace(/\s+/g, " ").trim();
  return clean || undefined;
}
