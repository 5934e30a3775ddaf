/**
 * Whether the archive is where the index says its stored copies are (P8): read only, nothing
 * made. A store put back without its archive (the database restored, the archive forgotten; a
 * mistyped --data) has an index that names copies in a directory that is not there: every
 * command that reads or writes the archive says so the same way (`no archive at …`), naming
 * the directory it looked in, rather than taking it for an empty archive (a night would ask
 * every page again in full, silently).
 */
import { statSync } from "node:fs";
import type { Db } from "../db.js";
import { listWarcFiles } from "./files.js";

/** What is where the archive's directory goes: a directory, nothing, or something else. */
export function kindOf(dir: string): "dir" | "none" | "other" {
  try {
    return statSync(dir).isDirectory() ? "dir" : "other";
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return "none";
    if (code === "ENOTDIR") return "other";
    throw err;
  }
}

export function copies(n: number): string {
  return `${n} stored ${n === 1 ? "copy" : "copies"}`;
}

/** How the stored copies the index names are said to have no archive to be read from. */
export function noArchiveText(dir: string, n: number): string {
  return `no archive at ${dir}: the directory does not exist, though the index names ${copies(n)} in it`;
}

/** How many stored copies (responses and revisits) the index names. */
export async function indexedCopies(db: Db): Promise<number> {
  const r = await db
    .selectFrom("captures")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .executeTakeFirst();
  return Number(r?.n ?? 0);
}

/**
 * The archive gone while the index names copies in it (`missing`: no directory there), or
 * there without a WARC file (`empty`: made anew, or its files not put back); undefined when
 * the index names none, or the archive holds files. The index is counted only then: a night
 * whose archive is there pays one directory listing.
 */
export async function archiveAbsence(
  dir: string,
  db: Db,
): Promise<{ kind: "missing" | "empty"; copies: number } | undefined> {
  const here = kindOf(dir);
  // Something else in the way is said where the archive is opened (files.ts, archiveInTheWay).
  if (here === "other") return undefined;
  if (here === "dir" && listWarcFiles(dir).length > 0) return undefined;
  const n = await indexedCopies(db);
  if (n === 0) return undefined;
  return { kind: here === "none" ? "missing" : "empty", copies: n };
}
