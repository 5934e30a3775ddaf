import { relative } from "node:path";
import type { Command } from "commander";
import { systemClock } from "../../clock.js";
import { UsageError } from "../../errors.js";
import { checkCatalog } from "../../sources/catalog/load.js";
import { CatalogError, formatProblem } from "../../sources/catalog/problems.js";
import { type CatalogStats, catalogStats } from "../../sources/catalog/stats.js";
import { formatDiff, importCatalogFiles } from "../../sources/catalog-import.js";
import { openStore, storeLocationFromOptions } from "../../store/db.js";
import { bundledCatalog } from "../bundled-catalog.js";
import { formatStats } from "../catalog-stats.js";
import { importedOrStop } from "../import-outcome.js";
import { stderr, stdout } from "../io.js";

/**
 * `nor catalog check FILE…` validates (every problem, each with file:line:column; exit 2),
 * `nor catalog import FILE… [--data DIR]` loads the catalog into the store as a diff: added,
 * changed, retired (never deleted), un-retired; `nor catalog stats [FILE…] [--json]` counts
 * what the catalog covers and lists what it lacks. The format: docs/catalog.md.
 */
export function register(program: Command): void {
  const catalog = program
    .command("catalog")
    .description("Check or import the catalog of governments and sources (docs/catalog.md)");

  catalog
    .command("check")
    .description("Validate catalog YAML files; print every problem with file:line:column")
    .argument("[files...]", "catalog files (read together: ids and references span them)")
    .action((files: string[]) => {
      runCheck(files);
    });

  catalog
    .command("import")
    .description("Load the catalog into the store: added, changed, retired, un-retired")
    .argument("[files...]", "catalog files")
    .option("--data <dir>", "store directory (DIR/nor.db); NOR_DATABASE_URL selects PostgreSQL")
    .option("--allow-retire", "retire more than a tenth of the sources (otherwise refused)")
    .action(async (files: string[], opts: ImportCliOptions) => {
      await runImport(files, opts);
    });
  catalog
    .command("stats")
    .description(
      "Count governments and sources by kind, county and platform; list counties without a source and governments without a website",
    )
    .argument("[files...]", "catalog files (default: the catalog shipped in catalog/)")
    .option("--json", "JSON output, for machines")
    .action((files: string[], opts: { json?: boolean }) => {
      runStats(files, opts);
    });
  for (const cmd of catalog.commands) cmd.exitOverride();
  catalog.exitOverride();
}

function needFiles(files: string[], verb: string): void {
  if (files.length === 0) throw new UsageError(`catalog ${verb}: name at least one catalog file`);
}

/** Problems go to stdout, one a line, so `nor catalog check … | grep` works; exit 2 (configuration). */
function reportProblems(e: unknown): boolean {
  if (!(e instanceof CatalogError)) return false;
  for (const p of e.problems) stdout().write(`${formatProblem(p)}\n`);
  const n = e.problems.length;
  stderr().write(`nor: catalog has ${n} problem${n === 1 ? "" : "s"}\n`);
  process.exitCode = 2;
  return true;
}

function runCheck(files: string[]): void {
  needFiles(files, "check");
  try {
    // Piece by piece: nothing of the catalog is kept but its ids.
    const { index } = checkCatalog(
      files.map((file) => ({ file })),
      () => ({}),
    );
    stdout().write(`ok: ${index.governments.size} governments, ${index.sources.size} sources\n`);
  } catch (e) {
    if (!reportProblems(e)) throw e;
  }
}

function runStats(files: string[], opts: { json?: boolean }): void {
  // The shipped catalog is named as from the working directory (catalog/ohio.yaml).
  const named =
    files.length > 0 ? files : bundledCatalog().map((f) => relative(process.cwd(), f) || f);
  let stats: CatalogStats;
  try {
    stats = catalogStats(named.map((file) => ({ file })));
  } catch (e) {
    if (reportProblems(e)) return;
    throw e;
  }
  stdout().write(opts.json ? `${JSON.stringify(stats, null, 2)}\n` : formatStats(stats));
}

interface ImportCliOptions {
  data?: string;
  allowRetire?: boolean;
}

async function runImport(files: string[], opts: ImportCliOptions): Promise<void> {
  needFiles(files, "import");
  const location = storeLocationFromOptions(opts.data === undefined ? {} : { data: opts.data });
  try {
    // Validated before the store is opened: a broken catalog never half-imports. Read piece
    // by piece, twice (check, then import), so the catalog is never held whole.
    const outcome = await importCatalogFiles(
      files,
      () => openStore(location),
      () => systemClock.now(),
      { allowRetire: opts.allowRetire === true },
    );
    stdout().write(formatDiff(importedOrStop(outcome)));
  } catch (e) {
    if (reportProblems(e)) return;
    throw e;
  }
}
