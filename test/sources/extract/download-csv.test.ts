import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { MAX_COLUMNS, readCsv } from "../../../src/sources/extract/download-csv.js";

/** What download.ts asked of csv-parse before download-csv.ts read its CSV. */
function oldRead(text: string, delimiter: string, maxRows: number) {
  try {
    const rows = parse(text, {
      columns: (header: string[]) => header.map((h) => h.trim()),
      delimiter,
      bom: true,
      skip_empty_lines: true,
      relax_column_count: true,
      trim: true,
      to: maxRows + 1,
    }) as Record<string, string>[];
    const truncated = rows.length > maxRows;
    if (truncated) rows.length = maxRows;
    return { ok: true as const, rows, truncated };
  } catch (e) {
    return { ok: false as const, why: (e as Error).message };
  }
}

function same(text: string, delimiter = ",", maxRows = 1000) {
  const old = oldRead(text, delimiter, maxRows);
  const now = readCsv(text, delimiter, maxRows);
  // The one kind of file read now that csv-parse refused: white space outside ASCII (a
  // no-break space) after a closing quote, which it met one byte at a time.
  if (!old.ok && old.why.includes("non trimable") && /[^\x00-\x7f]/.test(text)) return;
  expect(now.ok, JSON.stringify(text)).toBe(old.ok);
  if (now.ok && old.ok) {
    expect(
      now.rows.map((r) => Object.entries(r)),
      JSON.stringify(text),
    ).toEqual(old.rows.map((r) => Object.entries(r)));
    expect(now.truncated).toBe(old.truncated);
  }
}

describe("download-csv: the same rows as csv-parse with download.ts's old options", () => {
  const cases = [
    "",
    "Title",
    "Title\n",
    "Title,Date\na,2024-01-01\nb,2024-01-02\n",
    "\ufeffTitle,Date\r\na,1\r\nb,2\r\n",
    "Title,Date\ra,1\rb,2",
    "Title,Date\r\na,1\nb,2\r\n",
    " Title , Date \n  a  ,  1  \n",
    'Title,Date\n"a, b",1\n"say ""hi""",2\n',
    'Title\n"line\none"\n"x"\n',
    'Title\n"unclosed\n',
    'Title\na"b\n',
    'Title\n"a"b\n',
    'Title\n"a" \n',
    'Title\n"a"  ,x\n',
    'Title\n"" \n',
    'Title\n"""\n',
    'Title\n""""\n',
    "Title\n\n\n  \na\n\n",
    "Title,Date\na\nb,1,extra,more\n",
    "Title,Title\na,b\n",
    "__proto__,x\na,b\n",
    ",\n,\n",
    "Title\n\u00a0a\u00a0\n\u3000b\n",
    "Title\ta\n1\t2\n",
    'Title\n"a"\r\nb\r\n',
  ];
  for (const text of cases)
    it(`P14: ${JSON.stringify(text).slice(0, 40)}`, () => {
      same(text);
      same(text, "\t");
      same(text, ";");
    });

  it("P14: a no-break space after a closing quote is white space, trimmed as a space is", () => {
    const now = readCsv('Title,Id\n"a"\u00a0,1\n', ",", 10);
    expect(now).toEqual({ ok: true, rows: [{ Title: "a", Id: "1" }], truncated: false });
  });

  it("P14: a header of MAX_COLUMNS columns is read, one more is refused at once", () => {
    const wide = (k: number) => `${Array.from({ length: k }, (_, j) => `c${j}`).join(",")}\nx\n`;
    const read = readCsv(wide(MAX_COLUMNS), ",", 10);
    expect(read.ok && read.rows).toEqual([{ c0: "x" }]);
    expect(readCsv(wide(MAX_COLUMNS + 1), ",", 10)).toEqual({
      ok: false,
      why: `a header of more than ${MAX_COLUMNS} columns`,
    });
  });

  it("P14: stops after maxRows rows and says so, as `to` did", () => {
    for (const text of [
      "T\na\nb\nc\n",
      "T\na\nb\n",
      "T\na\nb",
      "T\r\na\r\n\r\nb\r\nc",
      "T\ra\rb\rc",
    ])
      for (const maxRows of [0, 1, 2, 3]) same(text, ",", maxRows);
  });

  it("P14: 20,000 random small files read alike", () => {
    const alphabet = ['"', '"', ",", ";", "\n", "\r", "\r\n", " ", "\t", "a", "b", "\u00a0", "x y"];
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed;
    };
    for (let k = 0; k < 20_000; k++) {
      let text = "";
      const len = next() % 40;
      for (let j = 0; j < len; j++) text += alphabet[next() % alphabet.length];
      same(text, k % 3 === 0 ? ";" : ",", 1 + (next() % 4));
    }
  });
});
