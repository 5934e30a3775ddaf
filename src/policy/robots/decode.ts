import { ROBOTS_MAX_BYTES } from "../constants.js";

/**
 * Bytes (or text) of a robots.txt body → the text we parse.
 *
 * - P17: a UTF-8 byte-order mark at byte 0 is skipped. Google also skips a partial one
 *   (`EF`, `EF BB`), so we do too; a BOM anywhere else is ordinary content.
 * - RFC 9309 §2.5: at least 500 KiB is parsed (ROBOTS_MAX_BYTES, counted on the decoded
 *   body). When the body is cut there, the trailing partial line is dropped: a cut
 *   `Allow: /public/page` would become `Allow: /pub` and allow more than the owner wrote.
 * - RFC 9309 §2.3 wants UTF-8; invalid sequences become U+FFFD rather than failing (§2.2.2
 *   "MAY bridge encoding mismatches"), so one bad byte never costs the rest of the file.
 */
const BOM = [0xef, 0xbb, 0xbf] as const;
const LF = 0x0a;
const CR = 0x0d;

const decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });
const encoder = new TextEncoder();

export interface DecodedRobots {
  text: string;
  /** True when the body was longer than the limit and its tail was dropped. */
  truncated: boolean;
}

export function decodeRobotsBody(
  input: Uint8Array | string,
  maxBytes: number = ROBOTS_MAX_BYTES,
): DecodedRobots {
  if (typeof input === "string") {
    const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
    // A UTF-16 unit is at most 3 UTF-8 bytes, so short strings cannot exceed the limit.
    if (text.length * 3 <= maxBytes) return { text, truncated: false };
    // Only the first maxBytes + 1 bytes matter (the extra one says whether the cut fell on a
    // line end), and they come from at most maxBytes + 1 characters.
    return decodeBytes(encoder.encode(text.slice(0, maxBytes + 1)), maxBytes, false);
  }
  return decodeBytes(input, maxBytes, true);
}

function decodeBytes(bytes: Uint8Array, maxBytes: number, skipBom: boolean): DecodedRobots {
  let start = 0;
  if (skipBom) {
    while (start < BOM.length && start < bytes.length && bytes[start] === BOM[start]) start++;
  }
  const body = bytes.subarray(start);
  if (body.length <= maxBytes) return { text: decoder.decode(body), truncated: false };

  // Cut at the limit; keep the last line only if it ended exactly at the cut.
  const next = body[maxBytes];
  let end = maxBytes;
  if (next !== LF && next !== CR) {
    end = lastLineEnd(body, maxBytes);
  }
  return { text: decoder.decode(body.subarray(0, end)), truncated: true };
}

/** Index just past the last CR or LF before `limit`, or 0 when the whole prefix is one line. */
function lastLineEnd(body: Uint8Array, limit: number): number {
  for (let i = limit - 1; i >= 0; i--) {
    const b = body[i];
    if (b === LF || b === CR) return i + 1;
  }
  return 0;
}
