/**
 * `nor start` (what `npm start` runs): the whole system for one operator on one machine.
 * It imports the catalog into the data directory, serves the directory, and runs the
 * night on its schedule (01:00 America/New_York by default), saying in plain words where
 * everything is and what comes next. Each night runs as its own `nor night` process, so a
 * night that fails never takes the directory down, and the night lock still holds (P9).
 */
import { existsSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { serve } from "@hono/node-server";
import type { Command } from "commander";
import { type Clock, systemClock } from "../../clock.js";
import { NorError, UsageError } from "../../errors.js";
import { lockForCatalogImport } from "../../night/catalog-beside-night.js";
import { formatLeft, parseDuration, parseNightDeadline } from "../../night/duration.js";
import { acquireStartLock, START_LOCK_FILE } from "../../night/night-lock.js";
import { nightsRunning } from "../../night/night-runners.js";
import { DEFAULT_NIGHT_DEADLINE_MS, MIN_NIGHT_DEADLINE_MS } from "../../policy/constants.js";
import { nightOf } from "../../policy/night-date.js";
import {
  type DailyAt,
  DEFAULT_NIGHT_AT,
  DEFAULT_NIGHT_ZONE,
  formatDailyAt,
  lastRunAtOrBefore,
  nextRunAfter,
  parseDailyAt,
} from "../../policy/schedule.js";
import { noteLine } from "../../policy/shown-text.js";
import { formatInZone, ianaZoneProblem } from "../../policy/zone.js";
import { loadCatalogWithFiles } from "../../sources/catalog/load.js";
import { importerVersion, stampCatalogFiles } from "../../sources/catalog/stamp.js";
import { diffCounts, importCatalog, sameAddressText } from "../../sources/catalog-import.js";
import {
  latestNight,
  nightRow,
  nightsLiveInStore,
  resumableNight,
  scheduledStart,
} from "../../store/admin.js";
import { archiveDir } from "../../store/archive/files.js";
import { ensureArchiveDir } from "../../store/archive/warc-archive.js";
import { sourceEntriesInUse, storedSourcesRunnable } from "../../store/catalog-sources.js";
import { ensureDataDir, refuseBlockedParts } from "../../store/data-dir.js";
import { openStore, storeLocationFromOptions } from "../../store/db.js";
import { storedPasswordHash } from "../../store/read/console.js";
import { openWebReads } from "../../store/read-pool.js";
import { createApp } from "../../web/app.js";
import { answerClientErrors } from "../../web/client-errors.js";
import { answerJobModule } from "../../web/public/answer-job.js";
import { archiveBeforeNight } from "../archive-presence.js";
import { bundledCatalog } from "../bundled-catalog.js";
import { countOf } from "../count-of.js";
import { importedOrStop, isCatalogProblem } from "../import-outcome.js";
import { stdout } from "../io.js";
import { listenError } from "../listen-error.js";
import {
  addNetOptions,
  addOperatorNameOption,
  type NetCliOptions,
  netOptions,
  operatorNameOption,
} from "../net-options.js";
import { START_PARTS } from "../night-parts.js";
import { nightProcessEnd, startNightProcess } from "../night-process.js";
import { consoleOffText } from "../shell-words.js";
import { onStopSignals } from "../stop-signals.js";
import { saying } from "../store-upgrade.js";
import { addWebOptions, type WebCliOptions, webOptions } from "../web-options.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const BIN = join(ROOT, "bin", "nor.js");

export { bundledCatalog };

export interface StartOptions extends NetCliOptions, WebCliOptions {
  catalog?: string[];
  data: string;
  host: string;
  port: string;
  at: string;
  zone: string;
  deadline?: string;
  allowRetire?: boolean;
  operatorName?: string;
}

export interface StartDeps {
  clock?: Clock;
  /** Where the plain-words lines go (default: stdout). */
  say?: (line: string) => void;
  /** Stops the server and the schedule (SIGINT, SIGTERM or SIGHUP in the command). */
  signal: AbortSignal;
  /**
   * Runs one night with these `nor night` arguments; resolves to its exit code, or to how its
   * process ended when a signal ended it.
   */
  runNight?: (args: string[], signal: AbortSignal) => Promise<NightExit>;
  /** Told the URL once the directory is served (tests). */
  onListening?: (url: string) => void;
  /**
   * Told, once DATA/start.lock is taken, how to let it go at once (synchronously): what a
   * second stop signal does before the process ends.
   */
  onLocked?: (letGo: () => void) => void;
}

export function register(program: Command): void {
  const cmd = program
    .command("start")
    .description(
      "Import the catalog, serve the directory and run the night on its schedule (what `npm start` runs)",
    )
    .option("--catalog <files...>", "catalog files (default: the bundled catalog/*.yaml)")
    .option("--data <dir>", "data directory: the store, the archive, the night lock", "data")
    .option("--host <address>", "address to serve on", "127.0.0.1")
    .option("--port <n>", "port to serve on; 0 picks a free one", "8080")
    .option("--at <HH:MM>", "when the night runs each day", DEFAULT_NIGHT_AT)
    .option("--zone <zone>", "the time zone of --at", DEFAULT_NIGHT_ZONE)
    .option(
      "--deadline <duration>",
      "each night's time limit (default 6h, from 1m to 24h; a night ends at least 5 min before the next is due)",
    )
    .option("--allow-retire", "let the catalog import retire more than a tenth of the sources");
  addOperatorNameOption(addNetOptions(addWebOptions(cmd))).action(async (opts: StartOptions) => {
    // Ctrl-C, systemd's stop, a terminal closed (SIGHUP): each stops it in the same order (the
    // night under way stopped, the server and the store closed, the lock let go; "stopped").
    // A second signal (not the echo of the first that npm and a terminal send) stops it at once,
    // as `nor demo`: its lock let go, said, the process ended by that signal (stop-signals.ts);
    // a night's process, told to stop by the first, ends its own stop (within 10 s).
    const stop = new AbortController();
    let letGo: (() => void) | undefined;
    const off = onStopSignals({
      command: "nor start",
      inOrder: () => stop.abort(),
      atOnce: () => {
        if (letGo === undefined) return undefined;
        letGo();
        return `its lock ${join(resolve(opts.data), START_LOCK_FILE)} let go`;
      },
    });
    try {
      await runStart(opts, { signal: stop.signal, onLocked: (f) => (letGo = f) });
    } finally {
      off();
    }
  });
}

export async function runStart(opts: StartOptions, deps: StartDeps): Promise<void> {
  const clock = deps.clock ?? systemClock;
  const say = deps.say ?? ((line: string) => void stdout().write(`nor start: ${line}\n`));
  // Every option is checked before anything is written.
  // The same rule as the catalog's timezone: EST and other fixed offsets are refused.
  const zoneProblem = ianaZoneProblem(opts.zone);
  if (zoneProblem !== undefined) throw new UsageError(`--zone: "${opts.zone}" ${zoneProblem}`);
  const at = parseDailyAt(opts.at, opts.zone);
  const port = Number(opts.port);
  if (!/^\d+$/.test(opts.port) || port > 65_535)
    throw new UsageError(`--port must be a number from 0 to 65535, not "${opts.port}"`);
  if (opts.deadline !== undefined) parseNightDeadline(opts.deadline);
  const operatorName = operatorNameOption(opts.operatorName, netOptions(opts).userAgent);
  const { origin, clientAddress } = webOptions(opts);
  const files = opts.catalog?.length ? opts.catalog : bundledCatalog();
  // Taken before the files are read: the nights started here skip files imported unchanged.
  const stamp = stampCatalogFiles(files);
  const dataDir = resolve(opts.data);

  // NOR_DATABASE_URL (PostgreSQL) holds for the server and, inherited, for each night.
  const loc = storeLocationFromOptions({ data: dataDir });
  // Files that cannot be used (a typo, a file gone): with a store here that this build imported
  // a catalog into (looked at read-only, before anything is made or changed), the directory is
  // served and the nights run the sources it last imported (as `nor night --or-stored-catalog`),
  // said below; else said now (exit 2), with nothing made or changed.
  let loaded: ReturnType<typeof loadCatalogWithFiles> | undefined;
  let catalogProblem: NorError | undefined;
  try {
    loaded = loadCatalogWithFiles(files);
  } catch (err) {
    if (!isCatalogProblem(err) || !(await storedCatalogRunnable(loc))) throw err;
    catalogProblem = err;
  }
  // What every night needs beside the store, checked now as `nor night` checks it: a file where
  // the archive goes, or an archive this user may not write, is said at start (exit 2), not
  // by each night at its hour while the directory looks well.
  refuseBlockedParts(dataDir, START_PARTS);
  // One `nor start` a data directory: a second would serve it again and schedule every night
  // twice (the nights would join, but nothing is gained, and its stop would stop neither). A
  // directory there already is looked at, and its lock taken, before the port: a second `nor
  // start` on it is said as that (exit 2), not as the port the first one holds. The lock is
  // the one thing made in it before the port, and it goes again if the port is refused.
  const dirThere = existsSync(dataDir);
  if (dirThere) ensureDataDir(dataDir);
  let releaseStart = dirThere ? acquireStartLock(dataDir) : () => {};
  if (dirThere) deps.onLocked?.(releaseStart);
  // Then the port, held from here on: a port in use is said before anything is made (no data
  // directory, store or archive left behind by a start that could not serve). Until the
  // directory is ready to be served (the store opened, an upgrade run), a request is answered
  // 503 with Retry-After.
  let answer: Fetch = startingUp;
  let server: ReturnType<typeof serve>;
  try {
    server = await listen((req, env) => answer(req, env), opts.host, port);
  } catch (err) {
    releaseStart();
    throw err;
  }
  let stopped: Promise<void> | undefined;
  /** The damaged store a request met, if one did (onStoreDamaged below). */
  let damage: NorError | undefined;
  const stop = () =>
    (stopped ??= new Promise<void>((done) => {
      // Stopped for a damaged store, the requests under way (the one that met it, answered
      // 503) get DRAIN_MS to finish, as `nor serve`'s; stopped by a signal, none.
      if (damage === undefined) {
        if ("closeAllConnections" in server) server.closeAllConnections();
        server.close(() => done());
        return;
      }
      const force = setTimeout(() => {
        if ("closeAllConnections" in server) server.closeAllConnections();
      }, DRAIN_MS);
      if ("closeIdleConnections" in server) server.closeIdleConnections();
      server.close(() => {
        clearTimeout(force);
        done();
      });
    }));
  let store: Awaited<ReturnType<typeof openStore>>;
  let archiveThere: boolean;
  const archive = archiveDir(dataDir);
  try {
    if (!dirThere) {
      ensureDataDir(dataDir);
      releaseStart = acquireStartLock(dataDir);
      deps.onLocked?.(releaseStart);
    }
    // An archive not there is made only once the store is known to name no copies in it (below).
    archiveThere = existsSync(archive);
    if (archiveThere) ensureArchiveDir(archive);
    store = await openStore(loc, saying());
  } catch (err) {
    await stop();
    releaseStart();
    throw err;
  }
  const cleanup: (() => Promise<void>)[] = [];
  /** Stops the schedule: the stop signal, or a damaged store. */
  const halt = new AbortController();
  const onStop = () => halt.abort();
  deps.signal.addEventListener("abort", onStop, { once: true });
  cleanup.push(async () => deps.signal.removeEventListener("abort", onStop));
  if (deps.signal.aborted) halt.abort();
  try {
    // P8: a store restored without its archive is refused as `nor night` refuses it (exit 2),
    // before anything is served or scheduled; an empty archive is said by each night.
    if (!archiveThere) {
      if (loc.kind === "sqlite") await archiveBeforeNight(archive, store.db);
      ensureArchiveDir(archive);
    }
    // The pages read off the event loop (worker threads on SQLite; src/store/read-pool.ts).
    const reads = await openWebReads(loc, { jobs: answerJobModule() });
    cleanup.push(() => reads.close());
    // Without an operator password nobody could sign in: the console is off, and we say so.
    const consoleOn = (await storedPasswordHash(store.db)) !== undefined;
    // Links in feeds come from --origin; without it, from the address we listen on, never from
    // a request's Host header.
    const listening = urlOf(server.address() as AddressInfo).replace(/\/$/, "");
    // A store a request finds damaged stops it all, as it stops any command (exit 1, the
    // store's path and what to do said on stderr: docs/operations.md): the schedule and a
    // night under way stopped, the server and the store closed, the lock let go. The request
    // is answered 503 (app.tsx).
    const app = createApp({
      onStoreDamaged: (err) => {
        damage ??= err;
        halt.abort();
      },
      db: store.db,
      reads,
      // The system's clock, as before: an injected `deps.clock` drives the night alone.
      now: systemClock.now,
      ...userAgentOf(opts),
      ...(operatorName !== undefined ? { operatorName } : {}),
      origin: () => origin ?? listening,
      console: consoleOn
        ? {
            ...(origin !== undefined ? { origin } : {}),
            ...(clientAddress !== undefined ? { clientAddress } : {}),
          }
        : false,
    });
    // The files unusable, or their import refused: only with sources this build imported to go
    // on with (else exit 2, the files' problem said, as before).
    const goOnWithout = async (problem: NorError, runs: string): Promise<void> => {
      if (!(await storedSourcesRunnable(store.db, importerVersion()))) throw problem;
      const why = noteLine(problem.message);
      say(
        `the catalog files (${noteLine(files.join(", "))}) could not be used: ${why}${/[.!?]$/.test(why) ? "" : "."} The directory is served from the store, and each night imports the files once they can be; until then it runs ${runs}, and \`nor status\` says so with the night`,
      );
    };
    if (catalogProblem !== undefined)
      await goOnWithout(catalogProblem, "the sources the store last imported");
    answer = app.fetch;
    let diff: ReturnType<typeof importedOrStop> | undefined;
    if (loaded !== undefined) {
      const { catalog, origins } = loaded;
      // Not beside a night another process runs here with other sources (a timer's `nor
      // night`, a night of an earlier `nor start` still stopping): they would change under it.
      // The marks are judged on the system's clock, as the processes that wrote them.
      const release = await lockForCatalogImport(store, systemClock.now(), {
        dataDir,
        files,
        stamp,
        sources: () => catalog.sources,
        instead:
          "run `nor start` with the catalog files that night runs (--catalog A B …), or once the night is over",
      });
      try {
        diff = importedOrStop(
          await importCatalog(store.db, catalog, origins, clock.now(), {
            allowRetire: opts.allowRetire === true,
            stamp,
          }),
        );
      } catch (err) {
        // Refused (it would retire too many): nothing written. A night then runs only the
        // sources in use the files list unchanged, and stops when there are none (`nor night`):
        // so does this, then, as before.
        if (!isCatalogProblem(err)) throw err;
        const { unchangedSources } = await import("../../sources/catalog-import.js");
        const kept = unchangedSources(await sourceEntriesInUse(store.db), catalog.sources).size;
        if (kept === 0) throw err;
        await goOnWithout(
          err,
          `only the ${countOf(kept, "source")} in use that the files list unchanged`,
        );
      } finally {
        await release();
      }
      if (diff !== undefined) {
        const n = diffCounts(diff).sources;
        say(
          `catalog ${files.join(", ")}: ${countOf(catalog.governments.length, "government")}, ${countOf(catalog.sources.length, "source")} ` +
            `(${n.added} new, ${n.changed} changed, ${n.retired} retired${n.renamed > 0 ? `, ${n.renamed} renamed, history moved` : ""}) in ${loc.kind === "sqlite" ? dataDir : "PostgreSQL (NOR_DATABASE_URL)"}`,
        );
        for (const p of diff.sameAddress ?? []) say(sameAddressText(p));
      }
    }

    const url = urlOf(server.address() as AddressInfo);
    say(`the directory is at ${url} (the site-owner page: ${url}site-owners)`);
    say(
      consoleOn
        ? `the operator console is at ${url}console`
        : consoleOffText(loc.kind === "sqlite" ? dataDir : undefined),
    );
    deps.onListening?.(url);
    // A night this command's own stop, a crash or a reboot interrupted is resumed at once, not
    // left until the next night's time has closed it (P13: while its time lasts, by the rule
    // `nor night` keeps, admin.ts resumableNight: its deadline, at most 24 h after it began,
    // whatever --at and --zone say).
    const interrupted = await resumableNight(store.db, clock.now());
    /** The nights another live process runs: this machine's marks, on PostgreSQL the leases. */
    const liveNights = async () => {
      const now = clock.now();
      return [
        ...nightsRunning(dataDir, now).map((r) => r.night),
        ...(store.dialect === "postgres" ? await nightsLiveInStore(store.db, now) : []),
      ];
    };
    try {
      await scheduleNights({
        clock,
        at,
        say,
        signal: halt.signal,
        ...(interrupted ? { resume: interrupted } : {}),
        runNight: (signal, scheduled) =>
          (deps.runNight ?? spawnNight)(nightArgs(opts, files, dataDir, scheduled, url), signal),
        // A night a crash ended is started again while it is open; the schedule's, also while
        // tonight's has not begun (the crash came before it was opened).
        stillOpen: async (scheduled) => {
          const tonight = scheduled === undefined ? undefined : scheduledStart(scheduled.began);
          const open = await resumableNight(store.db, clock.now(), tonight);
          if (open !== undefined) return open.night;
          if (tonight !== undefined && (await nightRow(store.db, tonight.night)) === undefined)
            return tonight.night;
          return undefined;
        },
        over: async (night) => (await nightRow(store.db, night))?.finishedAt ?? undefined,
        busy: async (due) => (await liveNights()).find((n) => n < nightOf(due)),
        // Read from the store, never this process's memory: a store that has run no night yet
        // owes none (its first night is at the daily time); one with a row of that date (run,
        // closed, under way) or a process running it (this machine's marks, another machine's
        // lease on PostgreSQL) owes it no more.
        owed: async (night) =>
          (await latestNight(store.db)) !== undefined &&
          (await nightRow(store.db, night)) === undefined &&
          !(await liveNights()).includes(night),
      });
    } finally {
      await stop();
      if (damage === undefined) say("stopped");
    }
    if (damage !== undefined) throw damage;
  } finally {
    try {
      await stop();
      for (const close of cleanup.reverse()) await close();
      await store.close();
    } finally {
      releaseStart();
    }
  }
}

/** Night after night at the daily time, until the signal; says when the next one runs. */
export async function scheduleNights(o: {
  clock: Clock;
  at: DailyAt;
  say: (line: string) => void;
  signal: AbortSignal;
  /**
   * Runs one night. `scheduled`: begun at the daily time (not a resume), the next one due at
   * `nextDue`: see nightArgs.
   */
  runNight: (signal: AbortSignal, scheduled?: ScheduledRun) => Promise<NightExit>;
  /**
   * The night that may still be resumed now (its time not over: admin.ts resumableNight, the
   * rule `nor night` keeps), if any: a night whose process a signal ended is started again
   * while it is open.
   */
  stillOpen?: (scheduled?: ScheduledRun) => Promise<string | undefined>;
  /**
   * A night of an earlier date than that due at `due` that another live process runs now, if
   * any: the night due waits for it to end rather than be refused beside it.
   */
  busy?: (due: number) => Promise<string | undefined>;
  /**
   * When the store's night of this date ended, if it has ended (finished, or closed
   * incomplete): a night already over is not begun again at the daily time (a `nor start`
   * restarted with a later `--at` the same day, a night run by hand before): the next runs.
   */
  over?: (night: string) => Promise<string | undefined>;
  /**
   * Whether the night of this date, whose daily time came before the schedule began (`nor
   * start` restarted by systemd, after a reboot or an upgrade), is owed still: this store has
   * run nights before (on a first start none is owed) and has no night of that date, finished
   * or under way, nor does another process run it. Owed, it starts now, late, as a night a
   * sleeping machine held up does (within its date, with an hour's room). Without it, `over`
   * alone says (a date it says has not ended is owed); with neither, none is (the schedule alone
   * knows nothing of a store's nights, as on a first start).
   */
  owed?: (night: string) => Promise<boolean>;
  /** An interrupted night to resume before the first scheduled one. */
  resume?: { night: string; until: number };
}): Promise<void> {
  const ran = async (scheduled?: ScheduledRun) => {
    for (let restarts = 0; ; restarts++) {
      // A restart of the schedule's night is the schedule's too: yesterday's night, had the
      // crash come before it was closed, is not resumed in tonight's place.
      const exit = await o.runNight(o.signal, scheduled);
      if (o.signal.aborted) return false;
      const { code, signal } = typeof exit === "number" ? { code: exit, signal: null } : exit;
      if (signal === null) {
        o.say(
          code === 0
            ? "the night is done; `nor status` and the directory show what it found"
            : `the night stopped with exit code ${code} (see its lines above); the directory stays up`,
        );
        return true;
      }
      // Killed (out of memory, a crash): the night is resumed while it is open, as a timer's
      // Restart=on-failure would; a few times at most, a pause between. A night a person
      // stopped (`nor night` ends itself by the SIGTERM, SIGINT or SIGHUP it was sent, once
      // its stop is done) stays stopped.
      const crashed = CRASH_SIGNALS.has(signal);
      const open = crashed && restarts < NIGHT_RESTARTS ? await openNight(scheduled) : undefined;
      if (open === undefined) {
        o.say(
          `the night's process was ended by ${signal}${restarts > 0 ? ` (after ${countOf(restarts, "restart")})` : ""}; the directory stays up`,
        );
        return true;
      }
      o.say(
        `the night's process was ended by ${signal}; night ${open} resumes in ${formatLeft(RESTART_PAUSE_MS)} (restart ${restarts + 1} of ${NIGHT_RESTARTS})`,
      );
      if (!(await nap(RESTART_PAUSE_MS))) return false; // stopped while waiting
      // Its time may have ended during the pause (its deadline, the next night's start): a
      // `nor night` started then would begin the next night instead.
      if ((await openNight(scheduled)) !== open) {
        o.say(`night ${open} closed meanwhile; it is not started again`);
        return true;
      }
    }
  };
  const at = (t: number) => `${formatInZone(t, o.at.zone).slice(0, 16)} ${o.at.zone}`;
  /** Sleeps `ms` on the clock; false when the schedule was stopped meanwhile. */
  const nap = (ms: number): Promise<boolean> =>
    o.clock.sleep(ms, o.signal).then(
      () => true,
      () => false,
    );
  /** A night another live process runs now, of an earlier date than the one due, if any. */
  const busyNight = async (): Promise<string | undefined> => {
    try {
      return await o.busy?.(due);
    } catch (err) {
      o.say(`whether another process runs a night could not be read (${messageOf(err)})`);
      return undefined;
    }
  };
  /** The night open now, if any; one that cannot be read is taken as none (said). */
  const openNight = async (scheduled?: ScheduledRun): Promise<string | undefined> => {
    try {
      return await o.stillOpen?.(scheduled);
    } catch (err) {
      o.say(
        `whether the night is still open could not be read (${messageOf(err)}); it is not started again`,
      );
      return undefined;
    }
  };
  /** Whether the store owes the night of the date of `t` (`owed`); read errors: not (said). */
  const owedNight = async (t: number): Promise<boolean> => {
    try {
      if (o.owed === undefined)
        return o.over !== undefined && (await o.over(nightOf(t))) === undefined;
      if (await o.owed(nightOf(t))) return true;
      if (backTo === t)
        o.say(`night ${nightOf(t)} was begun meanwhile by another command; it is not begun again`);
      return false;
    } catch (err) {
      o.say(
        `whether night ${nightOf(t)} ran or runs could not be read (${messageOf(err)}); it is not begun late, the next night runs at its time`,
      );
      return false;
    }
  };
  /** When the night of the date due ended, if it has already run here; read errors: not. */
  const overAlready = async (at: number): Promise<string | undefined> => {
    try {
      return await o.over?.(nightOf(at));
    } catch (err) {
      o.say(`whether night ${nightOf(at)} already ran could not be read (${messageOf(err)})`);
      return undefined;
    }
  };
  // When tonight's night is due, read before anything runs: a night resumed first, or one that
  // ran past the next one's time, does not move it to the day after (the next night then starts
  // as soon as the one before has ended, late, rather than not at all). A date whose night has
  // already run here (finished, or closed incomplete) is not run again: the next one is due.
  const startedAt = o.clock.now();
  let due = nextRunAfter(startedAt, o.at);
  // P13, once a night, none skipped: begun after the daily time (a restart after a reboot or an
  // upgrade, at 01:10), the night of that time's date is due then, not tomorrow, when the store
  // owes it (`owed`: none of that date ran or runs, here or elsewhere) and the rule a machine
  // that slept through the time keeps would begin it now (below: on its date in New York, with
  // an hour's room before the next); else the next runs at its own time, as before. It starts
  // late, said so; `nor night` refuses it as it refuses any (the 20 hours after a past night
  // caught up).
  const missed = lastRunAtOrBefore(startedAt, o.at);
  /** The daily time gone back to, owed by the store, if any. */
  let backTo: number | undefined;
  if (
    nightOf(missed) === nightOf(startedAt) &&
    nightRoomMs({ began: startedAt, nextDue: due }) >= MIN_LATE_NIGHT_MS &&
    o.resume?.night !== nightOf(missed) &&
    (await owedNight(missed))
  ) {
    due = missed;
    backTo = missed;
  }
  /** Why the night due at backTo is late: `nor start` was not running at its time. */
  const backWhy = () =>
    `\`nor start\` began at ${at(startedAt)}, after its time, and this store has no night of ${nightOf(due)}`;
  if (o.resume && !o.signal.aborted) {
    o.say(
      // Open in the store: interrupted, or being run now by another command (`nor night` by
      // hand); the night this starts resumes it, or joins it (P9: one lane a site all the same).
      `night ${o.resume.night} is not finished (interrupted, or run by another command now); it resumes now and may run until ` +
        `${formatInZone(o.resume.until, o.at.zone).slice(0, 16)} ${o.at.zone} (its deadline or the next night's start)`,
    );
    if (!(await ran())) return;
  }
  let announced: number | undefined;
  /** The latest date whose night has run: the schedule ran it, or the store showed it had run. */
  let lastRun: string | undefined;
  const noteRun = (night: string) => {
    if (lastRun === undefined || night > lastRun) lastRun = night;
  };
  let waitSaid: string | undefined;
  /** The time due whose date was last looked up in the store (overAlready). */
  let lookedUp: number | undefined;
  while (!o.signal.aborted) {
    const now = o.clock.now();
    // A clock set back (by days, say): the daily time comes round sooner than the time waited
    // for, which is looked for again, not waited out; but never a night the schedule has run
    // already (a clock set back an hour after tonight's night ran, or two days), nor one the
    // store showed had run.
    if (now < due) {
      const sooner = nextRunAfter(now, o.at);
      if (sooner < due && (lastRun === undefined || nightOf(sooner) > lastRun)) due = sooner;
    }
    // The date due has had its night here already (a `nor night` by hand, a `nor start` at an
    // earlier time that day): not said as a night that runs, nor begun again; the next one is.
    // Looked at once a time due, and again when it has come (a night run by hand meanwhile).
    if (lookedUp !== due || now >= due) {
      lookedUp = due;
      const ended = await overAlready(due);
      if (ended !== undefined) {
        noteRun(nightOf(due));
        o.say(
          `night ${nightOf(due)} has already run on this store (it ended ${at(Date.parse(ended))}); it is not run again today`,
        );
        due = nextRunAfter(due, o.at);
        continue;
      }
    }
    if (now < due) {
      if (announced !== due) {
        o.say(
          `the next night runs at ${at(due)} ` +
            `(in ${formatLeft(due - now)}; every day at ${formatDailyAt(o.at)}); Ctrl-C stops`,
        );
        announced = due;
      }
      // An hour at most at a time (a timer past 24.8 days would fire at once, over and over).
      if (!(await nap(Math.min(due - now, MAX_WAIT_MS)))) return; // stopped while waiting
      // Looked at again, not taken for granted: a clock set back (or a timer that ran early)
      // waits on; one that ran late (a machine suspended meanwhile) is a late start, below.
      continue;
    }
    const nextDue = nextRunAfter(now, o.at);
    const late = now - due > ON_TIME_MS;
    // Late: the night before ran past its time, another process still ran one, or the machine
    // slept. The night due then starts now only while it is still that night's date and it is
    // left a night's worth of time; else the next one runs at its own time.
    const room = nightRoomMs({ began: now, nextDue });
    if (late && (nightOf(now) !== nightOf(due) || room < MIN_LATE_NIGHT_MS)) {
      // Said with why: nothing is closed or written off, the next night checks its sources.
      const why =
        nightOf(now) !== nightOf(due)
          ? `its date, ${nightOf(due)}, is over in New York`
          : `it would have ${formatLeftDown(room)} to run, to end ${formatLeft(BEFORE_NEXT_NIGHT_MS)} before the next is due: under the ${formatLeft(MIN_LATE_NIGHT_MS)} a late night needs`;
      o.say(
        `the night due at ${at(due)} was not run (${waitSaid ?? "the machine or the night before held it up"} until ${at(now)}); it is left for the next one (${why}): nothing is written off, the next night checks its sources`,
      );
      due = nextDue;
      waitSaid = undefined;
      continue;
    }
    // Another process's night of an earlier date still running: waited for, not begun beside
    // (nor refused beside it, and so left out).
    const busy = await busyNight();
    if (busy !== undefined) {
      if (waitSaid === undefined)
        o.say(
          `the night due at ${at(due)} waits: night ${busy} is still being run by another process; it starts once that one has ended`,
        );
      waitSaid = `night ${busy} was still being run by another process`;
      if (!(await nap(BUSY_RECHECK_MS))) return; // stopped while waiting
      continue;
    }
    // The night gone back to, looked at again when time has passed since (a night resumed or
    // waited for first): begun meanwhile (by hand, on another machine), it is not begun again.
    if (due === backTo && now !== startedAt && !(await owedNight(due))) {
      due = nextDue;
      waitSaid = undefined;
      continue;
    }
    o.say(
      late
        ? `the night due at ${at(due)} starts now, late (${waitSaid ?? (due === backTo ? backWhy() : "the machine or the night before held it up")})`
        : "the night starts now",
    );
    waitSaid = undefined;
    noteRun(nightOf(due));
    if (!(await ran({ began: now, nextDue }))) return;
    due = nextDue;
  }
}

/** A night begun this long after its time is begun on time (the wake-up's own lateness). */
const ON_TIME_MS = 60_000;
/**
 * The least room (nightRoomMs) a night begun late is left; else it is left out, said, for the
 * next night to check its sources. Far above the 1m floor of a night's deadline
 * (MIN_NIGHT_DEADLINE_MS), which a night begun on time (23 h or more to the next) is left too.
 */
export const MIN_LATE_NIGHT_MS = 60 * 60_000;
/** The longest the schedule sleeps before it looks at the clock again. */
const MAX_WAIT_MS = 60 * 60_000;
/** How often a night waiting for another process's night looks again. */
const BUSY_RECHECK_MS = 60_000;

function userAgentOf(opts: StartOptions): { userAgent?: string } {
  const ua = netOptions(opts).userAgent;
  return ua === undefined ? {} : { userAgent: ua };
}

/** A night `nor start` begins at its daily time: when it began, and when the next is due. */
export interface ScheduledRun {
  began: number;
  nextDue: number;
}

/**
 * How long before the next night is due a night begun by the schedule must reach its deadline:
 * time for its last answers and its end (a night still running when the next is due makes that
 * one start late).
 */
export const BEFORE_NEXT_NIGHT_MS = 5 * 60_000;

/**
 * A night's room said in whole seconds, down (formatLeft rounds): 59 min 59.6 s is said under
 * the hour, 59.9 s under the minute, never as the limit it is under.
 */
function formatLeftDown(ms: number): string {
  return formatLeft(Math.max(0, Math.floor(ms / 1000) * 1000));
}

/** The time a night the schedule begins may run: until BEFORE_NEXT_NIGHT_MS before the next. */
export function nightRoomMs(scheduled: ScheduledRun): number {
  return scheduled.nextDue - scheduled.began - BEFORE_NEXT_NIGHT_MS;
}

/**
 * The `nor night` command line for a night, the same options passed on. One the schedule begins
 * (`scheduled`) is marked so (an unfinished night of an earlier date is over, not resumed in its
 * place), and its deadline ends before the next night is due: a night of `--deadline 24h` (or
 * of 23 h across the spring change of the clocks) would otherwise still run when the next is
 * due. A resumed night keeps its own deadline (`nor night`).
 */
export function nightArgs(
  opts: StartOptions,
  files: string[],
  dataDir: string,
  scheduled?: ScheduledRun,
  /** The directory's address: the night's lines name `nor start` and it (not `nor serve`). */
  servedAt?: string,
): string[] {
  // A catalog file mistyped while `nor start` runs does not cost the night: it runs the sources
  // imported last, and says why (nor status, the console).
  const args = ["night", "--catalog", ...files, "--data", dataDir, "--or-stored-catalog"];
  if (servedAt !== undefined) args.push("--served-at", servedAt);
  if (scheduled !== undefined) {
    args.push("--scheduled", new Date(scheduled.began).toISOString());
    const asked =
      opts.deadline === undefined ? DEFAULT_NIGHT_DEADLINE_MS : parseDuration(opts.deadline);
    const room = nightRoomMs(scheduled);
    // Never a deadline `nor night` refuses (under its 1m floor: exit 2, a confusing line in the
    // operator's log): the schedule begins no night with so little room (MIN_LATE_NIGHT_MS), so
    // one asked for here is a bug, said as one.
    if (room < MIN_NIGHT_DEADLINE_MS)
      throw new NorError(
        "E_INTERNAL",
        `a night begun at ${new Date(scheduled.began).toISOString()} has ${formatLeftDown(room)} before the next night is due (less ${formatLeft(BEFORE_NEXT_NIGHT_MS)}), under the 1m floor of a night's deadline; the schedule should have left it for the next night`,
      );
    if (asked > room) args.push("--deadline", `${Math.floor(room / 1000)}s`);
    else if (opts.deadline !== undefined) args.push("--deadline", opts.deadline);
  } else if (opts.deadline !== undefined) args.push("--deadline", opts.deadline);
  if (opts.allowRetire) args.push("--allow-retire");
  if (opts.userAgent !== undefined) args.push("--user-agent", opts.userAgent);
  if (opts.allowPrivateAddresses) args.push("--allow-private-addresses");
  for (const r of opts.resolve ?? []) args.push("--resolve", r);
  if (opts.caFile !== undefined) args.push("--ca-file", opts.caFile);
  if (opts.gapMs !== undefined) args.push("--gap-ms", opts.gapMs);
  return args;
}

/** How a night's process ended: its exit code, or the signal that ended it. */
export type NightExit = number | { code: number | null; signal: NodeJS.Signals | null };

/** The signals a crash ends a process with (the OOM killer's SIGKILL among them). */
const CRASH_SIGNALS: ReadonlySet<string> = new Set([
  "SIGKILL",
  "SIGSEGV",
  "SIGABRT",
  "SIGBUS",
  "SIGILL",
  "SIGFPE",
]);

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Times a night whose process a signal ended is started again, and the pause before each. */
const NIGHT_RESTARTS = 3;
const RESTART_PAUSE_MS = 10_000;

/** `node bin/nor.js night …` as a child: its lines go to this terminal; stopped on abort. */
async function spawnNight(args: string[], signal: AbortSignal): Promise<NightExit> {
  const child = startNightProcess(BIN, args, ["ignore", "inherit", "inherit"]);
  const ended = nightProcessEnd(child);
  const onAbort = () => child.kill("SIGTERM");
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    const end = await ended;
    if (end.error) throw end.error;
    return end.signal !== null ? { code: end.code, signal: end.signal } : (end.code ?? 0);
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

/** How long the requests under way get to finish when a damaged store stops it (as `nor serve`). */
const DRAIN_MS = 5_000;

/** How the server answers a request (hono's `app.fetch`, or startingUp until it is made). */
type Fetch = Parameters<typeof serve>[0]["fetch"];

/** A request before the directory can be served: come back in a moment. */
function startingUp(): Response {
  return new Response("nor start is starting: the directory is served in a moment\n", {
    status: 503,
    headers: { "content-type": "text/plain; charset=utf-8", "retry-after": "1" },
  });
}

function listen(fetch: Fetch, host: string, port: number): Promise<ReturnType<typeof serve>> {
  return new Promise((ok, fail) => {
    const server = serve({ fetch, hostname: host, port }, () => ok(server));
    answerClientErrors(server);
    server.once("error", (err: NodeJS.ErrnoException) => fail(listenError(err, host, port)));
  });
}

function urlOf(info: AddressInfo): string {
  const host = info.address.includes(":") ? `[${info.address}]` : info.address;
  return `http://${host}:${info.port}/`;
}

/**
 * Whether the store at `loc` holds sources this build imported (catalog-sources.ts
 * storedSourcesRunnable), looked at read-only: a store not there, or not made (PostgreSQL without
 * its tables), or one with migrations pending (an older store: another build imported it), is
 * not; nothing is made or changed either way.
 */
async function storedCatalogRunnable(loc: ReturnType<typeof storeLocationFromOptions>) {
  let store: Awaited<ReturnType<typeof openStore>>;
  try {
    store = await openStore(loc, { create: false, readsOnly: true });
  } catch {
    return false;
  }
  try {
    return await storedSourcesRunnable(store.db, importerVersion());
  } finally {
    await store.close();
  }
}
