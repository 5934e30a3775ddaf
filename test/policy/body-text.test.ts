import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { bodyEncoding, formUrlencoded } from "../../src/policy/body-text.js";

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
    // a zip's member names are not an answer's text.
    const allowed = new Set([
      "src/policy/body-text.ts",
      "src/policy/robots/decode.ts",
      "src/sources/extract/download-zip.ts",
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
