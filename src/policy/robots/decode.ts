import { ROBOTS_MAX_BYTES } from "../constants.js";

/**
 * The bytes of a robots.txt file → the text we parse. This is the only decode (P16, P17):
 * `nor robots check` decodes the file it reads, the night decodes the body it fetched and
 * caches this text, and parse.ts takes text as it is, so both reach the same verdict on the
 * same bytes.
 *
 * - P17: a UTF-8 byte-order mark at byte 0 is skipped. Google also skips a partial one
 *   (`EF`, `EF BB`), so we do too; a BOM anywhere else, a second one included, is content.
 *   A UTF-16 BOM (`FF FE`, `FE FF`) at byte 0 says the file is UTF-16: read as such (see
 *   utf16Of), never as UTF-8.
 * - RFC 9309 §2.5: at least 500 KiB is parsed (ROBOTS_MAX_BYTES, counted on the file's bytes
 *   after the BOM). When the body is cut there, the trailing partial line is dropped: a cut
 *   `Allow: /public/page` would become `Allow: /pub` and allow more than the owner wrote.
 * - RFC 9309 §2.3 wants UTF-8. A byte that is not part of a well-formed UTF-8 sequence
 *   becomes its percent-escape (`0xE9` → `%E9`), the bridge §2.2.2 allows: a rule
 *   `/caf\xE9` then matches the URL `/caf%E9`, octet for octet, as Google's matcher does.
 *   The escape is exactly what percent.ts would make of that octet in a pattern, and it
 *   holds no blank, colon, `#` or line end, so it changes nothing else about the line.
 */
const BOM = [0xef, 0xbb, 0xbf] as const;

/**
 * How many of a file's first bytes a reader hands to decodeRobotsBody (the night's fetch, `nor
 * robots check`): the limit, counted after the BOM, plus the longest BOM (3 bytes) and one
 * UTF-16 code unit past it (2 bytes), so that the decoder always sees whether the limit cut a
 * line. One byte past the limit, counted from the file's first byte, hid the cut of a file
 * with a BOM: its last line, cut short, was read (an `Allow: /public/page` as `Allow: /publ`).
 */
export const ROBOTS_READ_BYTES = ROBOTS_MAX_BYTES + BOM.length + 2;
const LF = 0x0a;
const CR = 0x0d;
const PERCENT = 0x25;
/** `0`–`9`, `A`–`F` as bytes: the escape of an odd byte is upper-case, as percent.ts writes it. */
const HEX_DIGITS = new TextEncoder().encode("0123456789ABCDEF");

const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
/** Only ever given bytes already made well-formed. */
const wellFormed = new TextDecoder("utf-8", { ignoreBOM: true });

export interface DecodedRobots {
  text: string;
  /** True when the body was longer than the limit and its tail was dropped. */
  truncated: boolean;
}

export function decodeRobotsBody(
  bytes: Uint8Array,
  maxBytes: number = ROBOTS_MAX_BYTES,
): DecodedRobots {
  const utf16 = utf16Of(bytes);
  if (utf16 !== undefined) return decodeUtf16(bytes.subarray(2), utf16, maxBytes);
  let start = 0;
  while (start < BOM.length && start < bytes.length && bytes[start] === BOM[start]) start++;
  const body = bytes.subarray(start);
  if (body.length <= maxBytes) return { text: decodeText(body), truncated: false };

  // Cut at the limit; keep the last line only if it ended exactly at the cut.
  const next = body[maxBytes];
  let end = maxBytes;
  if (next !== LF && next !== CR) {
    end = lastLineEnd(body, maxBytes);
  }
  return { text: decodeText(body.subarray(0, end)), truncated: true };
}

/** Index just past the last CR or LF before `limit`, or 0 when the whole prefix is one line. */
function lastLineEnd(body: Uint8Array, limit: number): number {
  for (let i = limit - 1; i >= 0; i--) {
    const b = body[i];
    if (b === LF || b === CR) return i + 1;
  }
  return 0;
}

/** UTF-8 → text; each byte outside a well-formed sequence becomes `%XX`. Linear time. */
function decodeText(bytes: Uint8Array): string {
  try {
    return strict.decode(bytes);
  } catch {
    // Some byte is not UTF-8: copy the body with exactly those bytes escaped, decode that.
  }
  const out = new Uint8Array(bytes.length * 3);
  let o = 0;
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i] ?? 0;
    const n = b < 0x80 ? 1 : sequenceLength(bytes, i);
    if (n === 0) {
      out[o++] = PERCENT;
      out[o++] = HEX_DIGITS[b >> 4] ?? 0;
      out[o++] = HEX_DIGITS[b & 15] ?? 0;
      i++;
      continue;
    }
    for (const end = i + n; i < end; i++) out[o++] = bytes[i] ?? 0;
  }
  return wellFormed.decode(out.subarray(0, o));
}

/** Is the byte at `i` a continuation byte within [lo, hi]? */
function inRange(bytes: Uint8Array, i: number, lo: number, hi: number): boolean {
  const c = bytes[i];
  return c !== undefined && c >= lo && c <= hi;
}

/**
 * The length of the well-formed UTF-8 sequence starting at `i` (a byte ≥ 0x80), or 0 when
 * there is none (Unicode §3.9, Table 3-7: no overlong forms, no surrogates, ≤ U+10FFFF).
 */
function sequenceLength(bytes: Uint8Array, i: number): number {
  const b = bytes[i] ?? 0;
  if (b >= 0xc2 && b <= 0xdf) return inRange(bytes, i + 1, 0x80, 0xbf) ? 2 : 0;
  if (b >= 0xe0 && b <= 0xef) {
    const lo = b === 0xe0 ? 0xa0 : 0x80;
    const hi = b === 0xed ? 0x9f : 0xbf;
    return inRange(bytes, i + 1, lo, hi) && inRange(bytes, i + 2, 0x80, 0xbf) ? 3 : 0;
  }
  if (b >= 0xf0 && b <= 0xf4) {
    const lo = b === 0xf0 ? 0x90 : 0x80;
    const hi = b === 0xf4 ? 0x8f : 0xbf;
    return inRange(bytes, i + 1, lo, hi) &&
      inRange(bytes, i + 2, 0x80, 0xbf) &&
      inRange(bytes, i + 3, 0x80, 0xbf)
      ? 4
      : 0;
  }
  return 0;
}

/**
 * A file saved as "Unicode" (UTF-16, Windows Notepad's old default) starts with its BOM,
 * `FF FE` or `FE FF`, bytes that never begin UTF-8. RFC 9309 §2.3 wants UTF-8, but such a
 * file's rules are plain to read, as a browser shows them, and the page reader reads UTF-16 by
 * its BOM too (body-text.ts): read as UTF-8 it is a file of unknown lines, so everything would
 * be allowed that its owner disallowed (politeness never fails open).
 */
function utf16Of(bytes: Uint8Array): "utf-16le" | "utf-16be" | undefined {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  return undefined;
}

/**
 * UTF-16 after its BOM → text, with the limit as for UTF-8: counted on the file's bytes, and
 * when the body is cut there its trailing partial line is dropped (unless the cut falls just
 * before a line end). An unpaired surrogate becomes U+FFFD, which percent.ts encodes as such.
 */
function decodeUtf16(
  body: Uint8Array,
  encoding: "utf-16le" | "utf-16be",
  maxBytes: number,
): DecodedRobots {
  const decoder = new TextDecoder(encoding, { ignoreBOM: true });
  if (body.length <= maxBytes) return { text: decoder.decode(body), truncated: false };
  const end = maxBytes - (maxBytes % 2);
  let text = decoder.decode(body.subarray(0, end));
  const next = decoder.decode(body.subarray(end, end + 2));
  if (next !== "\n" && next !== "\r") {
    const cut = Math.max(text.lastIndexOf("\n"), text.lastIndexOf("\r"));
    text = cut >= 0 ? text.slice(0, cut + 1) : "";
  }
  return { text, truncated: true };
}
