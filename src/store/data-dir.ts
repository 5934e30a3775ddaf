/**
 * The data directory (`--data DIR`: the SQLite store, the archive, the night's lock and marks)
 * and the store file in it, checked before anything is made or changed in it. What is wrong with
 * them waits for a person (E_CONFIG, exit 2: a restart would only meet it again) and is said with
 * the path and the reason in words, never as a bare EACCES, EEXIST or ENOTDIR.
 */
import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readlinkSync,
  readSync,
  type Stats,
  statSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { NorError } from "../errors.js";

/** Why a file-system call failed, in words (and the errno, for a search). */
export function why(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  switch (code) {
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "EROFS":
      return "on a read-only file system";
    case "ENOTDIR":
      return "a part of the path is not a directory";
    case "ENOSPC":
      return "no space left on the device";
    case "EDQUOT":
      return "over the disk quota";
    case "ELOOP":
      return "too many symbolic links";
    case "ENAMETOOLONG":
      return "the name is too long";
    case undefined:
      return err instanceof Error ? err.message : String(err);
    default:
      return code;
  }
}

function statOrCode(path: string): Stats | NodeJS.ErrnoException {
  try {
    return statSync(path);
  } catch (err) {
    return err as NodeJS.ErrnoException;
  }
}

/**
 * Makes the data directory if it is not there yet, one missing directory at a time from the
 * nearest one that exists (never `mkdir -p`: Node's recursive mkdir loops for ever where
 * mkdir(2) answers ENOENT under a directory that exists, as under /proc), then checks that
 * this user may write in it. A file in its place or above it, a directory that cannot be made
 * or written: E_CONFIG naming the path and why.
 */
export function ensureDataDir(dir: string): void {
  // The parts not made yet, nearest first: each step is a shorter path, so the walk ends.
  const missing: string[] = [];
  for (let p = dir; ; ) {
    const st = statOrCode(p);
    if (st instanceof Error) {
      if (st.code !== "ENOENT" && st.code !== "ENOTDIR") throw cannotMake(dir, p, st);
      missing.push(p);
      const up = dirname(p);
      if (up === p) throw cannotMake(dir, p, st);
      p = up;
      continue;
    }
    if (!st.isDirectory()) {
      if (p === dir) throw notADirectory(dir);
      throw new NorError(
        "E_CONFIG",
        `the store location ${dir} cannot be made: ${p} is not a directory; choose another --data`,
      );
    }
    break;
  }
  for (const p of missing.reverse()) {
    try {
      mkdirSync(p);
    } catch (err) {
      // Made meanwhile by another process opening the same store: used as it is.
      const st = statOrCode(p);
      if ((err as NodeJS.ErrnoException).code === "EEXIST" && !(st instanceof Error)) {
        if (st.isDirectory()) continue;
        throw notADirectory(p);
      }
      throw cannotMake(dir, p, err);
    }
  }
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
  } catch (err) {
    throw new NorError(
      "E_CONFIG",
      `the data directory ${dir} is not writable by this user (${why(err)}): nor keeps its store and archive there; make it writable for the user nor runs as, or choose another --data`,
      { cause: err },
    );
  }
}

/** A --data that names a file (or anything else but a directory): said alike by every command. */
function notADirectory(dir: string): NorError {
  return new NorError("E_CONFIG", `the store location ${dir} is not a directory`);
}

/**
 * For the commands that only read what is in the data directory (`nor status`, `nor log`,
 * `nor archive`, `nor reparse`, …), which make nothing: a `dir` that is there and is not a
 * directory (a file given as --data) is said as what it is, in the words `nor catalog import`
 * and `nor night` use (ensureDataDir), not as a store missing from under it. A `dir` that is
 * not there, or cannot be looked at, is left to the caller ("no store at …").
 */
export function refuseNotADirectory(dir: string): void {
  const st = statOrCode(dir);
  if (!(st instanceof Error) && !st.isDirectory()) throw notADirectory(dir);
}

function cannotMake(dir: string, part: string, err: unknown): NorError {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  const parent = dirname(part);
  const target = code === "EEXIST" ? danglingLink(part) : undefined;
  // mkdir(2) says ENOENT under a directory that exists when its file system takes no new
  // directories (/proc, /sys).
  const reason =
    code === "ENOENT"
      ? `${parent} takes no new directories (ENOENT)`
      : code === "EACCES" || code === "EPERM"
        ? `permission denied: ${parent} is not writable by this user`
        : code === "EROFS"
          ? `${parent} is on a read-only file system`
          : target !== undefined
            ? `${part} is a symbolic link to ${target}, which does not exist (a disk not mounted yet?)`
            : `${part}: ${why(err)}`;
  const made = part === dir ? "" : ` (making ${part})`;
  return new NorError(
    "E_CONFIG",
    `cannot make the data directory ${dir}${made}: ${reason}; make it yourself with the right owner, or choose another --data`,
    { cause: err },
  );
}

/**
 * What the SQLite store file `file` is before it is opened: absent (a store not made yet), or
 * a file that may be a store. Anything else is refused by every command, reading or writing,
 * and nothing is written to it: a directory or another kind of file in its place, and an empty
 * file (0 bytes: a copy cut short, or a file made by hand; nor never leaves a store of
 * 0 bytes, see openStore), which SQLite would otherwise take for a new store and fill.
 */
export function storeFileState(file: string): "absent" | "file" {
  const st = statOrCode(file);
  if (st instanceof Error) {
    // Under a file (--data naming a file): no store there; a command that makes one says why.
    if (st.code === "ENOENT" || st.code === "ENOTDIR") return "absent";
    throw new NorError("E_CONFIG", `cannot read the store at ${file}: ${why(st)}`, { cause: st });
  }
  if (st.isDirectory())
    throw new NorError(
      "E_CONFIG",
      `${file} is a directory, not a store: nor keeps its store in a file of that name; move the directory aside, or choose another --data`,
    );
  if (!st.isFile())
    throw new NorError(
      "E_CONFIG",
      `${file} is not a regular file, so not a store; move it aside, or choose another --data`,
    );
  if (st.size === 0)
    throw new NorError(
      "E_CONFIG",
      `${file} is empty (0 bytes): it is not a store (a copy cut short?), and nor writes nothing into it; move it aside to start a new store there, or restore the store from a backup (docs/operations.md, "Backups")`,
    );
  if (!startsAsSqlite(file))
    throw new NorError(
      "E_CONFIG",
      `${file} is not a SQLite database (it does not begin as one), so not a store, and nor writes nothing into it: move it aside, or choose another --data; if it was the store, restore it from a backup (docs/operations.md, "Backups")`,
    );
  return "file";
}

/** SQLite's database header (its first 16 bytes, file format §1.3.1). */
const SQLITE_HEADER = Buffer.from("SQLite format 3\u0000", "latin1");

/** Whether `file` begins with SQLite's header (true when it cannot be read: SQLite says why). */
function startsAsSqlite(file: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch {
    return true;
  }
  try {
    const head = Buffer.alloc(SQLITE_HEADER.length);
    const n = readSync(fd, head, 0, head.length, 0);
    return n === head.length && head.equals(SQLITE_HEADER);
  } catch {
    return true;
  } finally {
    closeSync(fd);
  }
}

/** A file or directory the night keeps in the data directory. */
export interface DataDirPart {
  name: string;
  kind: "directory" | "file";
  /** The sentence said when something else is in its place (the path leads it). */
  refused: (path: string) => string;
}

/**
 * Refuses a data directory where one of `parts` is of the wrong kind (a file where a directory
 * goes, or the other way round), before a command makes or changes anything in it. A part not
 * there yet is fine: it is made when it is needed.
 */
export function refuseBlockedParts(dataDir: string, parts: readonly DataDirPart[]): void {
  for (const part of parts) {
    const path = join(dataDir, part.name);
    const st = statOrCode(path);
    if (st instanceof Error) {
      // Not there (or no data directory yet: ensureDataDir says what is in its way).
      if (st.code === "ENOENT" || st.code === "ENOTDIR") continue;
      throw new NorError("E_CONFIG", `cannot use ${path}: ${why(st)}`, { cause: st });
    }
    if (part.kind === "directory" ? !st.isDirectory() : st.isDirectory())
      throw new NorError("E_CONFIG", part.refused(path));
  }
}

/** Where `path` points when it is a symbolic link to nothing; undefined otherwise. */
function danglingLink(path: string): string | undefined {
  try {
    if (!lstatSync(path).isSymbolicLink() || existsSync(path)) return undefined;
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}
