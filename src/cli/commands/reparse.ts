/**
 * `nor reparse`: re-extract records from the private copy with today's recipes, offline
 * (P8), and say per source what would change against the records the store holds. It only
 * compares: nothing is written (the records stay as the nights recorded them), so the same
 * command run again says the same, and it says so in its output.
 */
import type { Command } from "commander";
import { UsageError } from "../../errors.js";
import { wayReader } from "../../night/way-reader.js";
import { loadCatalog } from "../../sources/catalog/load.js";
import type { Source, WayIn } from "../../sources/catalog/types.js";
import { archiveDir } from "../../store/archive/files.js";
import type { StoredResponse } from "../../store/archive/read.js";
import {
  type Extractor,
  type FieldChange,
  reparse,
  type SourceReparse,
} from "../../store/archive/reparse.js";
import { refuseNotADirectory } from "../../store/data-dir.js";
import { openStore, storeLocationFromOptions } from "../../store/db.js";
import { refuseNoArchive } from "../archive-presence.js";
import { countOf } from "../count-of.js";
import { shownStdout, stderr } from "../io.js";
import { saying } from "../store-upgrade.js";
import { parseWhen } from "./archive.js";

/**
 * Today's extraction is exactly the night's: the platform preset when the way names one
 * (getPlatform), else the way's recipe / feed / API / download reader (extractWay), both
 * reached through the night's WayReader so reparse can never read a page differently.
 */
export const todaysExtractor: Extractor = (_source: Source, way: WayIn, stored: StoredResponse) =>
  wayReader.extract(way, stored.body, stored.url, stored.headers["content-type"]);

function print(r: SourceReparse, windowed: boolean): void {
  const w = (s: string) => shownStdout().write(`${s}\n`);
  const unread = r.errors.length;
  const pages = (n: number) => countOf(n, "page");
  w(
    unread > 0
      ? `${r.source}: not re-read — ${unread} of ${countOf(r.captures, "capture")} could not be re-read; ` +
          `${countOf(r.found, "record")} found in the rest, ${r.stored} stored — would add ${r.added.length}, ` +
          `would change ${r.changed.length}, none called removed`
      : r.forgotten.length > 0
        ? // A page whose latest copy was forgotten (its file lost): what it lists now is unknown.
          `${r.source}: ${countOf(r.captures, "capture")} read, ${countOf(r.found, "record")} found now, ${r.stored} stored — ` +
          `would add ${r.added.length}, would change ${r.changed.length}; ${pages(r.forgotten.length)} whose latest copy ` +
          `was forgotten (nor archive forget) not read, none called removed`
        : r.captures === 0
          ? // Nothing read, nothing compared: its stored records are not said to be gone.
            `${r.source}: ${
              r.refusedCopy !== undefined
                ? `no list copy ${windowed ? "in the window" : "stored"}: its latest stored copy (${r.refusedCopy.fetchedAt}) is the site's answer ${r.refusedCopy.status}, kept (P8) but not read as the list`
                : windowed
                  ? "no capture in the window"
                  : "no capture stored"
            }` +
            `${r.otherWays > 0 ? ` of today's ways (${r.otherWays} read by a way the catalog no longer has, not read)` : ""}; ` +
            `${r.stored} stored, none called removed`
          : r.before > 0
            ? `${r.source}: ${countOf(r.captures, "capture")} read, ${countOf(r.found, "record")} found now, ${r.stored} stored — ` +
              `would add ${r.added.length}, would change ${r.changed.length}; ${pages(r.before)} last read ` +
              `before the window not read, none called removed`
            : `${r.source}: ${countOf(r.captures, "capture")} read, ${countOf(r.found, "record")} found now, ${r.stored} stored — ` +
              `would add ${r.added.length}, would remove ${r.removed.length}, would change ${r.changed.length}`,
  );
  if (r.captures > 0 && r.otherWays > 0)
    w(`  note: ${r.otherWays} read by a way the catalog no longer has, not read with today's`);
  for (const a of r.added) w(`  + ${a.id}  ${a.title}${a.date ? `  (${a.date})` : ""}`);
  for (const d of r.removed) w(`  - ${d.id}  ${d.title}`);
  for (const c of r.changed)
    w(`  ~ ${oneLine(c.before.id)}  ${c.fields.map(changeText).join("  ")}`);
  for (const e of r.errors) w(`  ! ${e}`);
  for (const f of r.forgotten) w(`  forgotten: ${oneLine(f)}`);
  for (const n of r.noes) w(`  no: ${oneLine(n)}; none called removed`);
  for (const n of r.notLists) w(`  note: ${oneLine(n)}: not its list, none called removed`);
  for (const n of r.notes) w(`  note: ${oneLine(n)}`);
}

/**
 * One field that would change, before → after: the title as it always was (`old → new`), the
 * others named (`date: 2026-11-05 → (none)`). A value is kept on the record's one line.
 */
function changeText(c: FieldChange): string {
  const value = (v: string | undefined) => (v === undefined ? "(none)" : oneLine(v));
  const text = `${value(c.before)} → ${value(c.after)}`;
  return c.field === "title" ? text : `${c.field}: ${text}`;
}

/** A line break or other control character in a site's text would split the record's line. */
function oneLine(s: string): string {
  return s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, " ");
}

interface Opts {
  data?: string;
  source?: string;
  since?: string;
  catalog?: string[];
}

async function run(opts: Opts): Promise<void> {
  if (!opts.catalog?.length)
    throw new UsageError("reparse needs --catalog FILE: the recipes to extract with");
  const since = opts.since === undefined ? undefined : parseWhen(opts.since, "--since", "start");
  const catalog = loadCatalog(opts.catalog);
  let sources = catalog.sources;
  if (opts.source !== undefined) {
    sources = sources.filter((s) => s.id === opts.source);
    if (sources.length === 0)
      throw new UsageError(`--source ${opts.source}: no such source in the catalog`);
  }
  const loc = storeLocationFromOptions(opts);
  // A --data that names a file is said as that (exit 2), with PostgreSQL too: the archive is there.
  refuseNotADirectory(opts.data ?? "data");
  // It compares only: a store an earlier version made is refused, never upgraded (db.ts readsOnly).
  const store = await openStore(loc, saying({ create: false, readsOnly: true }));
  try {
    const dir = archiveDir(opts.data ?? "data");
    // No archive where the index names copies (a mistyped --data, the archive moved): said
    // once, naming the directory (exit 2), as `nor archive verify` says it, not as every
    // source not re-read.
    await refuseNoArchive(dir, store.db);
    const results = await reparse({
      db: store.db,
      archiveDir: dir,
      sources,
      extract: todaysExtractor,
      ...(since !== undefined ? { since } : {}),
    });
    for (const r of results) print(r, since !== undefined);
    const sum = (f: (r: SourceReparse) => number) => results.reduce((n, r) => n + f(r), 0);
    const unread = results.filter((r) => r.errors.length > 0).length;
    shownStdout().write(
      `${countOf(results.length, "source")}: would add ${sum((r) => r.added.length)}, would remove ${sum((r) => r.removed.length)}, ` +
        `would change ${sum((r) => r.changed.length)}; ${unread} not re-read\n` +
        // It compares only: said, so a second run saying the same surprises no one.
        "nothing was written: the store's records are as they were; this compares today's extraction with them, so running it again says the same\n",
    );
    // A source not re-read was not compared: the report is not the whole answer (exit 1).
    if (unread > 0)
      stderr().write(
        `nor: ${unread} of ${countOf(results.length, "source")} not re-read: a stored copy in ${dir} did not read back or extract (the "!" lines say which)\n`,
      );
    process.exitCode = unread > 0 ? 1 : 0;
  } finally {
    await store.close();
  }
}

export function register(program: Command): void {
  program
    .command("reparse")
    .description(
      "Re-extract records from the stored copies with today's recipes, offline (P8), and say what would change against the stored records; it compares only and writes nothing",
    )
    .option("--data <dir>", "data directory", "data")
    .option("--source <id>", "only this source")
    .option(
      "--since <date>",
      "only captures read since this date or time (a page last read before it: none called removed)",
    )
    .option("--catalog <file...>", "catalog file(s) with today's recipes")
    .action(run);
}
