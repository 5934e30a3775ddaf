import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkCatalog, loadCatalog } from "../../src/sources/catalog/load.js";
import { CatalogError } from "../../src/sources/catalog/problems.js";
import { openStore } from "../../src/store/db.js";
import { nor } from "../cli/cli-capture.js";

/**
 * A catalog file is UTF-8 or it is refused at its first bad byte: decoded with U+FFFD in place
 * of what was written, a Latin-1 `Café` would be stored as a name nobody wrote and `caf\xe9`
 * requested as `caf%EF%BF%BD`, an address nobody gave.
 */
describe("a catalog file that is not UTF-8", () => {
  const dir = mkdtempSync(join(tmpdir(), "nor-catalog-input-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, bytes: Buffer | string) => {
    const f = join(dir, name);
    writeFileSync(f, bytes);
    return f;
  };
  const latin1 = (text: string) => Buffer.from(text, "latin1");
  const catalog = (name: string, feed: string) =>
    `governments:\n  - id: city-of-x\n    name: ${name}\n    kind: city\nsources:\n  - id: x-agendas\n    government: city-of-x\n    records: agendas\n    url: https://www.x.gov/feed/${feed}\n    access: feed\n`;
  /** The problems of checking these files, as the CLI prints them (none: []). */
  const problems = (files: string[], opts: { whole?: boolean } = {}) => {
    try {
      checkCatalog(
        files.map((file) => ({ file })),
        () => ({}),
        opts,
      );
      return [];
    } catch (e) {
      if (!(e instanceof CatalogError)) throw e;
      return e.problems.map((p) => `${p.file}:${p.line}:${p.col}: ${p.message}`);
    }
  };

  it("Latin-1: refused at the first bad byte's line and column (exit 2), and nothing is imported", async () => {
    const data = join(dir, "data");
    const good = write("good.yaml", catalog("Cafe Township", "cafe"));
    expect((await nor("catalog", "import", good, "--data", data)).code).toBe(0);

    const f = write("latin1.yaml", latin1(catalog("Caf\xe9 Township", "caf\xe9")));
    const check = await nor("catalog", "check", f);
    expect(check.code).toBe(2);
    const said = new RegExp(`^${f}:3:14: not UTF-8: byte 0xE9 is not part of a UTF-8 character`);
    expect(check.stdout).toMatch(said);
    expect(check.stdout.split("\n").filter(Boolean)).toHaveLength(1);

    const again = await nor("catalog", "import", f, "--data", data);
    expect(again.code).toBe(2);
    expect(again.stdout).toMatch(said);
    const store = await openStore({ kind: "sqlite", dir: data });
    try {
      const govs = await store.db.selectFrom("governments").select("name").execute();
      expect(govs.map((g) => g.name)).toEqual(["Cafe Township"]);
      const srcs = await store.db.selectFrom("sources").select("url").execute();
      expect(srcs.map((s) => s.url)).toEqual(["https://www.x.gov/feed/cafe"]);
    } finally {
      await store.close();
    }
  });

  it("hides no other file's problems: each file is still checked, and a government the unread part may name is not called unknown", async () => {
    const bad = write("latin1-b.yaml", latin1(catalog("Caf\xe9 Township", "caf\xe9")));
    const other = write(
      "other.yaml",
      "governments:\n  - id: city-of-y\n    name: Y\n    kind: city\n  - id: city-of-y\n    name: Y again\n    kind: city\nsources:\n  - id: y-agendas\n    government: city-of-x\n    records: agendas\n    url: https://www.y.gov/feed\n    access: feed\n    colour: blue\n",
    );
    for (const files of [
      [bad, other],
      [other, bad],
    ]) {
      const said = problems(files);
      expect(
        said.some((p) => p.startsWith(`${bad}:3:14: not UTF-8`)),
        said.join("\n"),
      ).toBe(true);
      expect(said.some((p) => p.includes('duplicate government id "city-of-y"'))).toBe(true);
      expect(
        said.some((p) => /other.yaml:14:5: .*unknown/i.test(p)),
        said.join("\n"),
      ).toBe(true);
      // city-of-x is named in the file not read to its end: not said to be unknown.
      expect(said.some((p) => p.includes("unknown government"))).toBe(false);
      // The same through the command, which exits 2.
      const check = await nor("catalog", "check", ...files);
      expect(check.code).toBe(2);
      expect(check.stdout).toContain("not UTF-8");
      expect(check.stdout).toContain('duplicate government id "city-of-y"');
    }
    // Read to its end, a file's unknown government is said as ever.
    const alone = problems([other]);
    expect(alone.some((p) => p.includes('unknown government "city-of-x"'))).toBe(true);
  });

  it("is said the same way when the file is read whole, and by loadCatalog", () => {
    // Flow style is not the plain block shape: the file is read whole (chunks.ts).
    const f = write(
      "flow.yaml",
      latin1("governments: [{ id: city-of-x, name: Caf\xe9, kind: city }]\n"),
    );
    expect(problems([f])).toEqual([
      expect.stringMatching(new RegExp(`^${f}:1:41: not UTF-8: byte 0xE9 `)),
    ]);
    const block = write("block.yaml", latin1(catalog("Caf\xe9", "x")));
    expect(problems([block], { whole: true })).toEqual(problems([block]));
    expect(() => loadCatalog([block])).toThrow(/block\.yaml:3:14: not UTF-8: byte 0xE9/);
  });

  it("names the line and column past the first block read, and keeps a character the block cuts", () => {
    // Sources enough to pass the 64 KiB a block holds, an "é" written across the first
    // block's end, and a Latin-1 byte far below it.
    const head = "governments:\n  - id: city-of-x\n    name: X\n    kind: city\nsources:\n";
    const item = (i: number) =>
      `  - id: s${i}\n    government: city-of-x\n    records: agendas\n    url: https://www.x.gov/${i}\n`;
    let text = head;
    for (let i = 0; text.length < 60_000; i++) text += item(i);
    text +=
      "  - id: cut\n    government: city-of-x\n    records: agendas\n    url: https://www.x.gov/cut\n";
    const name = `${"a".repeat(65_535 - text.length - "    name: ".length)}é`;
    text += `    name: ${name}\n`;
    const cut = Buffer.from(text, "utf8");
    // The "é" (2 bytes) starts one byte before a block's end.
    expect(cut.indexOf(Buffer.from("é")) % 65_536).toBe(65_535);
    const ok = write("long-ok.yaml", cut);
    expect(problems([ok])).toEqual([]);
    expect(loadCatalog([ok]).sources.find((s) => s.id === "cut")?.name).toBe(name);

    const lines = text.split("\n").length - 1;
    const bad = write(
      "long-bad.yaml",
      Buffer.concat([cut, latin1("  - id: last\n    government: city-of-x\n    records: \xe9\n")]),
    );
    expect(problems([bad])).toEqual([
      expect.stringMatching(new RegExp(`^${bad}:${lines + 3}:14: not UTF-8: byte 0xE9 `)),
    ]);
  });

  it("a UTF-8 byte-order mark is accepted; a UTF-16 file is said to be UTF-16", async () => {
    const text = catalog("Café Township", "café");
    const bom = write(
      "bom.yaml",
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]),
    );
    expect(await nor("catalog", "check", bom)).toMatchObject({
      code: 0,
      stdout: "ok: 1 government, 1 source\n",
    });
    expect(loadCatalog([bom]).governments[0]?.name).toBe("Café Township");

    const le = write(
      "utf16le.yaml",
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]),
    );
    const r = await nor("catalog", "check", le);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe(
      `${le}:1:1: not UTF-8: the file is UTF-16 (it starts with a UTF-16 byte-order mark); a catalog file must be saved as UTF-8\n`,
    );
    const be = Buffer.from(text, "utf16le").swap16();
    const beFile = write("utf16be.yaml", Buffer.concat([Buffer.from([0xfe, 0xff]), be]));
    expect(problems([beFile])).toEqual([
      expect.stringContaining(`${beFile}:1:1: not UTF-8: the file is UTF-16`),
    ]);
  });

  it("a NUL byte is refused (UTF-16 without a byte-order mark), never stored as U+FFFD", () => {
    const noMark = write("utf16-no-mark.yaml", Buffer.from(catalog("X", "x"), "utf16le"));
    expect(problems([noMark])).toEqual([
      `${noMark}:1:2: a NUL byte (0x00), which no text holds (a UTF-16 file without a byte-order mark?); save the file as UTF-8`,
    ]);
    const nul = write("nul.yaml", catalog("X\0Y", "x"));
    expect(problems([nul])).toEqual([
      expect.stringMatching(new RegExp(`^${nul}:3:12: a NUL byte`)),
    ]);
  });

  it("refuses overlong forms, surrogates and a character the file ends inside", () => {
    const g = "governments: []\n# ";
    for (const [bytes, col] of [
      [[0xc0, 0xaf], 3], // overlong "/"
      [[0xed, 0xa0, 0x80], 3], // a UTF-16 surrogate
      [[0xf4, 0x90, 0x80, 0x80], 3], // above U+10FFFF
      [[0xc3], 3], // the file ends inside "é"
    ] as const) {
      const f = write("odd.yaml", Buffer.concat([Buffer.from(g), Buffer.from(bytes)]));
      expect(problems([f])).toEqual([
        expect.stringMatching(
          new RegExp(`^${f}:2:${col}: not UTF-8: byte 0x${bytes[0].toString(16).toUpperCase()} `),
        ),
      ]);
    }
  });
  it("old Mac line endings (a CR alone): refused at the first one's line and column, not read as one long line whose errors name no field; CRLF and LF still read", async () => {
    const text = catalog("Cr Township", "cr");
    const mac = write("mac.yaml", text.replaceAll("\n", "\r"));
    const said = problems([mac]);
    expect(said).toEqual([
      `${mac}:1:13: a line ends with a carriage return alone (CR, 0x0D: an old Mac line ending), which is not read as a line break; save the file with LF (or CRLF) line endings`,
    ]);
    // Lines ended by LF, then a CR alone last in the first block: the place is counted across both.
    const late = `${text}${"#".repeat(65_536 - text.length - 1)}\r  \n`;
    const lateFile = write("late-cr.yaml", late);
    expect(problems([lateFile])[0]).toMatch(
      /late-cr\.yaml:11:65\d{3}: a line ends with a carriage return alone/,
    );
    // A CRLF split by the block's end is a line break, as is every other CRLF.
    const split = write("split.yaml", `${"#".repeat(65_535)}\r\n${text.replaceAll("\n", "\r\n")}`);
    expect(problems([split])).toEqual([]);
    expect(problems([write("crlf.yaml", text.replaceAll("\n", "\r\n"))])).toEqual([]);
    const check = await nor("catalog", "check", mac);
    expect(check.code).toBe(2);
  });
});
