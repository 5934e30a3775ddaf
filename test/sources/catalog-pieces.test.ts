import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  blockChunks,
  fileLines,
  NotBlockShaped,
  textLines,
} from "../../src/sources/catalog/chunks.js";
import {
  type CatalogPart,
  checkCatalog,
  completePart,
  loadCatalogWithFiles,
  type RawPart,
} from "../../src/sources/catalog/load.js";
import { CatalogError, formatProblem } from "../../src/sources/catalog/problems.js";

/** Every problem line, or the entries, of one read of `text` (whole, or cut `perPiece` items). */
function read(text: string, opts: { perPiece?: number; whole?: boolean }) {
  try {
    const { sink, index } = checkCatalog(
      [{ file: "c.yaml", text }],
      () => {
        const parts: RawPart[] = [];
        return { parts, part: (p: RawPart) => void parts.push(p) };
      },
      opts,
    );
    const done = sink.parts.map((p) => completePart(p, index.zones));
    const all = (k: keyof CatalogPart) => done.flatMap((p) => p[k] as unknown[]);
    return {
      governments: all("governments"),
      sources: all("sources"),
      leads: all("leads"),
      whole: index.whole.size === 1,
    };
  } catch (e) {
    if (!(e instanceof CatalogError)) throw e;
    return { problems: e.problems.map(formatProblem) };
  }
}

const gov = (id: string) => `  - id: ${id}\n    name: ${id.toUpperCase()}\n    kind: city\n`;
const src = (id: string, g: string, extra = "") =>
  `  - id: ${id}\n    government: ${g}\n    records: bids\n    url: "https://${g}.gov/${id}"\n    access: feed\n${extra}`;

/** Catalogs written every way the pieces must read as a whole-file read does. */
const CASES: [string, string][] = [
  [
    "plain",
    `governments:\n${gov("a")}${gov("b")}${gov("c")}sources:\n${src("s1", "a")}${src("s2", "b")}${src("s3", "c")}${src("s4", "a")}`,
  ],
  [
    "problems in later items (indexes and lines count from the file's start)",
    `governments:\n${gov("a")}${gov("b")}    colour: red\n${gov("a")}sources:\n${src("s1", "a")}${src("s2", "zz")}${src("s1", "b")}  - id: s4\n    government: a\n    records: rumours\n    url: "ftp://x"\n    extract: { items: li }\n    platform: no-such\n`,
  ],
  [
    "comments and blank lines between and inside items, at any indentation",
    `# head\n\ngovernments:   # the bodies\n  # first\n${gov("a")}\n# col 0 comment\n${gov("b")}    # indented comment\n\nsources:\n${src("s1", "a")}\n\n  # between\n${src("s2", "b")}# trailing\n`,
  ],
  [
    "block scalars whose lines look like items",
    `governments:\n  - id: a\n    name: A\n    kind: city\n    notes: |\n      - not an item\n      sources:\n        - nor this\n${gov("b")}sources:\n${src("s1", "a", "    notes: >\n      folded\n      - text\n")}${src("s2", "b")}`,
  ],
  [
    "items at column 0",
    `governments:\n- id: a\n  name: A\n  kind: city\n- id: b\n  name: B\n  kind: village\nsources:\n- id: s1\n  government: a\n  records: bids\n  url: "https://a.gov/"\n- { id: s2, government: b, records: bids, url: "https://b.gov/", access: page }\n`,
  ],
  [
    "an alias to an anchor in another piece",
    `governments:\n  - id: a\n    name: &n Shared Name\n    kind: city\n  - id: b\n    name: *n\n    kind: city\nsources:\n${src("s1", "a")}`,
  ],
  [
    "an alias with no anchor anywhere",
    `governments:\n${gov("a")}  - id: b\n    name: *nope\n    kind: city\n`,
  ],
  [
    "flow style",
    `governments: [{ id: a, name: A, kind: city }]\nsources: [{ id: s, government: a, records: bids, url: "https://a.gov/" }]\n`,
  ],
  [
    "CRLF line ends",
    `governments:\r\n  - id: a\r\n    name: A\r\n    kind: city\r\n  - id: b\r\n    name: B\r\n    kind: city\r\nsources:\r\n  - { id: s, government: b, records: bids, url: "https://b.gov/", colour: 1 }\r\n`,
  ],
  ["a byte-order mark", `\uFEFFgovernments:\n${gov("a")}${gov("b")}`],
  [
    "a key given twice",
    `governments:\n${gov("a")}sources:\n${src("s1", "a")}governments:\n${gov("b")}`,
  ],
  [
    "an unknown top-level key",
    `governments:\n${gov("a")}${gov("b")}colour: blue\nsources:\n${src("s1", "a")}`,
  ],
  ["an empty list", `governments:\n${gov("a")}sources:\n`],
  ["a document marker", `---\ngovernments:\n${gov("a")}${gov("b")}`],
  [
    "a YAML error in one item",
    `governments:\n${gov("a")}  - id: b\n    name: [unclosed\n    kind: city\n${gov("c")}`,
  ],
  [
    "duplicate keys in one item",
    `governments:\n${gov("a")}  - id: b\n    id: c\n    name: B\n    kind: city\n`,
  ],
  [
    "credentials and leads, in pieces",
    `governments:\n${gov("a")}${gov("b")}sources:\n${src("s1", "a", "    headers: { Authorization: x }\n")}  - { id: s2, government: b, records: bids, url: "https://u:p@b.gov/" }\nleads:\n  - { government: a, records: minutes, url: "www.a.gov/minutes", why: needs a page recipe }\n  - { government: nowhere, records: minutes, url: "https://a.gov/{}", why: a template }\n  - { government: b, records: bids, url: "https://b.gov/?token=abc", why: x }\n`,
  ],
];

describe("a catalog read in pieces reads as the whole file does", () => {
  it.each(CASES)("%s", (_name, text) => {
    const whole = read(text, { whole: true });
    for (const perPiece of [1, 2, 3, 50]) {
      const got = read(text, { perPiece });
      const { whole: _w, ...rest } = got as { whole?: boolean };
      const { whole: _x, ...want } = whole as { whole?: boolean };
      expect(rest).toEqual(want);
    }
  });

  it("names the item by its place in the whole list, at its line in the file", () => {
    const text = `governments:\n${gov("a")}sources:\n${src("s0", "a")}${src("s1", "a")}${src("s2", "a")}  - id: s3\n    government: a\n    records: rumours\n    url: "https://a.gov/"\n`;
    // Line 23 is s3's `records`; one item a piece puts s3 alone in its own piece.
    expect(read(text, { perPiece: 1 })).toEqual({
      problems: [expect.stringMatching(/^c\.yaml:23:14: sources\[3\]\.records: must be one of /)],
    });
  });

  it("reads the plain block shape in pieces, and anything else whole", () => {
    const text = (name: string) => CASES.find(([n]) => n.startsWith(name))![1];
    expect(read(text("plain"), { perPiece: 1 })).toMatchObject({ whole: false });
    expect(read(text("comments"), { perPiece: 1 })).toMatchObject({ whole: false });
    expect(read(text("an alias to an anchor"), { perPiece: 1 })).toMatchObject({ whole: true });
    expect(read(text("flow style"), { perPiece: 1 })).toMatchObject({ whole: true });
    expect(read(text("an alias with no anchor"), {})).toEqual({
      problems: [
        "c.yaml:6:11: YAML: Unresolved alias (the anchor must be set before the alias): nope",
      ],
    });
  });
});

describe("cutting a file into pieces", () => {
  it("cuts whole items, at most N a piece, each piece knowing its first line and index", () => {
    const text = `governments:\n${gov("a")}${gov("b")}${gov("c")}sources:\n${src("s1", "a")}`;
    const pieces = [...blockChunks(textLines(text), 2)].map(({ text: _t, ...c }) => c);
    expect(pieces).toEqual([
      { section: "governments", firstLine: 2, firstIndex: 0, items: 2 },
      { section: "governments", firstLine: 8, firstIndex: 2, items: 1 },
      { section: "sources", firstLine: 12, firstIndex: 0, items: 1 },
    ]);
  });

  it.each([
    ["flow", "sources: []\n"],
    ["a mapping under a section", "sources:\n  a: 1\n"],
    ["a line outside the list", "sources:\n  - a\n x: 1\n"],
    ["a tab", "sources:\n\t- a\n"],
  ])("refuses %s (the file is then read whole)", (_n, text) => {
    expect(() => [...blockChunks(textLines(text), 5)]).toThrow(NotBlockShaped);
  });

  it("reads a file's lines in blocks without breaking a character or a line end", () => {
    const dir = mkdtempSync(join(tmpdir(), "nor-lines-"));
    const f = join(dir, "c.yaml");
    // Lines of varying length with multi-byte characters, over several 64 KiB blocks.
    const lines = Array.from(
      { length: 9000 },
      (_, i) => `  - é€𝄞 ${"x".repeat(i % 37)}${i % 5 === 0 ? "\r" : ""}\n`,
    );
    const text = `${lines.join("")}no newline at the end`;
    writeFileSync(f, text);
    const got = [...fileLines(f)];
    expect(got.join("")).toBe(text);
    expect(got).toHaveLength(9001);
    expect(got[9000]).toBe("no newline at the end");
  });
});

describe("a government's timezone reaches its sources' ways, whatever the order of the files", () => {
  it("fills the zone in from a government in a later file, read whole or a piece at a time", () => {
    const dir = mkdtempSync(join(tmpdir(), "nor-zones-"));
    const a = join(dir, "a.yaml");
    const b = join(dir, "b.yaml");
    writeFileSync(
      a,
      `sources:\n${src("s1", "chi")}    alternates:\n      - { url: "https://chi.gov/rss", access: feed }\n${src("s2", "oh")}`,
    );
    writeFileSync(
      b,
      `governments:\n${gov("oh")}  - id: chi\n    name: Chicago\n    kind: city\n    timezone: America/Chicago\n`,
    );
    const c = loadCatalogWithFiles([a, b]).catalog;
    const s1 = c.sources.find((s) => s.id === "s1")!;
    expect([s1.timezone, s1.alternates[0]?.timezone]).toEqual([
      "America/Chicago",
      "America/Chicago",
    ]);
    expect(c.sources.find((s) => s.id === "s2")?.timezone).toBeUndefined();
    // Cut finer, so that the sources are completed a piece at a time: the same entries.
    const { sink, index } = checkCatalog(
      [{ file: a }, { file: b }],
      () => {
        const parts: RawPart[] = [];
        return { parts, part: (d: RawPart) => void parts.push(d) };
      },
      { perPiece: 1 },
    );
    const again = sink.parts.flatMap((d) => completePart(d, index.zones).sources);
    expect(again).toEqual(c.sources);
  });
});
