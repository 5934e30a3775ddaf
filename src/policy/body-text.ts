/**
 * Bytes to text: the one decoder for every reader of an answer (platform presets; the
 * generic api, download, feed, page and form readers; `nor discover`; refusal detection),
 * picking the charset the way a browser does (WHATWG Encoding): a byte-order mark first, then
 * the Content-Type charset, then an XML declaration or `<meta charset>` /
 * `<meta http-equiv="Content-Type">` in the first bytes (one that says UTF-16 means UTF-8, as
 * in a browser: a page whose declaration reads as ASCII is not UTF-16). UTF-8 (declared or not) that is not
 * valid UTF-8 is read byte by byte as windows-1252 where it is invalid: older county pages
 * are windows-1252 whatever they say, and a stray byte must not garble the rest of the page.
 *
 * And back: a form is submitted in its page's encoding (HTML "application/x-www-form-urlencoded
 * serializer"), as a visitor's browser would (P5), so a windows-1252 ASP.NET page gets its
 * own bytes back. robots.txt has its own reading (robots/decode.ts, RFC 9309: UTF-8 with
 * odd bytes kept as percent-escapes), since rules are matched octet for octet, not shown.
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

const C1 = /[\x80-\x9f]/g;
const fromC1 = (c: string) => String.fromCharCode(CP1252_80_9F[c.charCodeAt(0) - 0x80]!);

/**
 * Byte for byte: Latin-1 (each byte its own code point), then 0x80–0x9F mapped. Run on the
 * first 2 kB of every answer (the charset sniff above, for refusal detection and reading), so
 * it is Latin-1 decoded natively, not an array of numbers built and spread per byte.
 */
function decode1252(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("latin1").replace(C1, fromC1);
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

/** The WHATWG name of a charset label (`latin1` → `windows-1252`), or undefined when unknown. */
export function encodingName(label: string): string | undefined {
  return decoder(label)?.encoding;
}

export function charsetOf(contentType: string | undefined): string | undefined {
  return contentType ? /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType)?.[1] : undefined;
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** Length of the valid UTF-8 sequence starting at `i` (RFC 3629 §4), or 0 when invalid. */
export function utf8Length(b: Uint8Array, i: number): number {
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

/**
 * The encoding a browser would read the body in (a WHATWG name: `utf-8`, `windows-1252`,
 * `utf-16le`, …): BOM, then the Content-Type charset, then the page's own declaration.
 */
function chosen(body: Uint8Array, contentType: string | undefined): Decoder | "utf-8" {
  const bom = bomCharset(body);
  if (bom === "utf-8") return "utf-8";
  if (bom) {
    const d = new TextDecoder(bom); // it drops the BOM itself
    return { encoding: d.encoding, decode: (b) => d.decode(b) };
  }
  const given = decoder(charsetOf(contentType));
  if (given) return given.encoding === "utf-8" ? "utf-8" : given;
  const declared = decoder(declaredCharset(decode1252(body.subarray(0, SNIFF_BYTES))));
  // A page that says UTF-16 in bytes read as ASCII is not UTF-16 (it would have a BOM): UTF-8,
  // as the HTML prescan says (WHATWG HTML §13.2.3.2, "get an encoding": UTF-16BE/LE → UTF-8).
  if (declared && declared.encoding !== "utf-8" && !declared.encoding.startsWith("utf-16"))
    return declared;
  return "utf-8";
}

/** The encoding `decodeBody` reads this body in (WHATWG name). */
export function bodyEncoding(body: Uint8Array, contentType?: string): string {
  const c = chosen(body, contentType);
  return c === "utf-8" ? c : c.encoding;
}

/** Decodes a response body to text (BOM dropped). `contentType`: the response's header. */
export function decodeBody(body: Uint8Array, contentType?: string): string {
  const c = chosen(body, contentType);
  if (c !== "utf-8") return c.decode(body);
  return utf8Or1252(bomCharset(body) === "utf-8" ? body.subarray(3) : body);
}

/** The byte of windows-1252 for a code point, or undefined when it has none. */
function byte1252(cp: number): number | undefined {
  if (cp < 0x80 || (cp >= 0xa0 && cp <= 0xff)) return cp;
  const i = CP1252_80_9F.indexOf(cp);
  return i === -1 ? undefined : 0x80 + i;
}

const UNRESERVED = /[*\-._0-9A-Za-z]/;

function percentBytes(bytes: Iterable<number>): string {
  let out = "";
  for (const b of bytes) {
    const c = String.fromCharCode(b);
    if (b === 0x20) out += "+";
    else if (b < 0x80 && UNRESERVED.test(c)) out += c;
    else out += `%${b.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** One name or value, encoded as a browser encodes it for a form in `encoding`. */
function formPart(s: string, encoding: string): string {
  if (encoding !== "windows-1252") return percentBytes(new TextEncoder().encode(s));
  const bytes: number[] = [];
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    const b = byte1252(cp);
    // HTML: a character the encoding lacks is sent as its numeric character reference.
    if (b === undefined) for (const c of `&#${cp};`) bytes.push(c.charCodeAt(0));
    else bytes.push(b);
  }
  return percentBytes(bytes);
}

/**
 * A form's entry list as `application/x-www-form-urlencoded` in the page's encoding (HTML
 * §4.10.21.8, the WHATWG urlencoded serializer with an encoding): windows-1252 (and the
 * Latin-1 and ASCII labels, which are windows-1252) as its own bytes, everything else as
 * UTF-8 — which is what a browser sends for UTF-8 and UTF-16 pages; for the few other legacy
 * encodings a browser would use the page's, which Node cannot encode.
 */
export function formUrlencoded(entries: Iterable<readonly [string, string]>, encoding = "utf-8") {
  const enc = encodingName(encoding) ?? "utf-8";
  const parts: string[] = [];
  for (const [k, v] of entries) parts.push(`${formPart(k, enc)}=${formPart(v, enc)}`);
  return parts.join("&");
}
