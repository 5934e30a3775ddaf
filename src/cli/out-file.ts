/**
 * The file a person names with `--out FILE` (`nor archive cdx --out`): checked before any work
 * is done, and written whole or not at all. Nothing already stored may be lost to it: the store,
 * anything in the data directory or in the archive's (symbolic links followed, so a path through
 * a link to them is the same path) and a directory are refused (E_USAGE, exit 2) naming the path;
 * so is a directory that is not there, in words, never as a bare ENOENT. The text is written to a
 * new file beside the target and renamed over it: a failure (a full disk, a kill) leaves the old
 * file as it was, never half a new one.
 */
import { randomBytes } from "node:crypto";
import {
  closeSync,
  fchmodSync,
  fsyncSync,
  lstatSync,
  openSync,
  realpathSync,
  renameSync,
  rmSync,
  type Stats,
  statSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join, resolve, sep } from "node:path";
import { UsageError } from "../errors.js";
import { why } from "../store/data-dir.js";

/** Where --out writes, once checked. */
export interface OutFile {
  /** As typed, for messages. */
  given: string;
  /** The file to replace or make, symbolic links resolved. */
  path: string;
  /** The permission bits of the file it replaces, kept on the new one. */
  mode?: number;
}

const errno = (err: unknown): string | undefined => (err as NodeJS.ErrnoException | null)?.code;

function realOrUndefined(path: string): string | undefined {
  try {
    return realpathSync.native(path);
  } catch {
    return undefined;
  }
}

/** `path` is `dir` or inside it. */
function within(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith(sep) ? dir : `${dir}${sep}`);
}

/** Why `dir` (the directory --out names a file in) cannot hold a file, in words. */
function noDirectory(dir: string, err: unknown): string {
  const code = errno(err);
  if (code !== "ENOENT" && code !== "ENOTDIR") return `cannot reach ${dir} (${why(err)})`;
  // The nearest part of the path that is there says which: a file in the way, or none there.
  for (let p = dirname(dir); p !== dirname(p); p = dirname(p)) {
    let st: Stats;
    try {
      st = statSync(p);
    } catch {
      continue;
    }
    if (!st.isDirectory()) return `${p} is not a directory`;
    break;
  }
  return `there is no directory ${dir}`;
}

/**
 * The file `--out given` names, refused (UsageError) where writing it could lose what is kept
 * in `dataDir` (the store, the archive) or is no file to write. Nothing is written here.
 */
export function outFile(given: string, dataDir: string): OutFile {
  if (given.trim() === "") throw new UsageError("--out needs a file name, not an empty value");
  const asked = resolve(given);
  const parent = dirname(asked);
  let realParent: string;
  try {
    realParent = realpathSync.native(parent);
  } catch (err) {
    throw new UsageError(`--out ${given}: ${noDirectory(parent, err)}`);
  }
  if (!statSync(realParent).isDirectory())
    throw new UsageError(`--out ${given}: ${parent} is not a directory`);

  let path = join(realParent, basename(asked));
  let st: Stats | undefined;
  try {
    st = lstatSync(path);
  } catch (err) {
    if (errno(err) !== "ENOENT")
      throw new UsageError(`--out ${given}: cannot read ${path} (${why(err)})`);
  }
  if (st?.isSymbolicLink()) {
    const real = realOrUndefined(path);
    if (real === undefined)
      throw new UsageError(
        `--out ${given} is a symbolic link to nothing there; give the file itself`,
      );
    path = real;
    st = statSync(real);
  }
  if (st?.isDirectory())
    throw new UsageError(`--out ${given} is a directory; give the name of a file to write`);
  if (st !== undefined && !st.isFile())
    throw new UsageError(
      `--out ${given} is no regular file (a device, a pipe or a socket); leave out --out to write to standard output`,
    );

  const data = resolve(dataDir);
  const db = join(data, "nor.db");
  const stores = [db, realOrUndefined(db)].flatMap((d) =>
    d === undefined ? [] : [d, `${d}-wal`, `${d}-shm`, `${d}-journal`],
  );
  if (stores.includes(path) || stores.includes(asked))
    throw new UsageError(
      `--out ${given} is the store (${db}): it would be replaced; give a file outside the data directory ${dataDir}`,
    );
  const archive = join(data, "archive");
  if (within(path, realOrUndefined(archive) ?? archive) || within(asked, archive))
    throw new UsageError(
      `--out ${given} is in the archive directory ${archive}: what is kept there could be replaced; give a file outside the data directory ${dataDir}`,
    );
  if (within(path, realOrUndefined(data) ?? data) || within(asked, data))
    throw new UsageError(
      `--out ${given} is in the data directory ${dataDir}: what is kept there could be replaced; give a file outside it`,
    );
  return st === undefined ? { given, path } : { given, path, mode: st.mode & 0o7777 };
}

/**
 * Writes `text` to `out` whole: to a new file beside it (flushed to the disk), then renamed over
 * it, so the file named is the old one or the whole new one, never half of it. A directory that
 * may not be written in is the person's to fix (exit 2); a failure of the disk is one while
 * working (exit 1). Either way, nothing of the new file is left behind.
 */
export function writeWhole(out: OutFile, text: string): void {
  const temp = join(
    dirname(out.path),
    `.${basename(out.path)}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`,
  );
  let fd: number | undefined;
  let made = false;
  try {
    fd = openSync(temp, "wx", out.mode ?? 0o666);
    made = true;
    writeFileSync(fd, text);
    // The mode the replaced file had, whatever the umask.
    if (out.mode !== undefined) fchmodSync(fd, out.mode);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(temp, out.path);
  } catch (err) {
    if (fd !== undefined) {
      try {
        closeSync(fd);
      } catch {
        // Already failing: the first error is the one said.
      }
    }
    if (made) rmSync(temp, { force: true });
    const code = errno(err);
    if (code === "EACCES" || code === "EPERM" || code === "EROFS")
      throw new UsageError(`cannot write --out ${out.given} (${why(err)})`);
    throw new Error(`cannot write --out ${out.given}: ${why(err)}`, { cause: err });
  }
}
