/**
 * Enough HTML character-reference decoding for marker matching (P21): every numeric
 * reference, and the named ones that appear in vendor block pages. Akamai encodes its deny
 * page's reference (`Reference&#32;&#35;18&#46;…`), so matching must see what a browser shows.
 */
const NAMED: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  num: "#",
  period: ".",
  colon: ":",
  sol: "/",
  hyphen: "-",
  lpar: "(",
  rpar: ")",
  excl: "!",
  quest: "?",
  equals: "=",
  commat: "@",
  copy: "©",
  rsquo: "’",
  lsquo: "‘",
  rdquo: "”",
  ldquo: "“",
  hellip: "…",
  ndash: "–",
  mdash: "—",
};

function fromCodePoint(cp: number): string {
  if (!Number.isFinite(cp) || cp <= 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
    return "\uFFFD";
  }
  return String.fromCodePoint(cp);
}

export function decodeEntities(s: string): string {
  if (!s.includes("&")) return s;
  return s.replace(
    /&#(\d{1,7});?|&#[xX]([0-9a-fA-F]{1,6});?|&([A-Za-z]{2,8});/g,
    (all, dec, hex, name) => {
      if (dec !== undefined) return fromCodePoint(Number(dec));
      if (hex !== undefined) return fromCodePoint(Number.parseInt(hex, 16));
      return NAMED[(name as string).toLowerCase()] ?? all;
    },
  );
}
