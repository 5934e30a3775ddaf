import { relative } from "node:path";
import type { Command } from "commander";
import { systemClock } from "../../clock.js";
import { UsageError } from "../../errors.js";
import { lockForCatalogImport } from "../../night/catalog-beside-night.js";
import { checkCatalog } from "../../sources/catalog/load.js";
import { CatalogError, formatProblem } from "../../sources/catalog/problems.js";
import { type CatalogStats, catalogStats } from "../../sources/catalog/stats.js";
import {
  formatDiff,
  type ImportOfFiles,
  importCatalogFiles,
} from "../../sources/catalog-import.js";
import { refuseBlockedParts } from "../../store/data-dir.js";
import {
  openStore,
  type Store,
  type StoreLocation,
  storeLocationFromOptions,
} from "../../store/db.js";
import { bundledCatalog } from "../bundled-catalog.js";
import { formatStats } from "../catalog-stats.js";
import { countOf } from "../count-of.js";
import { importedOrStop } from "../import-outcome.js";
import { stderr, stdout } from "../io.js";
import { OPENING_PARTS } from "../night-parts.js";
import { saying } from "../store-upgrade.js";

/**
 * `nor catalog check FILE…` validates (every problem, each with file:line:column; exit 2),
 * `nor catalog import FILE… [--data DIR]` loads the catalog into the store as a diff: added,
 * changed, retired (never deleted), un-retired; refused (exit 2) while a `nor night` runs on
 * the data directory when it would change the sources that night runs
 * (night/catalog-beside-night.ts); `nor catalog stats [FILE…] [--json]` counts
 * what the catalog covers and lists what it lacks. The format: docs/catalog.md.
 */
export function register(program: Command): void {
  const catalog = program
    .command("catalog")
    .description("Check, import or count the catalog of governments and sources (docs/catalog.md)");

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
  stderr().write(`nor: catalog has ${countOf(n, "problem")}\n`);
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
    stdout().write(
      `ok: ${countOf(index.governments.size, "government")}, ${countOf(index.sources.size, "source")}\n`,
    );
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
  // Where a night on this store keeps its marks and its lock, whichever the database (night.ts).
  const dataDir = location.kind === "sqlite" ? location.dir : (opts.data ?? "data");
  try {
    // Validated before the store is opened: a broken catalog never half-imports. Read once,
    // piece by piece, holding the validated entries (not the YAML), which are what is written.
    const outcome = await importCatalogFiles(
      files,
      (importing) => openBesideNights(location, dataDir, importing),
      () => systemClock.now(),
      { allowRetire: opts.allowRetire === true },
    );
    stdout().write(formatDiff(importedOrStop(outcome, "nor catalog import A B …")));
  } catch (e) {
    if (reportProblems(e)) return;
    throw e;
  }
}

/**
 * The store for an import, held with the opening lock until it is closed: refused (exit 2, the
 * store closed) while a live `nor night` runs on the data directory and the files would change
 * the sources it runs; the same sources, each with the same entry, go ahead (a government's
 * name, a lead: the night reads neither). The check `nor night` and `nor start` make too
 * (src/night/catalog-beside-night.ts).
 */
async function openBesideNights(
  location: StoreLocation,
  dataDir: string,
  importing: ImportOfFiles,
): Promise<{ db: Store["db"]; close(): Promise<void> }> {
  refuseBlockedParts(dataDir, OPENING_PARTS);
  const store = await openStore(location, saying());
  let release: () => Promise<void>;
  try {
    release = await lockForCatalogImport(store, systemClock.now(), {
      dataDir,
      files: importing.files,
      stamp: importing.stamp,
      sources: () => importing.sources(),
      instead: "import these once the night is over",
    });
  } catch (err) {
    await store.close();
    throw err;
  }
  return {
    db: store.db,
    close: async () => {
      try {
        await release();
      } finally {
        await store.close();
      }
    },
  };
}
