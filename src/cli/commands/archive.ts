/**
 * `nor archive show|verify|cdx`: the operator's look into the private copy (P8). All three
 * read files and the store only; none opens a connection. `nor archive forget` removes from
 * the index the copies of files truly lost from the archive (store/archive/forget.ts).
 */
import { existsSync } from "node:fs";
import type { Command } from "commander";
import { ConfigError, NorError, UsageError } from "../../errors.js";
import { archiveInTheWay } from "../../store/archive/files.js";
import { type ForgetOutcome, forgetLostFiles } from "../../store/archive/forget.js";
import {
  archiveDir,
  cdxLines,
  latestCapture,
  readCapture,
  verifyArchive,
} from "../../store/archive/index.js";
import { statusLine } from "../../store/archive/records.js";
import { refuseNotADirectory } from "../../store/data-dir.js";
import { openStore, storeLocationFromOptions } from "../../store/db.js";
import { parseTimeArg } from "../../store/time-args.js";
import { refuseNoArchive } from "../archive-presence.js";
import { countOf } from "../count-of.js";
import { stderr, stdout } from "../io.js";
import { outFile, writeWhole } from "../out-file.js";
import { saying } from "../store-upgrade.js";

/**
 * `--at` / `--since`: a time as `nor log` reads it (src/store/time-args.ts): with a zone as
 * written, without one New York time; `--at 2026-11-05` means up to the end of that New York
 * day, `--since 2026-11-05` from its start.
 */
export function parseWhen(text: string, flag: string, edge: "start" | "end"): number {
  // As `nor log` reads a time: a zone as written, none New York's (never the machine's), to
  // the precision written (a date is that New York day, a minute that minute).
  const span = parseTimeArg(text, flag);
  // The span's end is the next instant's start: the last millisecond in it is one before.
  return edge === "end" ? span.end - 1 : span.start;
}

interface DataOpts {
  data?: string;
}

/**
 * The store for `nor archive`, after the data directory: a --data that names a file is said as
 * that (exit 2), as every command says it, with PostgreSQL too (the archive is in --data).
 */
async function openForArchive(opts: DataOpts) {
  const loc = storeLocationFromOptions(opts);
  refuseNotADirectory(opts.data ?? "data");
  // Only read: a store an earlier version made is refused, never upgraded (db.ts readsOnly).
  return openStore(loc, saying({ create: false, readsOnly: true }));
}

/**
 * The archive's directory in --data. With PostgreSQL the store says nothing about --data, so a
 * data directory that is not there is refused here (exit 2), never read as an empty archive.
 */
function archiveOf(opts: DataOpts): string {
  const data = opts.data ?? "data";
  const dir = archiveDir(data);
  if (!existsSync(data))
    throw new ConfigError(`no archive at ${dir} (check --data: ${data} does not exist)`);
  return dir;
}

async function show(url: string, opts: DataOpts & { at?: string }): Promise<void> {
  const at = opts.at === undefined ? undefined : parseWhen(opts.at, "--at", "end");
  // As the checker asked it: the URL parser's form (scheme and host lower-case, default port
  // dropped), without a fragment, which is never sent. A value that is no URL is said first.
  const asked = requestForm(url);
  const store = await openForArchive(opts);
  try {
    // No archive where the index names copies: said as `nor archive verify` says it (exit 2).
    await refuseNoArchive(archiveOf(opts), store.db);
    const when = at === undefined ? {} : { at };
    const capture =
      (await latestCapture(store.db, asked, when)) ??
      (asked !== url ? await latestCapture(store.db, url, when) : undefined);
    if (!capture) {
      throw new NorError(
        "E_ARCHIVE",
        `no capture of ${url}${opts.at ? ` at or before ${opts.at}` : ""} in the archive`,
      );
    }
    const got = await readCapture(archiveDir(opts.data ?? "data"), capture);
    stderr().write(
      `nor: ${capture.recordType} of ${capture.url} read ${new Date(capture.fetchedAt).toISOString()} (${capture.file}@${capture.offset})\n`,
    );
    const head = [
      statusLine(got.status),
      ...Object.entries(got.headers).map(([k, v]) => `${k}: ${v}`),
    ];
    stdout().write(`${head.join("\r\n")}\r\n\r\n`);
    stdout().write(got.body);
    process.exitCode = 0;
  } finally {
    await store.close();
  }
}

function requestForm(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    // Every capture is of an http(s) URL: anything else is a typo, said as one (exit 2).
    throw new UsageError(
      `"${url}" is not a URL (give the address as the checker asked it, http:// or https://)`,
    );
  }
  if (u.protocol !== "http:" && u.protocol !== "https:")
    throw new UsageError(`"${url}" is not an http(s) URL: the archive holds only those`);
  u.hash = "";
  return u.href;
}

async function verify(opts: DataOpts): Promise<void> {
  const store = await openForArchive(opts);
  try {
    // One with no archive where the index names copies is said by verifyArchive, naming the
    // directory (exit 2), never a MISMATCH per copy.
    const r = await verifyArchive(archiveOf(opts), store.db);
    for (const p of r.problems) {
      // A file the index names that is not there: one line for the file, not one per copy.
      if (p.gone) stdout().write(`MISSING ${p.file}: ${p.problem}\n`);
      else stdout().write(`MISMATCH ${p.file} offset ${p.offset}: ${p.problem}\n`);
    }
    // Nothing wrong (exit 0): a half-written record after the last indexed one, as in a copy
    // taken while a night wrote; opening the archive cuts it off.
    for (const n of r.notes) stdout().write(`NOTE ${n.file} offset ${n.offset}: ${n.problem}\n`);
    const notes = r.notes.length === 0 ? "" : `, ${countOf(r.notes.length, "note")}`;
    stdout().write(
      `${countOf(r.files, "file")}, ${countOf(r.records, "record")}, ${countOf(r.digestsChecked, "digest")} checked, ${countOf(r.problems.length, "problem")}${notes}\n`,
    );
    process.exitCode = r.problems.length > 0 ? 1 : 0;
  } finally {
    await store.close();
  }
}

async function cdx(opts: DataOpts & { out?: string }): Promise<void> {
  // An --out that would replace what is stored (the store, a file in --data or the archive) or
  // that names no file to write is refused first (exit 2), before anything is read or written.
  const out = opts.out === undefined ? undefined : outFile(opts.out, opts.data ?? "data");
  // Like show and verify: a mistyped --data is refused (exit 2), never an empty index.
  const store = await openForArchive(opts);
  try {
    await refuseNoArchive(archiveOf(opts), store.db);
  } finally {
    await store.close();
  }
  // A store no night has read into yet has an empty archive: no lines, exit 0.
  const lines = await cdxLines(archiveOf(opts));
  const text = lines.length ? `${lines.join("\n")}\n` : "";
  if (out) {
    writeWhole(out, text);
    stderr().write(`nor: ${lines.length} CDXJ lines written to ${out.given}\n`);
  } else {
    stdout().write(text);
  }
  process.exitCode = 0;
}

/** A refusal of `nor archive forget`, said (exit 2, nothing changed). */
function forgetRefusal(r: Exclude<ForgetOutcome, { kind: "forgotten" }>, dir: string): string {
  const nothing = "nothing was forgotten";
  switch (r.kind) {
    case "no-file":
      return `name the lost file(s) as nor archive verify says them MISSING: ${nothing}`;
    case "no-archive":
      return r.what === "other"
        ? `${archiveInTheWay(dir)}: ${nothing}`
        : `no archive at ${dir} (check --data; if the archive is truly lost, create the empty directory first: mkdir ${dir}): ${nothing}`;
    case "not-a-name":
      return `"${r.given}" is not a file name in the archive at ${dir} (give it as nor archive verify names it): ${nothing}`;
    case "in-archive":
      return `${r.file} is in the archive at ${dir}: a file that is there is never forgotten (nor archive verify says what is wrong with it; put back a whole copy from a backup if there is one): ${nothing}`;
    case "being-written":
      return `${r.file} is being written by a running night (a live process holds ${r.file}.writer in ${dir}): gone from the directory, it is still written through that night's open file and indexed at its next answer; forget it once that night has ended: ${nothing}`;
    case "not-named":
      return `the index names no file ${r.file} (a typo? nor archive verify names the lost ones MISSING): ${nothing}`;
    case "maybe-elsewhere":
      return `${r.file} is not in the archive at ${dir}, but on PostgreSQL each machine may keep an archive of its own beside the shared index: its ${countOf(r.copies, "stored copy", "stored copies")} may be in another machine's. Give --sole-archive only if ${dir} is the only archive this store's nights and nor discover write to: ${nothing}`;
  }
}

async function forget(files: string[], opts: DataOpts & { soleArchive?: boolean }): Promise<void> {
  const loc = storeLocationFromOptions(opts);
  refuseNotADirectory(opts.data ?? "data");
  const dir = archiveOf(opts);
  // Writes: a store an earlier version made is upgraded first, as by every command that writes.
  const store = await openStore(loc, saying({ create: false }));
  try {
    const r = await forgetLostFiles(store.db, dir, files, { sole: opts.soleArchive === true });
    if (r.kind !== "forgotten") throw new UsageError(forgetRefusal(r, dir));
    for (const f of r.files) {
      const revisits =
        f.revisits === 0
          ? ""
          : ` and ${countOf(f.revisits, "revisit", "revisits")} in other files that referred to its payloads`;
      stdout().write(
        `forgot ${f.file}: ${countOf(f.copies, "stored copy", "stored copies")}${revisits}; the pages they held are asked again at the next night, in full, or with the validators of an older copy still stored (P8, P12)\n`,
      );
    }
    process.exitCode = 0;
  } finally {
    await store.close();
  }
}

export function register(program: Command): void {
  const archive = program
    .command("archive")
    .description("The private copy of every response read (P8)");
  archive
    .command("show <url>")
    .description(
      "Print a stored capture: headers, then body (the latest, or the one at/before --at)",
    )
    .option(
      "--at <time>",
      "the capture at or before this time (a date: that New York day; no zone: New York time)",
    )
    .option("--data <dir>", "data directory", "data")
    .action(show);
  archive
    .command("verify")
    .description(
      "Re-read every record and check every block and payload digest; exit 1 on a mismatch or a file shorter than the index says",
    )
    .option("--data <dir>", "data directory", "data")
    .action(verify);
  archive
    .command("cdx")
    .description("Write a sorted CDXJ index of the archive")
    .option("--data <dir>", "data directory", "data")
    .option("--out <file>", "write to this file instead of standard output")
    .action(cdx);
  archive
    .command("forget")
    .argument("[file...]", "a lost WARC file, as nor archive verify names it MISSING")
    .description(
      "Forget the index's copies of WARC files truly lost from the archive (no backup to put back), so nor archive verify passes; their pages are asked again next time, in full or with an older stored copy's validators. Refuses a file that is in the archive or that the index does not name",
    )
    .option("--data <dir>", "data directory", "data")
    .option(
      "--sole-archive",
      "PostgreSQL: this data directory's archive is the only one the store's nights write to (no other machine keeps one)",
    )
    .action(forget);
  for (const cmd of archive.commands) cmd.exitOverride();
}
