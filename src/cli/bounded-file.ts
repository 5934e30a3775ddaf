/**
 * A file named on the command line, never read past a limit: a device that never ends
 * (`/dev/zero`), a pipe that runs on, or a file larger than anything the command reads is
 * read no further than `most` bytes, instead of until memory runs out. A pipe or `/dev/stdin`
 * is read as it comes, up to the limit.
 */
import { closeSync, openSync, readSync } from "node:fs";
import { UsageError } from "../errors.js";

const BLOCK = 64 * 1024;

/** Up to `most` bytes of the file, and whether there was more after them. */
function readUpTo(file: string, most: number, what: string): { bytes: Buffer; more: boolean } {
  const cannot = (cause: unknown) =>
    new UsageError(
      `${what}: cannot read ${file} (${(cause as NodeJS.ErrnoException).code ?? cause})`,
    );
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch (cause) {
    throw cannot(cause);
  }
  try {
    const parts: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buf = Buffer.allocUnsafe(BLOCK);
      let n: number;
      try {
        n = readSync(fd, buf, 0, BLOCK, null);
      } catch (cause) {
        throw cannot(cause);
      }
      if (n === 0) return { bytes: Buffer.concat(parts, total), more: false };
      if (total + n > most) {
        parts.push(buf.subarray(0, most - total));
        return { bytes: Buffer.concat(parts, most), more: true };
      }
      parts.push(buf.subarray(0, n));
      total += n;
    }
  } finally {
    closeSync(fd);
  }
}

/** The whole file, refused (exit 2, naming it and the limit) once it passes `most` bytes. */
export function readBoundedFile(file: string, most: number, what: string): Buffer {
  const { bytes, more } = readUpTo(file, most, what);
  if (more) {
    throw new UsageError(
      `${what}: ${file} holds more than ${most / (1024 * 1024)} MiB, ${limitWhy(most)}: not read`,
    );
  }
  return bytes;
}

/**
 * The first `most` bytes of the file (all of it when shorter): what a night would read of such
 * an answer, the rest never read (robots.txt's 500 KiB, P17).
 */
export function readFirstBytes(file: string, most: number, what: string): Buffer {
  return readUpTo(file, most, what).bytes;
}

function limitWhy(most: number): string {
  return most >= 20 * 1024 * 1024
    ? "the most the checker ever reads of an answer (P14)"
    : "more than such a file ever needs";
}
