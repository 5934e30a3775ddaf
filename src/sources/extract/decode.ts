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

/**
 * WHATWG windows-1252 for bytes 0x80–0x9F (curly quotes, dashes, €): Node 20's TextDecoder
 * reads them as Latin-1 control characters, so they are mapped here.
 */
const CP1252_80_9F = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152,
  0x8d, 0x17d, 0x8f, 0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122,
  0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178,
];

function decode1252(b: Uint8Array): string {
  let out = "";
  const CHUNK = 8192;
  for (let i = 0; i < b.length; i += CHUNK) {
    const codes = Array.from(b.subarray(i, i + CHUNK), (c) =>
      c >= 0x80 && c <= 0x9f ? CP1252_80_9F[c - 0x80]! : c,
    );
    out += String.fromCharCode(...codes);
  }
  return out;
}

interface Decoder {
  encoding: string;
  decode(b: Uint8Array): string;
}

function decoder(label: string | undefined): Decoder | undefined {
  if (!label) return undefined;
  let d: TextDecoder;
  try {
    d = new TextDecoder(label.toLowerCase());
  } catch {
    return undefined; // unknown label: fall through to sniffing
  }
  // Latin-1 and ASCII labels are windows-1252 (WHATWG Encoding §4.2).
  if (d.encoding === "windows-1252") return { encoding: d.encoding, decode: decode1252 };
  return { encoding: d.encoding, decode: (b) => d.decode(b) };
}

export function charsetOf(contentType: string | undefined): string | undefined {
  return contentType ? /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType)?.[1] : undefined;
}

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
    out += strictUtf8.decode(body.subarray(run, i)) + decode1252(body.subarray(i, i + 1));
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
  const head = decode1252(body.subarray(0, SNIFF_BYTES));
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
