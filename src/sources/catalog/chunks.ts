/**
 * A catalog file cut into pieces of a few hundred list items, by its lines alone, so that a
 * catalog of tens of thousands of sources is read piece by piece and never held whole: no
 * YAML tree of the whole file, no copy of its text (the file is read in 64 KiB blocks).
 *
 * Only the shape every catalog is written in is cut: top-level keys (`governments:`,
 * `sources:`, `leads:`), each once, each followed by a block sequence whose items start with
 * `- ` at one indentation. Anything else (flow style, document markers, directives, a
 * byte-order mark, tabs, another top-level key, a key given twice, an empty list) is
 * `NotBlockShaped`, and the caller reads that file whole, exactly as before; so is a piece
 * the YAML parser finds fault with (an alias to an anchor in another piece, say), so every
 * problem is worded as a whole-file read words it.
 */
import { catalogText } from "./read.js";

export const SECTIONS = ["governments", "sources", "leads"] as const;
export type Section = (typeof SECTIONS)[number];

/** One piece: whole list items of one section, with where they start in the file. */
export interface ChunkText {
  section: Section;
  /** 1-based line of the piece's first line in the file. */
  firstLine: number;
  /** Index in the section's list of the piece's first item. */
  firstIndex: number;
  /** How many items the piece holds. */
  items: number;
  text: string;
}

/** The file is not in the plain block shape: read it whole. */
export class NotBlockShaped extends Error {
  override name = "NotBlockShaped";
}

/**
 * The lines of a file, each with its line end, read in blocks (never the whole text). Throws
 * CatalogBytesError for a file that is not a catalog's text (read.ts).
 */
export function* fileLines(file: string): Generator<string> {
  let rest = "";
  for (const block of catalogText(file)) {
    rest += block;
    let start = 0;
    for (let nl = rest.indexOf("\n"); nl !== -1; nl = rest.indexOf("\n", start)) {
      yield rest.slice(start, nl + 1);
      start = nl + 1;
    }
    rest = rest.slice(start);
  }
  if (rest !== "") yield rest;
}

/** The lines of a text, each with its line end. */
export function* textLines(text: string): Generator<string> {
  let start = 0;
  for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", start)) {
    yield text.slice(start, nl + 1);
    start = nl + 1;
  }
  if (start < text.length) yield text.slice(start);
}

const HEADER = /^(governments|sources|leads):[ \t]*(?:#.*)?\r?\n?$/;
const BLANK = /^[ \t]*\r?\n?$/;

function indentOf(line: string): number {
  let i = 0;
  while (line.charCodeAt(i) === 32) i++;
  return i;
}

function isItemAt(line: string, indent: number): boolean {
  if (indentOf(line) !== indent || line[indent] !== "-") return false;
  const next = line[indent + 1];
  return next === undefined || next === " " || next === "\n" || next === "\r";
}

/**
 * Cuts the lines into pieces of at most `perChunk` items of one section each, in file order.
 * Throws NotBlockShaped (possibly after yielding pieces) when the file is not in the plain
 * block shape; the caller then reads it whole.
 */
export function* blockChunks(lines: Iterable<string>, perChunk: number): Generator<ChunkText> {
  const seen = new Set<Section>();
  let section: Section | undefined;
  let itemIndent = -1;
  let index = 0;
  let lineNo = 0;
  let buf: string[] = [];
  let bufItems = 0;
  let bufLine = 0;
  let bufIndex = 0;
  const flush = (): ChunkText | undefined => {
    if (section === undefined || bufItems === 0) return undefined;
    const c: ChunkText = {
      section,
      firstLine: bufLine,
      firstIndex: bufIndex,
      items: bufItems,
      text: buf.join(""),
    };
    buf = [];
    bufItems = 0;
    return c;
  };
  for (const line of lines) {
    lineNo++;
    if (lineNo === 1 && line.charCodeAt(0) === 0xfeff) throw new NotBlockShaped("byte-order mark");
    const blank = BLANK.test(line);
    if (!blank && /^ *\t/.test(line)) throw new NotBlockShaped(`tab indentation at line ${lineNo}`);
    const indent = indentOf(line);
    const comment = !blank && line[indent] === "#";
    if (section !== undefined) {
      if (blank || comment) {
        if (bufItems > 0) buf.push(line);
        continue;
      }
      if (itemIndent === -1) {
        if (!isItemAt(line, indent)) throw new NotBlockShaped(`no list under ${section}:`);
        itemIndent = indent;
      }
      if (isItemAt(line, itemIndent)) {
        if (bufItems >= perChunk) {
          const c = flush();
          if (c) yield c;
        }
        if (bufItems === 0) {
          bufLine = lineNo;
          bufIndex = index;
        }
        bufItems++;
        index++;
        buf.push(line);
        continue;
      }
      if (indent > itemIndent) {
        buf.push(line);
        continue;
      }
      if (indent !== 0) throw new NotBlockShaped(`line ${lineNo} is outside the list`);
      // A new top-level key: this section ends here.
      const c = flush();
      if (c) yield c;
      section = undefined;
    }
    if (blank || comment) continue;
    const m = HEADER.exec(line);
    const key = m?.[1] as Section | undefined;
    if (key === undefined || seen.has(key)) throw new NotBlockShaped(`line ${lineNo}`);
    seen.add(key);
    section = key;
    itemIndent = -1;
    index = 0;
  }
  if (section !== undefined && itemIndent === -1) throw new NotBlockShaped(`empty ${section}:`);
  const c = flush();
  if (c) yield c;
}
