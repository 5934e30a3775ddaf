/**
 * Bytes to text, the way a browser would pick the charset (WHATWG Encoding: BOM first, then
 * the Content-Type charset, then an XML declaration or <meta charset> in the first bytes),
 * falling back to windows-1252 when the bytes are not valid UTF-8 — older county pages are.
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

function decoder(label: string | undefined, fatal = false): TextDecoder | undefined {
  if (!label) return undefined;
  try {
    return new TextDecoder(label.toLowerCase(), { fatal });
  } catch {
    return undefined; // unknown label: fall through to sniffing
  }
}

export function charsetOf(contentType: string | undefined): string | undefined {
  return contentType ? /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType)?.[1] : undefined;
}

/** Decodes a response body to text (BOM stripped). */
export function decodeBody(body: Uint8Array, contentType?: string): string {
  const bom = bomCharset(body);
  if (bom) return new TextDecoder(bom).decode(body); // TextDecoder drops the BOM itself
  const given = decoder(charsetOf(contentType));
  if (given) return given.decode(body);
  const head = new TextDecoder("latin1").decode(body.subarray(0, SNIFF_BYTES));
  const declared = decoder(declaredCharset(head));
  if (declared && declared.encoding !== "utf-8") return declared.decode(body);
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(body);
  } catch {
    return new TextDecoder("windows-1252").decode(body);
  }
}
