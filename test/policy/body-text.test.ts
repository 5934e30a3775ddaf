import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { bodyEncoding, decodeBody, formUrlencoded } from "../../src/policy/body-text.js";

const ROOT = join(import.meta.dirname, "..", "..");

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : /\.tsx?$/.test(n) ? [p] : [];
  });
}

describe("one body decoder (policy/body-text.ts)", () => {
  it("bytes of an answer become text in body-text.ts only", () => {
    // robots.txt keeps odd bytes as percent-escapes to match rules octet for octet (P17);
    // a zip's member names are not an answer's text; a catalog file is the operator's, read as
    // strict UTF-8 (anything else refused, by line and column).
    const allowed = new Set([
      "src/policy/body-text.ts",
      "src/policy/robots/decode.ts",
      "src/sources/extract/download-zip.ts",
      "src/sources/catalog/read.ts",
    ]);
    const found: string[] = [];
    // The layers that read answers (the archive's WARC headers and the CLI's stdin are not).
    const layers = ["sources", "night", "policy", "net"].map((l) => join(ROOT, "src", l));
    for (const p of layers.flatMap(files)) {
      const rel = relative(ROOT, p).split(sep).join("/");
      if (allowed.has(rel)) continue;
      readFileSync(p, "utf8")
        .split("\n")
        .forEach((line, i) => {
          if (
            /new TextDecoder\b|Buffer\.from\([^)]*\)\.toString\(|\.toString\(\s*["'](?:utf-?8|latin1|binary)["']/i.test(
              line,
            )
          )
            found.push(`${rel}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(found).toEqual([]);
  });

  it("the encoding a browser would read a page in: BOM, header, then the page's own word", () => {
    const latin = new TextEncoder().encode('<meta charset="iso-8859-1"><p>x');
    expect(bodyEncoding(latin)).toBe("windows-1252");
    expect(bodyEncoding(latin, "text/html; charset=utf-8")).toBe("utf-8");
    expect(
      bodyEncoding(new Uint8Array([0xef, 0xbb, 0xbf, 0x41]), "text/html; charset=windows-1252"),
    ).toBe("utf-8");
    expect(bodyEncoding(new Uint8Array([0x41]))).toBe("utf-8");
  });

  it("P6: a page whose <meta> or XML declaration says UTF-16 (no BOM) is read as UTF-8, as a browser reads it", () => {
    const enc = (s: string) => new TextEncoder().encode(s);
    for (const head of [
      '<meta http-equiv="Content-Type" content="text/html; charset=utf-16">',
      '<meta charset="utf-16le">',
      "<meta charset=UTF-16BE>",
      '<?xml version="1.0" encoding="UTF-16"?>',
    ]) {
      const page = enc(
        `${head}<table><tr class="r"><td><a href="/bid/1">Road salt bid – café</a></td></tr></table>`,
      );
      expect(bodyEncoding(page), head).toBe("utf-8");
      expect(decodeBody(page), head).toContain("Road salt bid – café</a>");
    }
    // A UTF-16 page with its BOM is UTF-16 still.
    const le = Buffer.from('\ufeff<meta charset="utf-16"><p>Road salt</p>', "utf16le");
    expect(bodyEncoding(new Uint8Array(le))).toBe("utf-16le");
    expect(decodeBody(new Uint8Array(le))).toBe('<meta charset="utf-16"><p>Road salt</p>');
  });
});

describe("formUrlencoded: a form sent in its page's encoding (P5, as a browser sends it)", () => {
  const samples = [
    "plain",
    "a b+c&d=e",
    "*-._~!'()",
    "Café – Minutes",
    "“CAFÉ”",
    "€ 5 • ß",
    "日本 😀",
    "\r\n\t%",
  ];

  it("UTF-8 is exactly what URLSearchParams writes", () => {
    for (const s of samples) {
      const entries: [string, string][] = [
        [s, s],
        ["k", s],
      ];
      expect(formUrlencoded(entries)).toBe(new URLSearchParams(entries).toString());
      expect(formUrlencoded(entries, "utf-16le")).toBe(new URLSearchParams(entries).toString());
    }
  });

  it("windows-1252 (and its Latin-1 labels) as its own bytes; what it lacks as &#N;", () => {
    expect(formUrlencoded([["t", "Café – Minutes"]], "windows-1252")).toBe("t=Caf%E9+%96+Minutes");
    expect(formUrlencoded([["t", "“CAFÉ” €"]], "iso-8859-1")).toBe("t=%93CAF%C9%94+%80");
    expect(formUrlencoded([["t", "日"]], "latin1")).toBe("t=%26%2326085%3B");
    expect(formUrlencoded([["a*b", "x.y_z-1"]], "windows-1252")).toBe("a*b=x.y_z-1");
  });
});

describe("windows-1252, byte for byte (decodeBody)", () => {
  // WHATWG windows-1252: bytes 0x80–0x9F as its index says, every other byte its own code point.
  const C1 = [
    0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039,
    0x152, 0x8d, 0x17d, 0x8f, 0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc,
    0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178,
  ];
  const expected = (b: Uint8Array) =>
    [...b]
      .map((c) => String.fromCharCode(c >= 0x80 && c <= 0x9f ? (C1[c - 0x80] as number) : c))
      .join("");

  it("every byte, a body longer than 8 kB, and a body that is a slice of a larger buffer", () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    expect(decodeBody(all, "text/html; charset=windows-1252")).toBe(expected(all));
    const long = Uint8Array.from({ length: 20_000 }, (_, i) => (i * 7919) % 256);
    expect(decodeBody(long, "text/plain; charset=iso-8859-1")).toBe(expected(long));
    const slice = long.subarray(1001, 9500);
    expect(decodeBody(slice, "text/plain; charset=latin1")).toBe(expected(slice));
  });

  it("UTF-8 with stray bytes reads each invalid byte as windows-1252, and the sniff finds a declaration", () => {
    const bytes = Uint8Array.from([0x61, 0x93, 0xc3, 0xa9, 0x94, 0x80, 0x62]);
    expect(decodeBody(bytes)).toBe("a\u201c\u00e9\u201d\u20acb");
    const declared = new TextEncoder().encode('<?xml version="1.0" encoding="windows-1252"?><a>');
    const body = new Uint8Array([...declared, 0x96, 0x3c, 0x2f, 0x61, 0x3e]);
    expect(bodyEncoding(body)).toBe("windows-1252");
    expect(decodeBody(body)).toBe('<?xml version="1.0" encoding="windows-1252"?><a>\u2013</a>');
  });
});
