/**
 * The CSV reader of the download way: the header row names the columns, every later row is a
 * record of those names. It reads as csv-parse 7 did with the options download.ts gave it
 * (`columns` from the trimmed header, `bom`, `skip_empty_lines`, `relax_column_count`, `trim`,
 * the record delimiter found as the first `\r\n`, `\n` or `\r` outside quotes, `""` a quote
 * inside quotes), so a file gives the same records but in the two cases said below
 * (test/sources/extract/download-csv.test.ts compares the two). It exists because csv-parse builds an error (a stack, the record copied
 * through JSON) for every row whose width differs from the header's even when told to let
 * such rows be: about 38 µs a row, minutes for a 19 MB file of them (P13, P14). It stops after
 * `maxRows` data rows and says whether there were more, and refuses a header wider than
 * MAX_COLUMNS; it reads a no-break space after a closing quote as white space (csv-parse, going
 * byte by byte, refused the file).
 */

export type CsvRead =
  | { ok: true; rows: Record<string, string>[]; truncated: boolean }
  | { ok: false; why: string };

/** The characters csv-parse's `trim` takes away (String.prototype.trim's white space). */
function isTrimmable(c: number): boolean {
  return (
    c === 0x20 ||
    (c >= 0x09 && c <= 0x0d) ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

const QUOTE = 0x22;

/**
 * The widest header read: a spreadsheet's own limit (Excel's last column, XFD). A header of
 * 19 million empty names under 20 MiB took 1.7 s and 0.5 GB to read to its end.
 */
export const MAX_COLUMNS = 16_384;

/** The rows of a CSV text, at most `maxRows` of them after the header. */
export function readCsv(text: string, delimiter: string, maxRows: number): CsvRead {
  const s = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const d = delimiter.charCodeAt(0);
  const n = s.length;
  let rd = ""; // the record delimiter, once found
  let field = "";
  let quoting = false;
  let wasQuoting = false;
  let record: string[] = [];
  let header: string[] | undefined;
  const rows: Record<string, string>[] = [];
  let lineNo = 1; // counted outside quotes only

  const endField = () => {
    // Cells past the header's width are dropped (as relax_column_count did), not kept.
    if (header === undefined || record.length < header.length)
      record.push(wasQuoting ? field : field.trimEnd());
    field = "";
    wasQuoting = false;
  };
  /** False when the bound is passed. */
  const endRecord = (): boolean => {
    const r = record;
    record = [];
    if (header === undefined) {
      header = r.map((h) => h.trim());
      return true;
    }
    if (rows.length === maxRows) return false;
    const row: Record<string, string> = {};
    const width = Math.min(r.length, header.length);
    for (let k = 0; k < width; k++)
      Object.defineProperty(row, header[k] as string, {
        value: r[k],
        enumerable: true,
        writable: true,
        configurable: true,
      });
    rows.push(row);
    return true;
  };
  const found = (i: number): string => {
    if (s.startsWith("\r\n", i)) return "\r\n";
    const c = s[i];
    return c === "\n" || c === "\r" ? c : "";
  };

  let i = 0;
  while (i < n) {
    if (rd === "" && !quoting) rd = found(i);
    const c = s.charCodeAt(i);
    if (quoting) {
      // To the quote that may close the field: `""` is a quote inside it (one slice for the
      // whole run; split and join, as replaceAll took 0.9 s on 9.5 million of them).
      let k = s.indexOf('"', i);
      let escaped = false;
      while (k >= 0 && k + 1 < n && s.charCodeAt(k + 1) === QUOTE) {
        escaped = true;
        k = s.indexOf('"', k + 2);
      }
      if (k < 0) break; // never closed
      field += escaped ? s.slice(i, k).split('""').join('"') : s.slice(i, k);
      const next = k + 1;
      if (rd === "") rd = found(next);
      if (
        next >= n ||
        s.charCodeAt(next) === d ||
        (rd !== "" && s.startsWith(rd, next)) ||
        isTrimmable(s.charCodeAt(next))
      ) {
        quoting = false;
        wasQuoting = true;
        i = next;
        continue;
      }
      return { ok: false, why: `Invalid Closing Quote: got "${s[next]}" in line ${lineNo}` };
    }
    if (c === QUOTE) {
      if (field.length !== 0)
        return {
          ok: false,
          why: `Invalid Opening Quote: a quote is found in a field in line ${lineNo}`,
        };
      quoting = true;
      i++;
      continue;
    }
    if (rd !== "" && s.startsWith(rd, i)) {
      i += rd.length;
      lineNo++;
      if (!wasQuoting && record.length === 0 && field.length === 0) continue; // an empty line
      endField();
      if (!endRecord()) return { ok: true, rows, truncated: true };
      continue;
    }
    if (c === d) {
      endField();
      if (header === undefined && record.length >= MAX_COLUMNS)
        return { ok: false, why: `a header of more than ${MAX_COLUMNS} columns` };
      i++;
      continue;
    }
    if (wasQuoting) {
      if (!isTrimmable(c))
        return {
          ok: false,
          why: `Invalid Closing Quote: found non trimable byte after quote in line ${lineNo}`,
        };
      i++;
      continue;
    }
    if (field.length === 0 && isTrimmable(c)) {
      i++;
      continue;
    }
    // A run of plain characters at once: it ends at a quote, a delimiter, the record delimiter
    // or, before that is found, any line end (a `\n` inside a `\r\n` file is a plain character).
    let j = i + 1;
    for (; j < n; j++) {
      const e = s.charCodeAt(j);
      if (e === QUOTE || e === d) break;
      if (rd === "" ? e === 0x0a || e === 0x0d : s.startsWith(rd, j)) break;
    }
    field += s.slice(i, j);
    i = j;
  }
  if (quoting)
    return {
      ok: false,
      why: `Quote Not Closed: the parsing is finished with an opening quote in line ${lineNo}`,
    };
  if (wasQuoting || record.length !== 0 || field.length !== 0) {
    endField();
    if (!endRecord()) return { ok: true, rows, truncated: true };
  }
  return { ok: true, rows, truncated: false };
}
