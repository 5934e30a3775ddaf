/**
 * The bytes of a catalog file, read as the text the operator wrote or not at all: a regular
 * file (a device or FIFO would be read forever; `/dev/zero` never ends), of at most
 * MAX_CATALOG_BYTES, in UTF-8 without a NUL byte. A file in another encoding is refused at
 * its first bad byte's line and column, never decoded with U+FFFD in place of what was
 * written: that would import a name nobody wrote and request an address nobody gave
 * (`caf\xe9` sent as `caf%EF%BF%BD`). A UTF-8 byte-order mark is kept (the YAML parser
 * reads past it).
 *
 * Used by the loader (chunks.ts) and by the stamp (stamp.ts), so this module loads neither
 * yaml nor zod.
 */
import { isUtf8 } from "node:buffer";
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs";
import { utf8Length } from "../../policy/body-text.js";

/**
 * The largest catalog file read. Ohio's whole catalog is under 1 MB for some 1,400 entries;
 * every local government in the country, with a few sources each, would be some 60 MB. A
 * larger file is not a catalog (a disk image or a log named by mistake) and is refused before
 * it is read, rather than filling the memory of a whole-file read.
 */
export const MAX_CATALOG_BYTES = 64 * 1024 * 1024;

/**
 * Why a catalog file's bytes are not a catalog's text: at a 1-based line and column (the
 * column counted as the loader's other problems count it, in UTF-16 code units), or, with
 * line 0, the file as a whole.
 */
export class CatalogBytesError extends Error {
  override name = "CatalogBytesError";
  constructor(
    readonly line: number,
    readonly col: number,
    message: string,
  ) {
    super(message);
  }
}

const MIB = 1024 * 1024;

function tooLarge(bytes: number): CatalogBytesError {
  const size = bytes.toLocaleString("en-US");
  const most = `${MAX_CATALOG_BYTES / MIB} MiB`;
  return new CatalogBytesError(
    0,
    0,
    `is ${size} bytes, more than a catalog file may be (${most}); split it into several files`,
  );
}

/**
 * Why a file with these stats (not a directory's: the caller says that, as it says ENOENT)
 * is not read as a catalog, or undefined when it may be.
 */
export function statsProblem(s: Stats): CatalogBytesError | undefined {
  if (!s.isFile()) {
    return new CatalogBytesError(
      0,
      0,
      "is not a regular file (a device, FIFO or socket), not a catalog file",
    );
  }
  if (s.size > MAX_CATALOG_BYTES) return tooLarge(s.size);
  return undefined;
}

/**
 * Opens a catalog file for reading, refusing anything but a regular file of at most
 * MAX_CATALOG_BYTES. Opened without blocking: opening a FIFO for reading otherwise waits
 * for a writer, forever, before fstat can tell what it is. Throws CatalogBytesError, or the
 * file system's error (ENOENT, EISDIR, EACCES, …).
 */
export function openCatalogFile(file: string): number {
  const fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const s = fstatSync(fd);
    if (s.isDirectory())
      throw Object.assign(new Error(`${file} is a directory`), { code: "EISDIR" });
    const problem = statsProblem(s);
    if (problem) throw problem;
    return fd;
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}

const BLOCK = 64 * 1024;

/** Where the text read so far ends: the line and column of the next character. */
class Position {
  line = 1;
  col = 1;

  advance(text: string): void {
    let nl = text.indexOf("\n");
    if (nl === -1) {
      this.col += text.length;
      return;
    }
    let last = nl;
    while (nl !== -1) {
      this.line++;
      last = nl;
      nl = text.indexOf("\n", nl + 1);
    }
    this.col = text.length - last;
  }
}

/**
 * Offset of the first byte that starts no well-formed UTF-8 character (Unicode 15, table
 * 3-7: no overlong form, no surrogate, nothing above U+10FFFF; a character cut off by the
 * end counts as bad), or -1.
 */
export function firstBadByte(b: Uint8Array): number {
  for (let i = 0; i < b.length; ) {
    if ((b[i] as number) < 0x80) {
      i++;
      continue;
    }
    const n = utf8Length(b, i);
    if (n === 0) return i;
    i += n;
  }
  return -1;
}

/**
 * How many of the bytes hold whole characters: the rest (at most 3 bytes) start a character
 * the next block finishes. Bytes that can start no character are left in, for the check.
 */
function wholeCharacters(b: Uint8Array): number {
  for (let i = b.length - 1; i >= 0 && i >= b.length - 3; i--) {
    const c = b[i] as number;
    if (c < 0x80) return b.length;
    if (c >= 0xc0) {
      const size = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
      return b.length - i < size ? i : b.length;
    }
  }
  return b.length;
}

/** A file that starts with another encoding's byte-order mark: which one. */
function otherMark(b: Uint8Array): string | undefined {
  const [b0, b1, b2, b3] = b;
  if (b0 === 0xff && b1 === 0xfe) return b2 === 0 && b3 === 0 ? "UTF-32" : "UTF-16";
  if (b0 === 0xfe && b1 === 0xff) return "UTF-16";
  if (b0 === 0 && b1 === 0 && b2 === 0xfe && b3 === 0xff) return "UTF-32";
  return undefined;
}

const hex = (byte: number) => `0x${byte.toString(16).toUpperCase().padStart(2, "0")}`;

/** The first bad byte of `bytes` (which isUtf8 refused, or which hold a NUL), at its place. */
function badBytes(bytes: Buffer, at: Position): CatalogBytesError {
  const bad = firstBadByte(bytes);
  const nul = bytes.indexOf(0);
  const i = bad === -1 || (nul !== -1 && nul < bad) ? nul : bad;
  at.advance(bytes.subarray(0, i).toString("utf8"));
  const byte = bytes[i] as number;
  const message =
    byte === 0
      ? "a NUL byte (0x00), which no text holds (a UTF-16 file without a byte-order mark?); save the file as UTF-8"
      : `not UTF-8: byte ${hex(byte)} is not part of a UTF-8 character (a Latin-1 or Windows-1252 file?); save it as UTF-8`;
  return new CatalogBytesError(at.line, at.col, message);
}

const CR = 0x0d;

/**
 * A carriage return not followed by a line feed (an old Mac OS line ending, or a spreadsheet's
 * "CSV (Macintosh)" export): the YAML parser does not read it as a line break, so a whole file of
 * them is one long line, and its errors ("Nested mappings are not allowed…", all on line 1)
 * would name no field. Said once, at the first, before anything is parsed.
 */
function loneCr(before: string, at: Position): CatalogBytesError {
  at.advance(before);
  return new CatalogBytesError(
    at.line,
    at.col,
    "a line ends with a carriage return alone (CR, 0x0D: an old Mac line ending), which is not read as a line break; save the file with LF (or CRLF) line endings",
  );
}

/**
 * The text of a catalog file in blocks of 64 KiB (never the whole text), each block's bytes
 * checked before they are decoded. Throws CatalogBytesError (see the module's comment), or
 * the file system's error.
 */
export function* catalogText(file: string): Generator<string> {
  const fd = openCatalogFile(file);
  try {
    const buf = Buffer.allocUnsafe(BLOCK);
    const at = new Position();
    let held: Buffer = Buffer.alloc(0);
    let total = 0;
    for (;;) {
      const n = readSync(fd, buf, 0, BLOCK, null);
      if (n === 0) break;
      total += n;
      // A file written to while it is read can outgrow what its size said.
      if (total > MAX_CATALOG_BYTES) throw tooLarge(total);
      const bytes =
        held.length > 0 ? Buffer.concat([held, buf.subarray(0, n)]) : buf.subarray(0, n);
      if (total === n) {
        const mark = otherMark(bytes);
        if (mark !== undefined) {
          throw new CatalogBytesError(
            1,
            1,
            `not UTF-8: the file is ${mark} (it starts with a ${mark} byte-order mark); a catalog file must be saved as UTF-8`,
          );
        }
      }
      let end = wholeCharacters(bytes);
      // A CR last in the block: its LF, if it has one, is the next block's first byte.
      if (end > 0 && bytes[end - 1] === CR) end--;
      const whole = bytes.subarray(0, end);
      if (!isUtf8(whole) || whole.includes(0)) throw badBytes(whole, at);
      const text = whole.toString("utf8");
      const lone = text.search(/\r(?!\n)/);
      if (lone !== -1) throw loneCr(text.slice(0, lone), at);
      at.advance(text);
      // Copied: `buf` is read into again.
      held = Buffer.from(bytes.subarray(whole.length));
      yield text;
    }
    if (held.length === 1 && held[0] === CR) throw loneCr("", at);
    if (held.length > 0) throw badBytes(held, at);
  } finally {
    closeSync(fd);
  }
}
