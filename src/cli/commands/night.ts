import type { Command } from "commander";
import pino from "pino";
import { UsageError } from "../../errors.js";
import { unfinishedNight } from "../../night/admin-sql.js";
import { runNightWithStore } from "../../night/compose.js";
import { formatLeft, parseDuration } from "../../night/duration.js";
import { acquireNightLock } from "../../night/night-lock.js";
import { DEFAULT_CONCURRENCY, DEFAULT_NIGHT_DEADLINE_MS } from "../../policy/constants.js";
import { nightOf } from "../../policy/night-date.js";
import { loadCatalogWithFiles } from "../../sources/catalog/load.js";
import { importCatalog } from "../../sources/catalog-import.js";
import { ensureDataDir, openStore, storeLocationFromOptions } from "../../store/db.js";
import { addNetOptions, type NetCliOptions, netOptions, wholeNumber } from "../net-options.js";

interface NightOptions extends NetCliOptions {
  catalog: string;
  data?: string;
  night?: string;
  deadline?: string;
  concurrency?: string;
}

/** `nor night`: runs (or resumes) one night's check now (P9–P13, P20–P25). */
export function register(program: Command): void {
  const cmd = program
    .command("night")
    .description("Run or resume a night's check of every catalog source")
    .requiredOption("--catalog <file>", "the catalog YAML file")
    .option("--data <dir>", "store directory (DIR/nor.db); NOR_DATABASE_URL selects PostgreSQL")
    .option(
      "--night <YYYY-MM-DD>",
      "the night to run or resume (default: the night still under way, else today in America/New_York)",
    )
    .option("--deadline <duration>", "the night's time limit, e.g. 6h, 90m, 30s (default 6h)")
    .option("--concurrency <n>", `lanes (sites) worked at once (default ${DEFAULT_CONCURRENCY})`);
  addNetOptions(cmd).action(async (opts: NightOptions) => {
    await runNightCommand(opts);
  });
}

async function runNightCommand(opts: NightOptions): Promise<void> {
  // Every option is checked before the store or the network is touched.
  const asked = opts.night;
  if (
    asked !== undefined &&
    (!/^\d{4}-\d{2}-\d{2}$/.test(asked) || Number.isNaN(Date.parse(`${asked}T00:00:00Z`)))
  ) {
    throw new UsageError(`--night: "${asked}" is not a date written YYYY-MM-DD`);
  }
  const deadlineMs =
    opts.deadline === undefined ? DEFAULT_NIGHT_DEADLINE_MS : parseDuration(opts.deadline);
  const concurrency =
    opts.concurrency === undefined
      ? DEFAULT_CONCURRENCY
      : wholeNumber(opts.concurrency, "--concurrency", 1);
  const net = netOptions(opts);
  const { catalog, origins } = loadCatalogWithFiles([opts.catalog]);
  const loc = storeLocationFromOptions(opts.data === undefined ? {} : { data: opts.data });
  // The archive (P8) and the night lock live in the data directory, whichever the database.
  const dataDir = loc.kind === "sqlite" ? loc.dir : (opts.data ?? "data");
  ensureDataDir(dataDir);
  const store = await openStore(loc);
  // One night process per data directory (P9, P10; no source checked twice a night).
  let release: () => void;
  let night: string;
  try {
    release = acquireNightLock(dataDir);
    // Without --night: a night still under way (its deadline not passed) is resumed, even
    // after midnight; otherwise tonight is today's date in New York.
    night = asked ?? (await unfinishedNight(store.db, Date.now())) ?? nightOf(Date.now());
  } catch (err) {
    await store.close();
    throw err;
  }
  const tty = process.stderr.isTTY === true;
  const log = pino({ base: { night } }, pino.destination({ dest: 2, sync: true }));
  try {
    // The directory shows what the night read: the catalog is imported as a diff first
    // (a source gone from the file is retired, never deleted), exactly as `nor catalog import`.
    const diff = await importCatalog(store.db, catalog, origins, Date.now());
    if (diff.changes.length > 0)
      log.info({ catalogChanges: diff.changes.length }, "catalog imported");
    const summary = await runNightWithStore(store, catalog, {
      night,
      deadlineMs,
      concurrency,
      dataDir,
      ...net,
      onProgress: (p) => {
        if (tty) {
          const left = formatLeft(p.deadlineAt - Date.now());
          process.stderr.write(
            `\r${p.done}/${p.total} sources · ${p.requests} requests · ${left} left to the deadline `,
          );
        } else {
          log.info(
            {
              source: p.last.sourceId,
              outcome: p.last.outcome.kind,
              reason: p.last.outcome.reason,
              done: p.done,
              total: p.total,
              requests: p.requests,
            },
            "source checked",
          );
        }
      },
    });
    if (tty) process.stderr.write("\n");
    const { night: _n, ...rest } = summary;
    log.info({ ...rest, deadlineAt: new Date(summary.deadlineAt).toISOString() }, "night done");
    process.exitCode = 0;
  } finally {
    release();
    await store.close();
  }
}
