import type { ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import type { Command } from "commander";
import type pinoOf from "pino";
import type { Logger } from "pino";
import { requireCjs } from "../../cjs.js";
import { systemClock } from "../../clock.js";
import { NorError, UsageError } from "../../errors.js";
import { randomIds } from "../../ids.js";
import { knownAddress, type Pins, parsePins } from "../../net/address-guard.js";
import { refuseCatalogBesideNight } from "../../night/catalog-beside-night.js";
import { runNightWithStore } from "../../night/compose.js";
import { formatLeft, parseNightDeadline } from "../../night/duration.js";
import { markNightInStore, type NightRunMark } from "../../night/night-run-mark.js";
import { nightsRunning, registerNightRunner } from "../../night/night-runners.js";
import { acquireOpeningLock } from "../../night/opening-lock.js";
import { isForbiddenAddress } from "../../policy/address.js";
import { DEFAULT_CONCURRENCY, DEFAULT_NIGHT_DEADLINE_MS } from "../../policy/constants.js";
import { addDays, isNightDate, nightOf } from "../../policy/night-date.js";
import { siteOf } from "../../policy/site.js";
import { formatInZone, SITE_OWNER_ZONE } from "../../policy/zone.js";
import {
  type CatalogStamp,
  importerVersion,
  stampCatalogFiles,
} from "../../sources/catalog/stamp.js";
import {
  closeIncompleteAgain,
  lastBegunNight,
  type NightRow,
  type NightSetAside,
  nightRow,
  nightRunsSubset,
  nightsDatedAfter,
  nightsLiveInStore,
  nightTotals,
  resumableNight,
  SUBSET_NOTE,
  scheduledStart,
  setAsideNightsAhead,
  settleUnfinishedNights,
} from "../../store/admin.js";
import { archiveDir } from "../../store/archive/files.js";
import {
  catalogStampOf,
  type SourceRef,
  sourceEntriesInUse,
  sourcesInUse,
  storedSourcesRunnable,
} from "../../store/catalog-sources.js";
import { refuseBlockedParts } from "../../store/data-dir.js";
import {
  type Db,
  ensureDataDir,
  type OpenOptions,
  openStore,
  storeLocationFromOptions,
} from "../../store/db.js";
import { diskFull, STORE_FULL } from "../../store/disk-full.js";
import { marksAheadToTonight } from "../../store/marks.js";
import { storeClock } from "../../store/store-clock.js";
import { archiveBeforeNight } from "../archive-presence.js";
import { countOf } from "../count-of.js";
import { importedOrStop, isCatalogProblem } from "../import-outcome.js";
import { io, rewriteLine, stderr } from "../io.js";
import { addNetOptions, type NetCliOptions, netOptions, wholeNumber } from "../net-options.js";
import { NIGHT_PARTS } from "../night-parts.js";
import {
  endText,
  type NightProcessEnd,
  nightProcessEnd,
  PARENT_PID_ENV,
  startNightProcess,
  workerEndMeans,
} from "../night-process.js";
import {
  clockText,
  type NightBy,
  type NightEnd,
  type NightStart,
  offlineMessage,
  progressLine,
  startLine,
  summaryLines,
  summaryRecord,
} from "../night-report.js";
import { saying, sayingAsJson } from "../store-upgrade.js";

interface NightOptions extends NetCliOptions {
  catalog: string[];
  allowRetire?: boolean;
  data?: string;
  night?: string;
  deadline?: string;
  concurrency?: string;
  workers?: string;
  canary?: string;
  /** Set by spawnWorker on the processes it starts: one of another `nor night`'s workers. */
  worker?: boolean;
  /**
   * Set by `nor start` on the night it begins at its daily time, to the moment it began it (ISO
   * 8601; the same on a restart after a crash): tonight's night is the date of that moment, and
   * an unfinished night of an earlier date is over from it (admin.ts ScheduledStart).
   */
  scheduled?: string;
  /**
   * Set by `nor start` on every night it runs, to the address it serves the directory at: the
   * night's lines name `nor start`, the command the person ran, and that address, not `nor
   * night` and `nor serve`.
   */
  servedAt?: string;
  /**
   * When the catalog files cannot be used (unreadable, not a valid catalog, their import
   * refused), run the sources the store last imported instead of stopping (`nor start` passes
   * it: a typo made while it runs does not cost the night). Said, and kept on the night.
   */
  orStoredCatalog?: boolean;
}

/** `nor night`: runs (or resumes) one night's check now (P9–P13, P20–P25). */
export function register(program: Command): void {
  const cmd = program
    .command("night")
    .description("Run or resume a night's check of every catalog source")
    .requiredOption(
      "--catalog <files...>",
      "the catalog YAML files, read together (repeatable: --catalog a.yaml b.yaml or --catalog a.yaml --catalog b.yaml)",
    )
    .option("--allow-retire", "let the catalog import retire more than a tenth of the sources")
    .option(
      "--or-stored-catalog",
      "when the catalog files cannot be read, are not a valid catalog or their import is refused, run the sources the store last imported instead (said, and shown with the night in nor status); nor start's nights do",
    )
    .option("--data <dir>", "store directory (DIR/nor.db); NOR_DATABASE_URL selects PostgreSQL")
    .option(
      "--night <YYYY-MM-DD>",
      "the night to run or resume (default: the night still under way, else today in America/New_York)",
    )
    .option(
      "--deadline <duration>",
      "a new night's time limit, e.g. 6h, 90m, 5m; from 1m to 24h (default 6h); a resumed night keeps its own",
    )
    .option("--concurrency <n>", `lanes (sites) worked at once (default ${DEFAULT_CONCURRENCY})`)
    .option(
      "--canary <url>",
      "a page that always answers, asked once before the night; when it gets no answer the checker is offline and nothing is judged about the sites",
    )
    .option(
      "--workers <n>",
      "processes sharing the night on this machine (default 1); a nor night started elsewhere on the same store joins it too",
    )
    // Not for people: what spawnWorker adds to the command lines of the processes it starts.
    .addOption(
      program
        .createOption("--worker", "a worker of another `nor night --workers N` (set by it)")
        .hideHelp(),
    )
    // Not for people either: what `nor start` adds to the night it begins at its daily time.
    .addOption(
      program
        .createOption(
          "--scheduled <began>",
          "begun by `nor start` at its daily time, at this moment (ISO 8601): an unfinished night of an earlier date is over",
        )
        .hideHelp(),
    )
    .addOption(
      program
        .createOption(
          "--served-at <url>",
          "run by `nor start`, which serves the directory at this address: the night's lines say so",
        )
        .hideHelp(),
    );
  addNetOptions(cmd).action(async (opts: NightOptions) => {
    await runNightCommand(opts);
  });
}

/**
 * How far V8 lets the old generation grow past what survived its last full collection, in
 * percent, for a night (V8's own choice is up to 4×). A night allocates fast and most of it
 * dies soon after it is promoted (a request's rows, statements and buffers), so V8's default
 * let a 20,000-source night hold about 160 MB of old space for about 50 MB of live objects,
 * with as much again of external buffers waiting for the collection that frees them
 * (docs/benchmarks.md, "A night's memory"). Only how often the old space is collected changes.
 */
export const NIGHT_HEAP_GROWING_PERCENT = 25;

/**
 * How much bytecode a function runs between two of V8's looks at whether to optimise it
 * (TurboFan), for a night: 8× V8's default of 67,584. TurboFan compiled much of the engine on
 * a night's first thousand requests, most of it code that runs a few hundred times a night: in
 * a cold night of 550 requests (50 loopback sites, feeds), 36% of the process's instructions
 * were TurboFan's own (callgrind). With this budget only code that stays hot is optimised, as
 * it was, and a night that runs for hours is not changed; a cold night costs less (docs/
 * benchmarks.md, "Compiling the engine").
 */
export const NIGHT_INTERRUPT_BUDGET = 8 * 67_584;

/**
 * V8 flags a night sets for itself, before its first request. The interrupt budget: above.
 * `--liftoff-only`: undici parses HTTP with llhttp, a
 * WebAssembly module, and V8's optimising compile of it on the night's first requests took
 * about 35 MB of memory for a moment, a third of a one-source night's peak RSS; V8's baseline
 * compiler alone parsed 3,000 answers of 58 kB for no more CPU (docs/benchmarks.md, "A night's
 * memory"). Set before the first request, which is when undici compiles it.
 */
export const NIGHT_V8_FLAGS: readonly string[] = [
  `--heap-growing-percent=${NIGHT_HEAP_GROWING_PERCENT}`,
  "--liftoff-only",
  `--interrupt-budget=${NIGHT_INTERRUPT_BUDGET}`,
];

/**
 * SQLite's page cache of each of a night's connections to its store, in MiB: SQLite's own
 * default. better-sqlite3 builds SQLite with 16,000 KiB instead (DEFAULT_CACHE_SIZE=-16000), and
 * a night of 20,000 new sources filled it: peak RSS 143–147 MB with it, 135 MB with 2 MiB, for
 * no CPU the runs could see (docs/benchmarks.md, "A night's memory", 2026-12-07). A night's
 * statements look up a source's few rows by their keys; the pages it writes go to the WAL.
 */
export const NIGHT_STORE_CACHE_MIB = 2;

/** How a night opens its store (before what it says on stderr is added). */
export const NIGHT_STORE_OPTIONS: OpenOptions = { cacheMiB: NIGHT_STORE_CACHE_MIB };

/**
 * The command the person ran, as a night's lines on stderr name it: `nor start`, which runs each
 * night as a process of its own (with --served-at) whose stderr is its own terminal, else
 * `nor night`.
 */
function nightBy(opts: Pick<NightOptions, "servedAt">): NightBy {
  return opts.servedAt !== undefined ? "nor start" : "nor night";
}

async function runNightCommand(opts: NightOptions): Promise<void> {
  // Started by a command that is gone already: nothing is done; gone later: stopped in order.
  const orphanWatch = watchParent(nightBy(opts));
  // Each night is its own process (`nor start` spawns it), so this holds for nights only.
  for (const flag of NIGHT_V8_FLAGS) setFlagsFromString(flag);
  // The composition root: the one clock and id source everything below is given (a test running
  // the CLI in-process may give its own, io.ts).
  const clock = io().clock ?? systemClock;
  const ids = randomIds;
  // Every option is checked before the store or the network is touched.
  const asked = opts.night;
  if (asked !== undefined && !isNightDate(asked)) {
    throw new UsageError(`--night: "${asked}" is not a calendar date written YYYY-MM-DD`);
  }
  // A night not begun yet by the calendar is a mistyped date (2062 for 2026), never a night
  // to run now: it would ask every source again today, and stand as the store's latest night.
  if (opts.scheduled !== undefined && Number.isNaN(Date.parse(opts.scheduled)))
    throw new UsageError(`--scheduled: "${opts.scheduled}" is not a moment (ISO 8601)`);
  if (asked !== undefined && asked > nightOf(clock.now())) {
    throw new UsageError(
      `--night: ${asked} is after tonight (${nightOf(clock.now())} in New York); a night is run on its own date or later`,
    );
  }
  const deadlineMs =
    opts.deadline === undefined ? DEFAULT_NIGHT_DEADLINE_MS : parseNightDeadline(opts.deadline);
  const concurrency =
    opts.concurrency === undefined
      ? DEFAULT_CONCURRENCY
      : wholeNumber(opts.concurrency, "--concurrency", 1);
  const workers = opts.workers === undefined ? 1 : wholeNumber(opts.workers, "--workers", 1);
  if (workers > MAX_WORKERS) {
    throw new UsageError(
      `--workers: at most ${MAX_WORKERS} processes share a night on one machine (each already works ${DEFAULT_CONCURRENCY} sites at once), not ${workers}`,
    );
  }
  if (opts.canary !== undefined) canaryUrl(opts.canary);
  // Read before the night runs: its summary makes the new records' address from it.
  if (opts.servedAt !== undefined) servedAtUrl(opts.servedAt);
  const net = netOptions(opts);
  // Taken before anything reads the files: an import records what it vouches for.
  const stamp = stampCatalogFiles(opts.catalog);
  const loc = storeLocationFromOptions(opts.data === undefined ? {} : { data: opts.data });
  // The archive (P8) and the night lock live in the data directory, whichever the database.
  const dataDir = loc.kind === "sqlite" ? loc.dir : (opts.data ?? "data");
  // Files that cannot be read, or a store not made yet, cannot have been imported unchanged:
  // the catalog is read and validated first, so a broken one creates nothing.
  const fresh = !existsSync(loc.kind === "sqlite" ? join(dataDir, "nor.db") : dataDir);
  /**
   * `--or-stored-catalog`: why the files cannot be used, once found, when the night runs the
   * sources the store last imported instead (it must hold some: else the files' problem stops
   * the night, as without the option).
   */
  let storedInstead: NorError | undefined;
  /** What the night keeps of it (admin.ts recordNightCatalogNote), once the sources are known. */
  let catalogNote: string | undefined;
  /**
   * Says how the night runs without its files, once its plan is known (runNightWithStore's
   * onPlanned): a finished night run again with nothing left to ask asks nothing and keeps no
   * note, so it is not said to have run the sources the store last imported.
   */
  let sayCatalogNote: ((plan: { works: boolean; finishedAt?: number }) => void) | undefined;
  /**
   * Says the files' problem when the run ends before its plan is known (refused: another
   * User-Agent; the store failing; a stop): nothing was asked, and the operator still learns of it.
   */
  let sayCatalogUnplanned: (() => void) | undefined;
  /** Whether this process joins a night another live process runs (its sources in use). */
  let joining = false;
  /** Whether it runs only the sources in use its files list unchanged (their import refused). */
  let subset = false;
  /** The store, once open: whether it holds sources to run instead is asked of it. */
  let storeDb: Db | undefined;
  // A store not made yet holds nothing to run instead. (On PostgreSQL `fresh` says only that
  // this machine's data directory is new: the shared store may hold sources, asked once open.)
  const mayRunStored =
    opts.orStoredCatalog === true && opts.worker !== true && (loc.kind !== "sqlite" || !fresh);
  /** The files read; undefined when they cannot be used and the store's sources run instead. */
  const readOrStored = async (): Promise<ReadCatalog | undefined> => {
    if (storedInstead !== undefined) return undefined;
    try {
      return await readCatalog(opts.catalog);
    } catch (err) {
      if (!mayRunStored || !isCatalogProblem(err)) throw err;
      if (storeDb !== undefined && !(await storedSourcesRunnable(storeDb, importerVersion())))
        throw err;
      storedInstead = err;
      return undefined;
    }
  };
  // A worker runs the sources its command imported (the store's): it never reads the files,
  // which may have changed since (its command judged them; a worker refusing them would stop
  // the whole night).
  let read =
    opts.worker !== true && (stamp === undefined || fresh) ? await readOrStored() : undefined;
  // What the night keeps beside the store (its marks, its lock, the archive) is checked before
  // the store is made or changed: one in the way stops it now, with nothing imported or opened.
  refuseBlockedParts(dataDir, NIGHT_PARTS);
  ensureDataDir(dataDir);
  // Said in the night's log's own shape where that log is JSON lines (no terminal).
  const store = await openStore(
    loc,
    stderr().isTTY === true
      ? saying(NIGHT_STORE_OPTIONS, opts.servedAt !== undefined ? "nor start" : "nor")
      : sayingAsJson(() => clock.now(), NIGHT_STORE_OPTIONS),
  );
  storeDb = store.db;
  /** Whether the files, unchanged, are the ones the store last imported (their stamp). */
  const filesImported = async (): Promise<boolean> =>
    stamp?.unchanged() === true && (await catalogStampOf(store.db)) === stamp.digest;
  // Several `nor night` on one store share the night: lanes are leased per site and every
  // request is admitted by the journal (P9, P10; no source checked twice a night). Only the
  // opening (which night, the catalog import) is done by one of them at a time.
  let night: string;
  let log: Logger;
  let start: NightStart | undefined;
  let sources: SourceRef[] = [];
  const tty = stderr().isTTY === true;
  /** The command the person ran, as the night's lines name it. */
  const by = nightBy(opts);
  const report = { by, ...(opts.servedAt !== undefined ? { directory: opts.servedAt } : {}) };
  const runStart = clock.now();
  const children: Worker[] = [];
  // Set when this process stops its workers itself: their end by its signal is no news.
  let stopping = false;
  const stopWorkers = (signal: NodeJS.Signals = "SIGTERM") => {
    stopping = true;
    for (const w of children) if (isRunning(w)) w.child.kill(signal);
  };
  let over = false;
  /** Later nights recorded by a clock running ahead, said once the night's log is open. */
  let aheadNotes: string[] = [];
  /**
   * The night to run, when this command has just closed it as incomplete (its time was over,
   * P13): it is run only to record what it never reached, and nothing is asked in it (its
   * deadline is its closing moment, settleUnfinishedNights); then it is closed again as it was.
   */
  let closedNow: NightRow | undefined;
  let unregister = () => {};
  /**
   * On PostgreSQL, this process's night as the shared store shows it to other machines from its
   * opening to its end (night-run-mark.ts); ended before the store is closed.
   */
  let inStore: NightRunMark | undefined;
  const endInStore = async (): Promise<void> => {
    const mark = inStore;
    inStore = undefined;
    await mark?.end();
  };
  // A person's stop while the night runs: the night stops in order (night-runners.ts), its
  // requests waiting to leave recorded as not sent, and the process then ends by the signal.
  const stop = new AbortController();
  let running = false;
  let stopped: (() => void) | undefined;
  /** A worker that ended with exit 2 (a reason a person must mend): the night stops on it. */
  let workerRefused: NightProcessEnd | undefined;
  try {
    // P8: a store whose index names stored copies in an archive that is not there (restored
    // without it, a mistyped --data) is refused before anything is changed or asked (exit 2):
    // the night would make an empty archive and ask every page again in full. An empty one
    // goes on, said once (by the command, not by each worker it starts, which it has judged).
    // On PostgreSQL each machine may have a data directory of its own, the index shared: an
    // archive that is not here is no sign of a lost one there.
    // Files found unusable before the store was open: run instead only what it holds.
    if (storedInstead !== undefined && !(await storedSourcesRunnable(store.db, importerVersion())))
      throw storedInstead;
    const archiveNote =
      opts.worker === true || loc.kind !== "sqlite"
        ? undefined
        : await archiveBeforeNight(archiveDir(dataDir), store.db);
    const release = await acquireOpeningLock(store, dataDir);
    try {
      // The night this would be, read before anything is closed: not beside a live process of
      // another night, whatever its date (a past night asked for by date is never "under way"
      // by the calendar); refused before this process changes anything (night-runners.ts).
      const before = clock.now();
      // On PostgreSQL the nights' starts are the database server's time: measured by it.
      const judgeNow = async () =>
        store.dialect === "postgres" ? (await storeClock(store.db, clock)).now() : before;
      // P13, P11: a night dated after tonight was recorded by a clock running ahead, then set
      // right: set aside before anything is judged (admin.ts setAsideNightsAhead), so it is
      // neither resumed under its date now nor taken for its date's night when that comes. A
      // live process's is left to it (by the command, not by each worker it starts).
      const loopbackOnly = async () => {
        // Only a night whose every address is a loopback or private one (a test's, the
        // demo's), never one that asks a public site: --allow-private-addresses alone lets
        // private addresses through beside public ones.
        if (opts.allowPrivateAddresses !== true) return false;
        // The entries the store holds when the files are the ones last imported (then not
        // read: catalog-stamp.test.ts), else the files as read (which the import then takes).
        const imported = read === undefined && (await filesImported());
        if (!imported) read ??= await readOrStored();
        // The files unusable (--or-stored-catalog): the store's sources are the ones run.
        const entries =
          imported || read === undefined
            ? (await sourceEntriesInUse(store.db)).map((e) => e.entry)
            : read.catalog.sources.map((s) => JSON.stringify(s));
        return onlyPrivateAddresses(entries, parsePins(opts.resolve ?? []));
      };
      let setAside: NightSetAside[] = [];
      let marksMoved = 0;
      let judgedTonight = nightOf(before);
      if (opts.worker !== true) {
        const judged = await judgeNow();
        judgedTonight = nightOf(judged);
        const live = [
          ...nightsRunning(dataDir, before).map((r) => r.night),
          ...(store.dialect === "postgres" ? await nightsLiveInStore(store.db, before) : []),
        ];
        await holdAfterBelievableStart(store.db, judgedTonight, judged, live, loopbackOnly);
        setAside = await setAsideNightsAhead(store.db, judgedTonight, live, judged);
        // P25: a mark made while the clock ran ahead counts its rechecks from tonight.
        marksMoved = await marksAheadToTonight(store.db, judgedTonight);
      }
      // Begun by `nor start` at its daily time: tonight's night is due now, so an unfinished
      // night of an earlier date is over (admin.ts ScheduledStart), not resumed in its place.
      const began = opts.scheduled === undefined ? Number.NaN : Date.parse(opts.scheduled);
      const scheduled =
        Number.isFinite(began) && asked === undefined ? scheduledStart(began, before) : undefined;
      const resumable = await resumableNight(store.db, before, scheduled);
      const meant = asked ?? resumable?.night ?? scheduled?.night ?? nightOf(before);
      aheadNotes = setAside.map(
        (n) =>
          `night ${n.night} was recorded by a clock running ahead (it began at ${n.startedAt}, and ${judgedTonight} is tonight's date): set aside, its ${n.outcomes} sources' outcomes removed and its ${n.requests} requests kept on the request log with no night named, so that night ${n.night} is run when its date comes; night ${meant} is run all the same, its sources owed their check`,
      );
      if (marksMoved > 0)
        aheadNotes.push(
          `${countOf(marksMoved, "mark")} made on a night after tonight's date ${judgedTonight} (by a clock running ahead) moved to tonight: rechecks count from tonight (P25)`,
        );
      aheadNotes.push(...(await refuseLateStart(store.db, meant, { now: judgeNow, loopbackOnly })));
      // The mark lasts as long as the run can: its deadline (a resumed night keeps its own),
      // the opening and the last answers' wait after it well inside the hour added.
      const endsAt = (n: string, at: number) => {
        const own = resumable?.night === n ? Date.parse(resumable.deadlineAt) : Number.NaN;
        return (Number.isFinite(own) ? own : at + deadlineMs) + HOUR_MS;
      };
      // Stopped by a signal, the night's workers are stopped with it; once the night runs,
      // in order: the command ends (its store closed) before the signal ends the process.
      const passOn = (signal: NodeJS.Signals): Promise<void> | undefined => {
        stopWorkers(signal);
        if (!running) return undefined;
        const done = new Promise<void>((resolve) => {
          stopped = resolve;
        });
        stop.abort(new Error(`the command was stopped (${signal})`));
        return done;
      };
      const runner = registerNightRunner(
        dataDir,
        meant,
        before,
        endsAt(meant, before),
        ids,
        passOn,
      );
      unregister = runner.release;
      // Without --night: a night still under way is resumed, even after midnight, but only
      // while its time lasts (closingTime: its deadline, at most 24 h after it began, whatever
      // the schedule; the rule `nor start` and `nor status` read too); an older one is closed
      // incomplete (P13) and tonight is today's date in New York.
      // A night another live process runs here (a past date joined by name, a worker's) is under
      // way: not closed under it, nor said to be.
      // Machines sharing one PostgreSQL store, each with a data directory of its own: a night
      // one of them runs is known from the store (its lanes' leases), not from marks here.
      const elsewhere =
        store.dialect === "postgres" ? await nightsLiveInStore(store.db, clock.now()) : [];
      // A night asked for by a past date is resumed by its name only (a plain `nor night`
      // closes it and begins tonight's): `asked` is the name given, if any.
      const settled = await settleUnfinishedNights(
        store.db,
        clock.now(),
        [...(runner.joined ? [meant] : []), ...elsewhere],
        asked,
        scheduled,
      );
      // One night at a time on a store: another night asked for while tonight's is under way
      // would read every source of both, each site twice in a night (P11, P16). Processes of
      // the same night share it (lanes, the journal); a night asked for by date waits its turn.
      const underWay = settled.resumable;
      if (asked !== undefined && underWay !== undefined && underWay.night !== asked) {
        const runsTo = ` (its time runs to ${clockText(underWay.until, underWay.night)} New York)`;
        throw new NorError(
          "E_STORE",
          `night ${underWay.night} is under way on this store${runsTo}; not starting night ${asked} beside it: run \`nor night\` without --night to join it, or ask for ${asked} once it is over`,
        );
      }
      const toRun = asked ?? underWay?.night ?? meant;
      const beside = elsewhere.find((n) => n !== toRun);
      if (beside !== undefined)
        throw new NorError(
          "E_STORE",
          `night ${beside} is being run on this store by another process (from another data directory or machine: it is marked under way in the store, or its lanes are leased); not starting night ${toRun} beside it: run \`nor night --night ${beside}\` to join it, or wait until it is over`,
        );
      // A live process runs this night here with the catalog it imported: a catalog that would
      // change the sources it runs (retire some under it, add others) is not imported beside
      // it, nor the night finished while it still works. The same files, however named or
      // whatever build reads them, join it (a worker's, a second command's); so do files
      // whose sources are the ones in use.
      joining = runner.joined || elsewhere.includes(meant);
      if (joining && opts.worker !== true) {
        // A night that runs only some of the sources in use (its files' import refused) is
        // joined by no other process: the other would run them all, the ones left out too.
        if (await nightRunsSubset(store.db, meant))
          throw new NorError(
            "E_CONFIG",
            `night ${meant} is being run by another process on only the sources in use its catalog files list unchanged (their import was refused): another process does not join it, as it would run every source in use; wait until it is over, and mend the files (\`nor status\` says why)`,
          );
        if (!(await filesImported())) read ??= await readOrStored();
        // Files that cannot be used do not join a live night on the store's word: its sources
        // are that night's to say (exit 2, the files' problem said).
        if (storedInstead !== undefined) throw storedInstead;
        await refuseCatalogBesideNight(store.db, meant, {
          dataDir,
          files: opts.catalog,
          stamp,
          // Read once: the import below takes the same.
          sources: async () => {
            read ??= await readCatalog(opts.catalog);
            return read.catalog.sources;
          },
          instead:
            "run `nor night` with the same files to join it, or import these once the night is over",
        });
      }
      night = asked ?? underWay?.night ?? scheduled?.night ?? nightOf(clock.now());
      if (night !== meant) {
        // The clock passed a night's start meanwhile: marked again, for the night it runs.
        unregister();
        const at = clock.now();
        unregister = registerNightRunner(
          dataDir,
          night,
          at,
          endsAt(night, at),
          ids,
          passOn,
        ).release;
      }
      closedNow = settled.closed.find((c) => c.night === night);
      // Machines sharing the store see this night from now to its end, while the opening lock
      // is still held: between giving it back and claiming its first lane (its canary, its
      // planning) and between lanes, it holds no lane for them to see (P13, P26).
      if (store.dialect === "postgres")
        inStore = await markNightInStore(store.db, night, clock, ids);
      // Through stderr(), so whoever runs the command in-process sees the same lines.
      const pino = requireCjs("pino") as typeof pinoOf;
      // Its lines timed by the night's clock (pino's own reads the machine's: a test giving a
      // clock, io.ts, would have two in one log).
      log = pino(
        { base: { night }, timestamp: () => `,"time":${clock.now()}` },
        { write: (line: string) => void stderr().write(line) },
      );
      const notes = settled.closed.map((c) =>
        c.night === night
          ? // The night asked for again: it goes on only to record what it never reached.
            `night ${c.night} was interrupted and its time has passed: nothing more is asked in it; the sources it did not reach are recorded as unreached, and it is closed as incomplete (see \`nor status\`)`
          : `night ${c.night} was interrupted and not resumed in time; closed as incomplete (see \`nor status\`)`,
      );
      if (archiveNote !== undefined) notes.push(archiveNote);
      // (Said by the command, not again by each worker it starts.)
      if (opts.worker !== true) notes.push(...aheadNotes);
      // (Not for `nor start`'s night: the deadline it gives is the schedule's, not a person's.)
      if (
        asked === undefined &&
        settled.resumable !== undefined &&
        opts.deadline !== undefined &&
        opts.scheduled === undefined
      ) {
        notes.push(
          `resuming night ${night}, which keeps its own deadline ${settled.resumable.deadlineAt} (--deadline applies to a new night)`,
        );
      }
      for (const note of notes) {
        if (tty) stderr().write(`${by}: ${note}\n`);
        else log.warn(note);
      }
      const opened = await nightRow(store.db, night);
      // P13: a night that had finished and whose deadline has passed is over: running it
      // again could ask nothing and would only overwrite what it recorded (a checker-offline
      // source as unreached, its end time past its deadline). Said, and left as it is, its
      // catalog not imported either. (One interrupted and closed just now goes on: its sources
      // left are recorded unreached.)
      if (
        opened?.finishedAt &&
        clock.now() >= Date.parse(opened.deadlineAt) &&
        !settled.closed.some((c) => c.night === night)
      ) {
        const note =
          `night ${night} is over: it finished at ${clockText(Date.parse(opened.finishedAt), night)} New York and its deadline ` +
          `(${clockText(Date.parse(opened.deadlineAt), night)}) has passed, so nothing more is asked in it (P13); ` +
          "the sources it did not reach go first in the next night";
        if (tty) stderr().write(`${by}: ${note}\n`);
        else log.info({ finishedAt: opened.finishedAt, deadlineAt: opened.deadlineAt }, note);
        over = true;
      }
      if (!over) {
        // The directory shows what the night read: the catalog is imported as a diff first
        // (a source gone from the file is retired, never deleted), as `nor catalog import`;
        // unless these files, byte for byte, are the ones last imported (their stamp), when the
        // store already holds exactly their sources. The night runs the sources in use.
        const catalogOpts = {
          now: clock.now(),
          allowRetire: opts.allowRetire === true,
          said: (line: string, record: Record<string, unknown>) => {
            if (tty) stderr().write(`${by}: catalog imported: ${line}\n`);
            else log.info(record, "catalog imported");
          },
        };
        /** Of the sources in use, only those the files list unchanged (an import refused). */
        let listed: ReadonlySet<string> | undefined;
        // With --or-stored-catalog the files are read once, here, unless they are the ones last
        // imported: an import refused is then known to be of files that were read whole.
        if (mayRunStored && storedInstead === undefined && !(await filesImported()))
          read ??= await readOrStored();
        if (opts.worker === true || storedInstead !== undefined)
          sources = (await sourcesInUse(store.db)) ?? [];
        else {
          try {
            sources = await sourcesOfCatalog(store.db, read ?? opts.catalog, stamp, catalogOpts);
          } catch (err) {
            // Nothing of the files was written. Unreadable now or not a valid catalog: with
            // --or-stored-catalog the night runs what the store last imported, when this build
            // imported it (readOrStored). A valid catalog whose import was refused (it would
            // retire too many): only the sources in use it lists, unchanged, run; those it
            // leaves out, or changes, are not asked on the store's word (when in doubt, not).
            if (!mayRunStored || !isCatalogProblem(err) || read === undefined) throw err;
            const { unchangedSources } = await import("../../sources/catalog-import.js");
            listed = unchangedSources(await sourceEntriesInUse(store.db), read.catalog.sources);
            const inUse = (await sourcesInUse(store.db)) ?? [];
            sources = inUse.filter((s) => listed?.has(s.id));
            // Nothing it lists is unchanged: nothing to run on the store's word.
            if (sources.length === 0) throw err;
            storedInstead = err;
          }
        }
        subset = listed !== undefined;
        if (storedInstead !== undefined) {
          const problem = storedInstead.message;
          const note =
            listed === undefined
              ? `its catalog files could not be used, so it ran the ${countOf(sources.length, "source")} the store last imported: ${problem}`
              : `${SUBSET_NOTE} ${countOf(sources.length, "source")} in use that they list unchanged: ${problem}`;
          catalogNote = note;
          const thisNight = night;
          let saidOnce = false;
          const say = (said: string) => {
            saidOnce = true;
            if (tty) stderr().write(`${by}: ${said}\n`);
            else log.warn({ catalogProblem: problem }, said);
          };
          sayCatalogNote = (plan) =>
            // P13: a finished night with nothing left to ask (every source done) asks nothing,
            // the canary included, and keeps its history as it ran (no note kept either).
            say(
              !plan.works && plan.finishedAt !== undefined
                ? `night ${thisNight} had already finished (at ${clockText(plan.finishedAt, thisNight)} New York) with nothing left to ask, so nothing was asked in it and its history is kept as it ran; its catalog files could not be used (--or-stored-catalog): ${problem}`
                : `night ${thisNight}: ${note} (--or-stored-catalog; \`nor status\` shows it with the night)`,
            );
          sayCatalogUnplanned = () => {
            if (!saidOnce)
              say(
                `night ${thisNight}: nothing was asked in it by this run, which ended before it could ask anything; its catalog files could not be used (--or-stored-catalog): ${problem}`,
              );
          };
        }
        read = undefined; // the entries are the store's from here on: let these go
        start = {
          night,
          resumed: opened !== undefined,
          deadlineAt: opened ? Date.parse(opened.deadlineAt) : runStart + deadlineMs,
          sources: sources.length,
          sites: new Set(sources.map((s) => siteOf(s.url))).size,
        };
      }
    } finally {
      await release();
    }
    if (over || start === undefined) {
      unregister();
      await endInStore();
      await store.close();
      if (!over) throw new NorError("E_INTERNAL", `night ${night}: not started, and not over`);
      process.exitCode = 0;
      return;
    }
    // A worker that dies is said when it does (its sites are finished by the others), and
    // counted at the end: the night then exits 1 after its summary.
    const died = (end: NightProcessEnd) => {
      const means = workerEndMeans(end);
      if (means === "done" || stopping) return;
      if (means === "refused") {
        // A worker refused to go on for a reason a person must mend (an answer the archive
        // could not keep: a full disk): the others would only meet it too, asking sites for
        // answers they cannot keep. The whole night stops, and the command exits 2.
        workerRefused = end;
        stopWorkers();
        stop.abort(new Error(`the night stopped: ${endText(end)}`));
        return;
      }
      const note = `night ${night}: ${endText(end)}; the night goes on, its sites finished by the other processes`;
      if (tty) stderr().write(`\n${by}: ${note}\n`);
      else log.warn({ worker: end.pid ?? null, code: end.code, signal: end.signal }, note);
    };
    // A night closed just now asks nothing: no other process is needed to record its sources.
    // Nor one that runs only some of the sources in use: its workers would run them all.
    if (subset && workers > 1) {
      const note = `night ${night} runs in this process alone: its workers would run every source in use, not only those its catalog files list unchanged`;
      if (tty) stderr().write(`${by}: ${note}\n`);
      else log.warn(note);
    }
    for (let i = 1; i < (closedNow === undefined && !subset ? workers : 1); i++) {
      const w = spawnWorker(night);
      children.push(w);
      void w.ended.then(died);
    }
  } catch (err) {
    sayCatalogUnplanned?.();
    stopWorkers();
    unregister();
    await endInStore();
    await store.close();
    throw err;
  }
  // Said once the store has opened the night (P13): as it keeps it. A command that read no night
  // under way may still join one another command opened a moment before (on PostgreSQL, on
  // another machine): then it resumes that night, under that night's deadline, and says so.
  const announced = start;
  const announce = (opened: { resumed: boolean; deadlineAt: number }): void => {
    if (opened.resumed && !announced.resumed && opts.deadline !== undefined) {
      const note = `joining night ${night}, which another process opened a moment before: it keeps its own deadline ${new Date(opened.deadlineAt).toISOString()} (--deadline applies to a new night)`;
      if (tty) stderr().write(`${by}: ${note}\n`);
      else log.warn(note);
    }
    const said = { ...announced, resumed: opened.resumed, deadlineAt: opened.deadlineAt };
    if (tty) stderr().write(`${startLine(said, runStart, by)}\n`);
    else {
      const { night: _n, ...rest } = said;
      log.info({ ...rest, deadlineAt: new Date(said.deadlineAt).toISOString() }, "night start");
    }
  };
  try {
    running = true;
    let summary: Awaited<ReturnType<typeof runNightWithStore>>;
    // The night's sources with an outcome before this run: the summary counts the whole night,
    // so what it says was already done is these too (a source an import retired since is not in
    // this run's list, but was checked tonight all the same).
    const doneBefore = (await nightTotals(store.db, night)).checked;
    try {
      summary = await runNightWithStore(store, sources, {
        night,
        // A process joining a night another runs takes that night's sources in use: the night
        // is not said to have run without its files on its word.
        ...(catalogNote !== undefined && !joining ? { catalogNote } : {}),
        ...(sayCatalogNote !== undefined ? { onPlanned: sayCatalogNote } : {}),
        deadlineMs,
        // The deadline announced above counts from the command's start: so does the one kept.
        deadlineFrom: runStart,
        concurrency,
        dataDir,
        clock,
        ids,
        // Nothing is asked in a night closed just now, the canary included.
        ...(opts.canary !== undefined && closedNow === undefined
          ? { canary: canaryUrl(opts.canary) }
          : {}),
        ...net,
        onSourceError: (source, err) => {
          // The outcome says "checker error: …"; the log keeps the whole error (its stack).
          const text = err instanceof Error ? (err.stack ?? err.message) : String(err);
          if (tty) stderr().write(`\n${by}: ${source}: the checker failed on it: ${text}\n`);
          else log.error({ source, err }, "checker error");
        },
        // A WARC file cut short: the night goes on, its lost copies asked again when needed.
        // Said once a command: by the process a person started, never again by each of its
        // workers, which open the same archive (their stderr is this one's).
        ...(opts.worker
          ? {}
          : {
              onArchiveNote: (note: string) => {
                if (tty) stderr().write(`${by}: ${note}\n`);
                else log.warn(note);
              },
            }),
        onProgress: (p) => {
          if (tty) {
            rewriteLine(progressLine(p, clock.now()));
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
        stop: stop.signal,
        onOpened: announce,
      });
    } catch (err) {
      // The store's disk full anywhere else (claiming a lane, finishing the night): the
      // operator's to mend, said as such (exit 2), as the night's own stops for it are.
      if (diskFull(err) && !(err instanceof NorError && err.code === "E_CONFIG"))
        throw new NorError(
          "E_CONFIG",
          `night ${night} stopped: the store could not write (${STORE_FULL}): ${err instanceof Error ? err.message : String(err)}`,
          { cause: err },
        );
      // The stop itself, come up through a request it cut off (the canary's, say): a stop,
      // not a failure of the night. Any other error is said as ever.
      if (!stop.signal.aborted || !isTheStop(err, stop.signal.reason)) throw err;
      summary = { stopped: true } as typeof summary;
    } finally {
      // Ended before its plan was known (refused, failed, stopped): the files' problem is
      // still said, with nothing said to have run (it asked nothing).
      sayCatalogUnplanned?.();
    }
    const ends = await Promise.all(children.map((w) => w.ended));
    if (workerRefused !== undefined)
      throw new NorError(
        "E_CONFIG",
        `night ${night} stopped: ${endText(workerRefused)} (its reason is in its lines above); the night is left open, and ${resumesIt(by)} once that is mended`,
      );
    if (summary.stopped || stop.signal.aborted) {
      // Stopped by a person: the night stays open, to be resumed; its workers ended with it
      // (by the same signal: no failure of theirs). Said once, by the command's own process.
      const note = `night ${night} stopped before its end; ${resumesIt(by)} (what was answered tonight is not asked again)`;
      if (!opts.worker) {
        if (tty) stderr().write(`\n${by}: ${note}\n`);
        else log.warn(note);
      }
      process.exitCode = 1;
      return;
    }
    // Closed as incomplete by this command (it said so): what it never reached is recorded,
    // and it stays closed at the moment its time ran out, as `nor status` then says.
    if (closedNow !== undefined) await closeIncompleteAgain(store.db, closedNow);
    // The summary counts the whole night as the store has it, once this process's workers
    // have ended: every process's outcomes, new records, requests and flags, and a run's
    // before a restart (docs/operations.md: the night's summary).
    const failed = ends.filter((e) => e.code !== 0);
    const { outcomes, checked, newRecords, ...counts } = await nightTotals(store.db, night);
    const end: NightEnd = {
      ...summary,
      ...counts,
      outcomes: outcomes as NightEnd["outcomes"],
      planned: checked,
      alreadyDone: Math.min(checked, Math.max(summary.alreadyDone, doneBefore)),
      newRecords,
      startedAt: runStart,
      endedAt: clock.now(),
    };
    if (tty) stderr().write(`\n${summaryLines(end, report).join("\n")}\n`);
    else log.info(summaryRecord(end, report), "night done");
    if (failed.length > 0)
      throw new NorError(
        "E_INTERNAL",
        `${failed.length} of ${countOf(children.length, "worker")} failed: ${failed.map(endText).join("; ")}`,
      );
    // P20, P23: the checker's own outage is not a site's no, and not a night that went well.
    if (summary.checkerOffline && summary.offline) {
      const message = offlineMessage(summary.offline);
      if (tty) stderr().write(`${by}: ${message}\n`);
      else log.error({ checkerOffline: true, ...summary.offline }, message);
      process.exitCode = 1;
      return;
    }
    process.exitCode = 0;
  } finally {
    orphanWatch?.();
    stopWorkers();
    // The store closed before the mark goes (and with it the signal handlers: a signal during
    // the close changes nothing); then the signal that stopped it ends the process.
    try {
      await endInStore();
      await store.close();
    } finally {
      unregister();
      stopped?.();
    }
  }
}

/** How the night is resumed, in the words of the command the person ran. */
function resumesIt(by: NightBy): string {
  return by === "nor start"
    ? "`nor start` resumes it when it starts again"
    : "`nor night` resumes it";
}

/** The stop's own reason, or an error it caused (a request cut off by it: CutOff's cause). */
function isTheStop(err: unknown, reason: unknown): boolean {
  for (let e = err, i = 0; e !== undefined && i < 5; i++) {
    if (e === reason) return true;
    e = (e as { cause?: unknown } | null)?.cause;
  }
  return false;
}

/**
 * The sources in use after the catalog files are imported, or without importing them when
 * their stamp is the store's (src/sources/catalog/stamp.ts): then the files are not read, and
 * neither the YAML parser nor zod is loaded (docs/benchmarks.md "A night's memory"). `said`
 * hears a diff that changed something: a line for a person and a record for the log.
 */
async function sourcesOfCatalog(
  db: Db,
  /** The files, or the catalog already read from them. */
  from: string[] | ReadCatalog,
  stamp: CatalogStamp | undefined,
  opts: {
    now: number;
    allowRetire: boolean;
    said(line: string, record: Record<string, unknown>): void;
  },
): Promise<SourceRef[]> {
  if (Array.isArray(from) && stamp?.unchanged()) {
    const held = await sourcesInUse(db, { stamp: stamp.digest });
    if (held !== undefined) return held;
  }
  const { catalog, origins } = Array.isArray(from) ? await readCatalog(from) : from;
  const { diffCounts, diffLine, importCatalog } = await import("../../sources/catalog-import.js");
  const diff = importedOrStop(
    await importCatalog(db, catalog, origins, opts.now, { allowRetire: opts.allowRetire, stamp }),
  );
  if (diff.changes.length > 0) {
    const renamed = diff.changes
      .filter((c) => c.entity === "source" && c.change === "renamed")
      .map((c) => ({ from: c.from, to: c.id }));
    opts.said(diffLine(diff), {
      catalogChanges: diff.changes.length,
      ...diffCounts(diff),
      ...(diff.sameAddress ? { sameAddress: diff.sameAddress } : {}),
      retired: diff.changes
        .filter((c) => c.entity === "source" && c.change === "retired")
        .map((c) => c.id),
      ...(renamed.length > 0 ? { renamed } : {}),
    });
  }
  return (await sourcesInUse(db)) as SourceRef[];
}

type ReadCatalog = ReturnType<typeof import("../../sources/catalog/load.js").loadCatalogWithFiles>;

/**
 * Whether every address the sources' entries (as JSON) name is known, without DNS, to be a
 * loopback or private one: an IP literal, or a name `--resolve` pins to one. A name left to DNS
 * is taken as public, and so is a source on a platform (its preset may ask another host than the
 * one the catalog names: legistar-api asks webapi.legistar.com). Any http(s) text counts, in any
 * case (`HTTPS://`), a note's as well: the safe side.
 */
function onlyPrivateAddresses(entries: readonly string[], pins: Pins): boolean {
  for (const s of entries) {
    let entry: unknown;
    try {
      entry = JSON.parse(s);
    } catch {
      return false;
    }
    if (typeof entry !== "object" || entry === null) return false;
    if ((entry as { platform?: unknown }).platform !== undefined) return false;
    for (const m of s.matchAll(/https?:\/\/[^"\s\\]+/gi)) {
      let url: URL;
      try {
        url = new URL(m[0]);
      } catch {
        return false;
      }
      const address = knownAddress(pins, url);
      if (address === undefined || !isForbiddenAddress(address)) return false;
    }
  }
  return true;
}

/** The catalog files read and validated (the YAML parser and zod loaded for it). */
async function readCatalog(files: string[]): Promise<ReadCatalog> {
  const { loadCatalogWithFiles } = await import("../../sources/catalog/load.js");
  return loadCatalogWithFiles(files);
}

/** `--canary`: an http(s) URL with a host and no user-info, checked before anything is touched. */
function canaryUrl(text: string): string {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    throw new UsageError(`--canary: "${text}" is not a URL`);
  }
  if ((u.protocol !== "http:" && u.protocol !== "https:") || u.hostname === "")
    throw new UsageError(`--canary: "${text}" is not an http(s) URL`);
  if (u.username !== "" || u.password !== "")
    throw new UsageError(`--canary: "${text}" carries a user name or password`);
  return u.href;
}

/**
 * `--served-at` (set by `nor start`): the address the directory is served at, an http(s) URL,
 * from which the night's summary makes the new records' (URL/new). Anything else is refused
 * before the night starts, not found at its end by the summary.
 */
function servedAtUrl(text: string): string {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    throw new UsageError(`--served-at: "${text}" is not a URL`);
  }
  if ((u.protocol !== "http:" && u.protocol !== "https:") || u.hostname === "")
    throw new UsageError(`--served-at: "${text}" is not an http(s) URL`);
  return u.href;
}

/** A worker of this night: its process, and its end, listened for from its start. */
interface Worker {
  child: ChildProcess;
  ended: Promise<NightProcessEnd>;
}

/** Still running: neither an exit code nor a signal yet (a child killed by one has no code). */
function isRunning(w: Worker): boolean {
  return w.child.pid !== undefined && w.child.exitCode === null && w.child.signalCode === null;
}

/** Another `nor night` process on the same night: the same arguments, one worker, this night. */
function spawnWorker(night: string): Worker {
  const args: string[] = [];
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === "--workers" || a === "--night") {
      i++;
      continue;
    }
    if (a.startsWith("--workers=") || a.startsWith("--night=")) continue;
    if (a === "--worker") continue;
    args.push(a);
  }
  const child = startNightProcess(
    process.argv[1] as string,
    [...args, "--night", night, "--worker"],
    ["ignore", "ignore", "inherit"],
  );
  return { child, ended: nightProcessEnd(child) };
}

const HOUR_MS = 3_600_000;

/** How often a night's process looks whether the command that started it is still there. */
const PARENT_WATCH_MS = 1_000;

/**
 * A night's process started by another command (`nor night --workers`, `nor start`: the
 * parent's id in PARENT_PID_ENV) stops once that command is gone (killed with SIGKILL, out of
 * memory), as if the command had been stopped: SIGTERM to itself, the night's stop in order
 * (night-runners.ts). Gone already when this starts (killed between the spawn and now): ended
 * at once, before anything is done. Returns the watch's end; none for a night started by hand.
 */
function watchParent(by: NightBy): (() => void) | undefined {
  const parent = Number(process.env[PARENT_PID_ENV]);
  if (!Number.isInteger(parent) || parent <= 0) return undefined;
  const gone = () => process.ppid !== parent;
  const stop = () => {
    stderr().write(
      `${by}: the command that started this night's process (pid ${parent}) is gone; stopping in order\n`,
    );
    process.kill(process.pid, "SIGTERM");
  };
  if (gone()) {
    stop();
    return undefined;
  }
  const timer = setInterval(() => {
    if (!gone()) return;
    clearInterval(timer);
    stop();
  }, PARENT_WATCH_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Processes that may share a night on one machine (`--workers`). Each works its own lanes, and
 * every request is admitted by the journal whatever their number; past a few, more processes
 * only wait for each other's turn at the store (a typo of 1000 started hundreds at once).
 */
export const MAX_WORKERS = 32;

/**
 * A past night is begun only this long after the store's last night began (by the clock): a
 * day's rest, less the hours a night's start may slip from one day to the next.
 */
export const PAST_NIGHT_REST_MS = 20 * HOUR_MS;

/**
 * P11, P13: a night dated after tonight (its date named by a clock running ahead) whose recorded
 * start is at or before now: that start is believable (on PostgreSQL the server stamps it, right
 * while the host that named the date ran ahead): its sources were asked then. Any night begun
 * now is held PAST_NIGHT_REST_MS after that start, as after a past night caught up (every source,
 * and a site that said no, would be asked again the same day), and the night is not set aside
 * meanwhile, so the hold stands for the next `nor night` too. Only a start after now is
 * unbelievable (set aside at once). Loopback tests and the demo run at once, as refuseLateStart.
 */
async function holdAfterBelievableStart(
  db: Db,
  tonight: string,
  now: number,
  live: readonly string[],
  loopbackOnly: () => Promise<boolean>,
): Promise<void> {
  const recent = (await nightsDatedAfter(db, tonight)).filter((n) => {
    const began = Date.parse(n.startedAt);
    return !live.includes(n.night) && began <= now && now - began < PAST_NIGHT_REST_MS;
  });
  const last = recent
    .slice()
    .sort((a, b) => Date.parse(a.startedAt) - Date.parse(b.startedAt))
    .at(-1);
  if (last === undefined || (await loopbackOnly())) return;
  const began = Date.parse(last.startedAt);
  const hours = PAST_NIGHT_REST_MS / HOUR_MS;
  const from = `${formatInZone(began + PAST_NIGHT_REST_MS, SITE_OWNER_ZONE).slice(0, 16)} New York`;
  throw new NorError(
    "E_CONFIG",
    `night ${last.night}, dated after tonight's ${tonight} (by a clock that ran ahead), began ${formatLeft(now - began)} ago, at ${last.startedAt}: its sources were asked then, so no night is begun until at least ${hours} hours after it (every source, and a site that said no, would be asked again the same day); a night may begin from ${from}, when ${last.night} is set aside`,
  );
}

/**
 * A night asked for by date that this store has never opened, older than one it has: refused.
 * Started now, it would ask every source again on the same day as that later night (P11: a
 * night costs a source one or two requests), and read as the store's nights out of order. A
 * night already opened may be asked for again (it resumes, or says it is over). And a past
 * night never opened is begun only PAST_NIGHT_REST_MS after the store's last night began: past
 * nights run one after another (2026-11-26, then -27, then -28) would ask every source, and a
 * site that said no, again within minutes, its rechecks (P25) too; and tonight's night, never
 * opened, is begun only PAST_NIGHT_REST_MS after a past night caught up (begun after its own
 * date) began, for the same reason (under `nor start` it is then left for the next day's).
 * Loopback tests and the demo run nights back to back: `judge.loopbackOnly` says whether every address
 * of the night's sources is a loopback or private one (with --allow-private-addresses), read
 * only when it matters.
 */
async function refuseLateStart(
  db: Db,
  asked: string,
  judge: { now: () => Promise<number>; loopbackOnly: () => Promise<boolean> },
): Promise<string[]> {
  if ((await nightRow(db, asked)) !== undefined) return [];
  const now = await judge.now();
  const notes: string[] = [];
  const later = await nightsDatedAfter(db, asked);
  if (later.length > 0) {
    // A later night begun in the future of now was recorded under a clock running ahead (a VM
    // restored with a wrong clock, an RTC set wrong, then NTP set it right): it holds no
    // source's request of a night after this one by the calendar, and tonight's night is run
    // (each source is still owed tonight's check). Said, with its start as it was recorded.
    // Any later night begun by now keeps the order: a past night is not begun after it.
    const ahead = later.filter((n) => Date.parse(n.startedAt) > now);
    const begun = later.filter((n) => !(Date.parse(n.startedAt) > now));
    const latest = begun.at(-1);
    if (latest !== undefined) {
      const tonight = nightOf(now);
      // Never the command being refused as the way out: `nor night` is advised only when
      // tonight's night is not this one and would not be refused the same way.
      const advice =
        asked >= tonight
          ? `night ${latest.night} began at ${latest.startedAt}, before its date (by a clock that ran ahead then): this store's next night is ${addDays(latest.night, 1)}, which \`nor night\` runs from its date`
          : tonight < latest.night
            ? `tonight's night ${tonight} is before it too: this store's next night is ${addDays(latest.night, 1)}, which \`nor night\` runs from its date`
            : "run `nor night` for tonight";
      throw new NorError(
        "E_CONFIG",
        `night ${asked} was never run on this store and night ${latest.night} has been: a past night is not started after a later one (every source would be asked twice in a day); ${advice}`,
      );
    }
    for (const n of ahead)
      notes.push(
        `night ${n.night} was recorded by a clock running ahead (it began at ${n.startedAt}, after now, ${new Date(now).toISOString()}): night ${asked} is run all the same, its sources owed their check (the later night's date, when it comes, finds that night already opened)`,
      );
  }
  const last = await lastBegunNight(db);
  if (last === undefined) return notes;
  const began = Date.parse(last.startedAt);
  const since = now - began;
  const tonight = asked >= nightOf(now);
  // A past night waits after any night; tonight's only after a past night caught up: one begun
  // after its own date was over, by the calendar, not allowing the hour a late night may take
  // (begunAfterItsDate): yesterday's caught up at 00:30 is as near to tonight's as one at 09:00.
  // A night of a schedule near midnight that began late, past it, holds the next for 20 hours
  // too, which its next daily time is beyond. A night begun "later" than now (a clock set back)
  // is as near as can be.
  const held =
    !(since >= PAST_NIGHT_REST_MS) &&
    (!tonight || (Number.isFinite(began) && nightOf(began) > last.night));
  if (!held || (await judge.loopbackOnly())) return notes;
  const ago = since > 0 ? `${formatLeft(since)} ago` : "by a clock ahead of this one";
  const hours = PAST_NIGHT_REST_MS / HOUR_MS;
  const from = `${formatInZone(began + PAST_NIGHT_REST_MS, SITE_OWNER_ZONE).slice(0, 16)} New York`;
  throw new NorError(
    "E_CONFIG",
    tonight
      ? `night ${last.night}, a past night caught up, began ${ago}: tonight's night ${asked} is begun at least ${hours} hours after it (every source, and a site that said no, would be asked again the same day); it may begin from ${from}`
      : `night ${asked} is past and was never run on this store, and night ${last.night} began ${ago}: a past night is begun at least ${hours} hours after the last night began (every source, and a site that said no, would be asked again the same day); it may be run from ${from}, while no later night has begun (a past night is never begun after a later one); or leave it, and \`nor night\` runs tonight's`,
  );
}
