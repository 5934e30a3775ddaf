/**
 * Percent-encoding normalisation, applied the same way to the request's path+query and to
 * every pattern so the two compare octet for octet (RFC 9309 §2.2.2, P17). Both sides come
 * in as text: the URL as WHATWG serialises it, the pattern as decode.ts decoded the file
 * (a byte that was not UTF-8 is already `%XX` there).
 *
 * - `%hh` gets upper-case hex; if it encodes an unreserved character (RFC 3986 §2.3:
 *   A-Z a-z 0-9 - . _ ~) it is decoded (`/%7Efoo` ≡ `/~foo`, Figure 4's `%62%61%7A` ≡ `baz`).
 *   Other escapes stay escaped: `%2F` is not `/`, `%3F` is not `?`.
 * - A `%` that starts no valid escape is itself encoded (`%25`), so `/100%` in a URL and in a
 *   pattern still meet.
 * - Non-ASCII is encoded as UTF-8 (`ツ` ≡ `%E3%83%84`); a lone surrogate becomes U+FFFD.
 * - ASCII that is neither unreserved nor reserved (controls, space, `"` `<` `>` `\` `^` `` ` ``
 *   `{` `|` `}`) is encoded, because clients differ in whether they encode it; otherwise a
 *   pattern `/a|b` would miss a request for `/a%7Cb` and fail open. `[` and `]` are reserved
 *   but have no meaning in a path and are encoded by some clients, so they are treated the
 *   same way, and so is `'`: WHATWG URL sends it as `%27` in a query but not in a path, so
 *   a rule `/s?q='x'` must meet the URL written `/s?q='x'` (the octets as written).
 * - Paths only: a literal `*` becomes `%2A` and `$` becomes `%24`, the spelling a pattern
 *   must use to match them (§2.2.3, Figure 6). In patterns a raw `*` is the wildcard, a
 *   final `$` is the end anchor, and a `$` elsewhere is literal, hence `%24`.
 */
export type NormaliseMode = "path" | "pattern";

const HEX = "0123456789ABCDEF";

/** 1: keep as is; 2: percent-encode; 0: needs a closer look (`%`, `*`, `$`). */
const ASCII_CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  if (c <= 0x20 || c === 0x7f || `"'<>\\^\`{|}[]`.includes(ch)) ASCII_CLASS[c] = 2;
  else if (ch === "%" || ch === "*" || ch === "$") ASCII_CLASS[c] = 0;
  else ASCII_CLASS[c] = 1;
}

function isUnreserved(c: number): boolean {
  return (
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x61 && c <= 0x7a) ||
    (c >= 0x30 && c <= 0x39) ||
    c === 0x2d ||
    c === 0x2e ||
    c === 0x5f ||
    c === 0x7e
  );
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  return -1;
}

function pct(byte: number): string {
  return `%${HEX[byte >> 4]}${HEX[byte & 15]}`;
}

/** True when `s` is already in normal form for `mode`, the common case worth a fast exit. */
function isNormal(s: string, mode: NormaliseMode): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) return false;
    const cls = ASCII_CLASS[c];
    if (cls === 1) continue;
    if (cls === 2) return false;
    if (c === 0x25 /* % */) return false;
    if (mode === "path") return false;
    if (c === 0x24 /* $ */ && i !== s.length - 1) return false;
  }
  return true;
}

export function normalise(s: string, mode: NormaliseMode): string {
  if (isNormal(s, mode)) return s;
  let out = "";
  const last = s.length - 1;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) {
      const cls = ASCII_CLASS[c];
      if (cls === 1) out += s[i];
      else if (cls === 2) out += pct(c);
      else if (c === 0x25) {
        const h = hexValue(s.charCodeAt(i + 1));
        const l = hexValue(s.charCodeAt(i + 2));
        if (h < 0 || l < 0) {
          out += "%25";
        } else {
          const byte = (h << 4) | l;
          out += isUnreserved(byte) ? String.fromCharCode(byte) : pct(byte);
          i += 2;
        }
      } else if (c === 0x2a /* * */) out += mode === "pattern" ? "*" : "%2A";
      else out += mode === "pattern" && i === last ? "$" : "%24";
      continue;
    }
    let cp = c;
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        cp = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        i++;
      } else cp = 0xfffd;
    } else if (c >= 0xdc00 && c <= 0xdfff) cp = 0xfffd;
    out += utf8Escaped(cp);
  }
  return out;
}

function utf8Escaped(cp: number): string {
  if (cp < 0x800) return pct(0xc0 | (cp >> 6)) + pct(0x80 | (cp & 63));
  if (cp < 0x10000) {
    return pct(0xe0 | (cp >> 12)) + pct(0x80 | ((cp >> 6) & 63)) + pct(0x80 | (cp & 63));
  }
  return (
    pct(0xf0 | (cp >> 18)) +
    pct(0x80 | ((cp >> 12) & 63)) +
    pct(0x80 | ((cp >> 6) & 63)) +
    pct(0x80 | (cp & 63))
  );
}
