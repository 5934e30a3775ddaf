/**
 * A file named on the command line, read whole but never more than `most` bytes: a device that
 * never ends (`/dev/zero`), a pipe that runs on, or a file larger than anything the command
 * reads is refused once `most` is passed, naming the file and the limit, instead of being read
 * until memory runs out. A pipe or `/dev/stdin` is read as it comes, up to the limit.
 */
import { closeSync, openSync, readSync } from "node:fs";
import { UsageError } from "../errors.js";

const BLOCK = 64 * 1024;

export function readBoundedFile(file: string, most: number, what: string): Buffer {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch (cause) {
    throw new UsageError(
      `${what}: cannot read ${file} (${(cause as NodeJS.ErrnoException).code ?? cause})`,
    );
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
        throw new UsageError(
          `${what}: cannot read ${file} (${(cause as NodeJS.ErrnoException).code ?? cause})`,
        );
      }
      if (n === 0) return Buffer.concat(parts, total);
      total += n;
      if (total > most) {
        throw new UsageError(
          `${what}: ${file} holds more than ${most / (1024 * 1024)} MiB, ${limitWhy(most)}: not read`,
        );
      }
      parts.push(buf.subarray(0, n));
    }
  } finally {
    closeSync(fd);
  }
}

function limitWhy(most: number): string {
  return most >= 20 * 1024 * 1024
    ? "the most the checker ever reads of an answer (P14)"
    : "more than such a file ever needs";
}

/**
 * The first `most` bytes of a file named on the command line (all of it when shorter): what a
 * night would read of such an answer, the rest never read (robots.txt's 500 KiB, P17).
 */
export function readFirstBytes(file: string, most: number, what: string): Buffer {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch (cause) {
    throw new UsageError(
      `${what}: cannot read ${file} (${(cause as NodeJS.ErrnoException).code ?? cause})`,
    );
  }
  try {
    const buf = Buffer.allocUnsafe(most);
    let total = 0;
    while (total < most) {
      let n: number;
      try {
        n = readSync(fd, buf, total, most - total, null);
      } catch (cause) {
        throw new UsageError(
          `${what}: cannot read ${file} (${(cause as NodeJS.ErrnoException).code ?? cause})`,
        );
      }
      if (n === 0) break;
      total += n;
    }
    return buf.subarray(0, total);
  } finally {
    closeSync(fd);
  }
}
