import { knownKeyWithColonAt, type RobotsKey, recogniseKey } from "./keys.js";

/** One record of a robots.txt line: a known key and its trimmed value. */
export interface RobotsLine {
  key: RobotsKey;
  value: string;
}

/** RFC 9309 §2.2: NL = CR / LF / CRLF. */
const LINE_BREAK = /\r\n|\r|\n/;

export function splitLines(text: string): string[] {
  return text.split(LINE_BREAK);
}

function isBlank(code: number): boolean {
  // WS of RFC 9309 is space and tab; Google also strips \v and \f.
  return code === 0x20 || code === 0x09 || code === 0x0b || code === 0x0c;
}

function trimBlanks(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && isBlank(s.charCodeAt(a))) a++;
  while (b > a && isBlank(s.charCodeAt(b - 1))) b--;
  return a === 0 && b === s.length ? s : s.slice(a, b);
}

/**
 * Reads one physical line into zero or more records.
 *
 * Order matters (P17, research §1.9): the comment goes first, so `User-agent: * # Disallow: /`
 * stays a lone user-agent line. Only then is `User-agent: * Disallow: /` split, and only at
 * blanks followed by a key we know and a colon: product tokens and path patterns contain no
 * blanks, so that split cannot cut a real value in two.
 */
export function lexLine(raw: string): RobotsLine[] {
  const hash = raw.indexOf("#");
  const line = trimBlanks(hash >= 0 ? raw.slice(0, hash) : raw);
  if (line.length === 0) return [];
  const out: RobotsLine[] = [];
  let start = 0;
  let i = 0;
  while (i < line.length) {
    if (!isBlank(line.charCodeAt(i))) {
      i++;
      continue;
    }
    const runStart = i;
    while (i < line.length && isBlank(line.charCodeAt(i))) i++;
    if (i < line.length && knownKeyWithColonAt(line, i)) {
      pushRecord(out, line.slice(start, runStart));
      start = i;
    }
  }
  pushRecord(out, line.slice(start));
  return out;
}

function pushRecord(out: RobotsLine[], piece: string): void {
  const text = trimBlanks(piece);
  let keyText: string;
  let value: string;
  const colon = text.indexOf(":");
  if (colon >= 0) {
    keyText = trimBlanks(text.slice(0, colon));
    value = trimBlanks(text.slice(colon + 1));
  } else {
    // Google reads `Disallow /x` (colon forgotten) as a rule, but only when the line is
    // exactly two words; we do the same so a forgotten colon does not silently allow. The
    // words are split on space and tab only (RFC 9309 §2.2, WS): `Disallow\v/v` is no rule,
    // so it does not end the group either.
    const words = text.split(/[ \t]+/);
    if (words.length !== 2) return;
    keyText = words[0] ?? "";
    value = words[1] ?? "";
  }
  if (keyText.length === 0) return;
  const key = recogniseKey(keyText);
  if (key !== undefined) out.push({ key, value });
}
