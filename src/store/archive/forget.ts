/**
 * `nor archive forget FILE…`: a WARC file truly lost (no backup to put back), its copies
 * forgotten by the index (P8). Only a file the index names and that is not in the archive
 * directory: the index's rows of its copies go, and those of the revisits in other files whose
 * payload it held (their copies cannot be read without it), all files in one transaction, or
 * nothing. The pages they held are then asked again in full (P8, P12): no row is left to give
 * validators or a stored copy.
 *
 * Safe beside a night: a night writes a record before its row, and starts a file before it
 * writes into it, so while the store's write lock is held (BEGIN IMMEDIATE on SQLite) a file
 * the index names that is not on disk now was there once and is gone; a night that would take
 * one of its copies as a revisit's original looks whether the file is still there first
 * (warc-archive.ts #stillThere), so no new row comes to point at it, but for a file that goes in
 * the moment between that look and the revisit's row: that row names the file only as its
 * original's, and the file is forgotten again by its name (`not-named` only when no row names it
 * at all). On PostgreSQL each machine
 * may keep an archive of its own beside the shared index: a file not in this machine's
 * directory may be another machine's, so the caller says whether this archive is the store's
 * only one (`sole`); without it, nothing is forgotten there.
 */
import { lstatSync } from "node:fs";
import { basename, dirname, join, resolve, sep } from "node:path";
import type { Db } from "../db.js";
import { dialectOf } from "../dialect-of.js";
import { writeTxn } from "../write-txn.js";
import { kindOf } from "./presence.js";
import { readWriter } from "./warc-archive.js";

/** What was forgotten of one file. */
export interface Forgotten {
  file: string;
  /** Stored copies (response and revisit records) the index named in the file. */
  copies: number;
  /** Revisits in other files whose payload the file held. */
  revisits: number;
}

/** Each way a person's input can be wrong is a value; nothing is changed on any of them. */
export type ForgetOutcome =
  | { kind: "forgotten"; files: Forgotten[] }
  | { kind: "no-file" }
  /**
   * No archive directory (a mistyped --data, the archive moved: nothing would be there to
   * tell a lost file from one elsewhere), or something else where it goes.
   */
  | { kind: "no-archive"; what: "none" | "other" }
  /** Not a bare file name, nor a path to one in the archive directory (`../x`, `/elsewhere/x`). */
  | { kind: "not-a-name"; given: string }
  /** In the archive: never forgotten (put right what is wrong with it instead). */
  | { kind: "in-archive"; given: string; file: string }
  /**
   * Gone from the directory while a live process still writes it (its `.writer` claim): that
   * process goes on writing into its open handle and indexing what it writes, so the index would
   * name the file again at its next answer.
   */
  | { kind: "being-written"; given: string; file: string }
  /** The index names no copy in it (a typo, or forgotten already). */
  | { kind: "not-named"; given: string; file: string }
  /** PostgreSQL, and the person did not say this archive is the store's only one. */
  | { kind: "maybe-elsewhere"; given: string; file: string; copies: number };

/**
 * The file name `given` means in the archive `dir`: a bare name, or a path to a file directly
 * in `dir`; undefined for anything else.
 */
export function archiveFileName(dir: string, given: string): string | undefined {
  if (given === "" || given === "." || given === "..") return undefined;
  if (!given.includes("/") && !given.includes(sep)) return given;
  const name = basename(given);
  if (name === "" || name === "." || name === "..") return undefined;
  return resolve(dirname(given)) === resolve(dir) ? name : undefined;
}

function present(dir: string, file: string): boolean {
  try {
    lstatSync(join(dir, file));
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw err;
  }
}

export async function forgetLostFiles(
  db: Db,
  dir: string,
  given: readonly string[],
  opts: { sole?: boolean } = {},
): Promise<ForgetOutcome> {
  if (given.length === 0) return { kind: "no-file" };
  const here = kindOf(dir);
  if (here !== "dir") return { kind: "no-archive", what: here };
  const names: { given: string; file: string }[] = [];
  for (const g of given) {
    const file = archiveFileName(dir, g);
    if (file === undefined) return { kind: "not-a-name", given: g };
    if (!names.some((n) => n.file === file)) names.push({ given: g, file });
  }
  const files = names.map((n) => n.file);
  const postgres = dialectOf(db) === "postgres";
  return writeTxn(db, async (tx): Promise<ForgetOutcome> => {
    const out: Forgotten[] = [];
    for (const { given: g, file } of names) {
      // PostgreSQL: the rows are locked against another forget's delete. No night's insert waits
      // on them (no key refers to a capture): a revisit row committed after this one, of a copy
      // whose file went after the night looked, is named by its original's file and forgotten
      // by naming that file again.
      let q = tx.selectFrom("captures").select("record_id").where("file", "=", file);
      if (postgres) q = q.forUpdate();
      const copies = (await q.execute()).length;
      const r = await tx
        .selectFrom("captures")
        .select((eb) => eb.fn.countAll<number | string>().as("n"))
        .where("refers_file", "=", file)
        .where("file", "not in", files)
        .executeTakeFirst();
      const revisits = Number(r?.n ?? 0);
      // Read before the directory: a row committed by now names a file that was on disk then.
      if (present(dir, file)) return { kind: "in-archive", given: g, file };
      if (readWriter(dir, file) === "live") return { kind: "being-written", given: g, file };
      // Named only as a revisit's original is named still: a night's revisit of a copy in it,
      // its row committed just after the file's own rows were forgotten (the file went between
      // the night's look and the forget).
      if (copies === 0 && revisits === 0) return { kind: "not-named", given: g, file };
      if (postgres && opts.sole !== true)
        return { kind: "maybe-elsewhere", given: g, file, copies: copies + revisits };
      out.push({ file, copies, revisits });
    }
    // Kept, so `nor reparse` reads no older copy of these pages as the list as it stands now
    // (the records the lost copy brought would be called removed): the copies in the files, and
    // the revisits in other files of the payloads they held, under the file lost.
    const kept = ["url", "source", "method", "purpose", "status", "fetched_at"] as const;
    await tx
      .insertInto("forgotten_copies")
      .columns([...kept, "file"])
      .expression(
        tx
          .selectFrom("captures")
          .select([...kept, "file"])
          .where("file", "in", files),
      )
      .execute();
    await tx
      .insertInto("forgotten_copies")
      .columns([...kept, "file"])
      .expression(
        tx
          .selectFrom("captures")
          .select([...kept, "refers_file as file"])
          .where("refers_file", "in", files)
          .where("file", "not in", files),
      )
      .execute();
    await tx
      .deleteFrom("captures")
      .where((eb) => eb.or([eb("file", "in", files), eb("refers_file", "in", files)]))
      .execute();
    return { kind: "forgotten", files: out };
  });
}
