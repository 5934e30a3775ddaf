/**
 * `nor demo` (`npm run demo`): the whole system, offline, in a few minutes. It starts the
 * demo's invented Ohio-like government sites on loopback (src/demo/sites.ts), runs two
 * nights against them with the real fetcher at the real pace (2 s between requests to a
 * site, P10; --gap-ms shortens it for tests, honoured only because the sites are on loopback),
 * then serves the directory and its console and says what to click. SIGINT, SIGTERM or SIGHUP
 * stops it at any time, the nights included: in order, its temporary directory removed; a
 * second signal stops it at once (src/cli/stop-signals.ts).
 */
import { randomBytes } from "node:crypto";
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  rmdirSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { serve } from "@hono/node-server";
import type { Command } from "commander";
import { systemClock } from "../../clock.js";
import { startDemoSites } from "../../demo/sites.js";
import { ConfigError, NorError, UsageError } from "../../errors.js";
import { randomIds } from "../../ids.js";
import { runNightWithStore } from "../../night/compose.js";
import { addDays, nightOf } from "../../policy/night-date.js";
import { siteOf } from "../../policy/site.js";
import { loadCatalogWithFiles } from "../../sources/catalog/load.js";
import type { Catalog } from "../../sources/catalog/types.js";
import { importCatalog } from "../../sources/catalog-import.js";
import { nightTotals } from "../../store/admin.js";
import { sourcesInUse } from "../../store/catalog-sources.js";
import { ensureDataDir } from "../../store/data-dir.js";
import { openStore, type Store } from "../../store/db.js";
import { createApp } from "../../web/app.js";
import { answerClientErrors } from "../../web/client-errors.js";
import { hashPassword } from "../../web/console/password.js";
import { storePasswordHash } from "../../web/console/session-store.js";
import { importedOrStop } from "../import-outcome.js";
import { stderr, stdout } from "../io.js";
import { listenError } from "../listen-error.js";
import { wholeNumber } from "../net-options.js";
import { progressLine, startLine, summaryLines } from "../night-report.js";
import { shellCommand } from "../shell-words.js";
import { onStopSignals } from "../stop-signals.js";
import { saying } from "../store-upgrade.js";

interface DemoOptions {
  data?: string;
  host: string;
  port: string;
  headless?: boolean;
  gapMs?: string;
}

/** Each demo night's time limit: far more than two nights of nine small sites need. */
const DEMO_DEADLINE_MS = 10 * 60_000;

export function register(program: Command): void {
  program
    .command("demo")
    .description(
      "See the whole system offline: demo sites on loopback, two nights at the real pace, then the directory",
    )
    .option(
      "--data <dir>",
      "an empty or new directory for the demo's store (default: a new temporary one)",
    )
    .option("--host <address>", "address to serve the directory on", "127.0.0.1")
    .option("--port <n>", "port to serve the directory on; 0 picks a free one", "8080")
    .option(
      "--headless",
      "after the nights, check the served directory and exit (for tests and CI)",
    )
    .option(
      "--gap-ms <n>",
      "gap between requests to one demo site (default 2000; shorter for tests: the demo's sites are on loopback)",
    )
    .action(async (opts: DemoOptions) => {
      await runDemo(opts);
    });
}

const say = (line = "") => void stdout().write(`${line}\n`);

/**
 * How long a stopped demo has to stop in order (the night under way stopped, the server, the
 * store and the sites closed) before it removes its temporary directory and ends anyway.
 */
const STOP_GRACE_MS = 10_000;

/** Thrown inside the demo once a signal stopped it: it unwinds through every close. */
class DemoStopped extends Error {}

async function runDemo(opts: DemoOptions): Promise<void> {
  const port = Number(opts.port);
  if (!/^\d+$/.test(opts.port) || port > 65_535)
    throw new UsageError(`--port must be a number from 0 to 65535, not "${opts.port}"`);
  const gapMs = opts.gapMs === undefined ? undefined : wholeNumber(opts.gapMs, "--gap-ms", 0);
  // A port in use (or an address this machine does not have) is said before anything is made:
  // a --data directory left with a store and a catalog in it could not be given again.
  await canListen(opts.host, port);
  // The directories a --data makes (it and any parent not there yet): a demo that fails takes
  // them away again, with what it made in them, and nothing else (unmake, below).
  const madeDirs = opts.data ? missingDirs(resolve(opts.data)) : [];
  let dataDir: string;
  try {
    dataDir = demoDataDir(opts.data);
  } catch (err) {
    removeEmptyDirs(madeDirs);
    throw err;
  }
  const temporary = opts.data === undefined;
  // A temporary directory is the demo's own: removed when it ends, however it ends (after
  // the store and the sites are closed). A directory given with --data is the person's.
  const remove = () => {
    if (temporary) rmSync(dataDir, { recursive: true, force: true });
  };
  // From here on a stop (Ctrl-C, a terminal closed, `kill`) stops the demo in order, whatever
  // it is doing: the night under way stops (run-night.ts `stop`), then everything closes as on
  // any other end and the directory is removed. The stop is bounded: past the grace the
  // directory is removed and the process ends anyway. A second signal (not the echo of the
  // first that npm and a terminal send: stop-signals.ts) stops it at once, as `nor start`: the
  // temporary directory removed, said, the process ended by that signal (a shell says 130
  // for Ctrl-C).
  const stop = new AbortController();
  let grace: NodeJS.Timeout | undefined;
  const inOrder = (signal: NodeJS.Signals) => {
    say(`\n${signal}: stopping the demo${temporary ? ` and removing ${dataDir}` : ""}.`);
    stop.abort(new DemoStopped(`the demo was stopped (${signal})`));
    grace = setTimeout(() => {
      stderr().write(
        `nor demo: not stopped in order within ${STOP_GRACE_MS / 1000} s; ending anyway${temporary ? ` (${dataDir} removed)` : ""}\n`,
      );
      remove();
      process.exit(1);
    }, STOP_GRACE_MS);
  };
  const atOnce = () => {
    clearTimeout(grace);
    remove();
    return temporary ? `${dataDir} removed` : undefined;
  };
  // Should the process end some other way (an error nothing catches, the exit above), the
  // temporary directory still goes with it.
  const onExit = () => remove();
  const offSignals = onStopSignals({ command: "nor demo", inOrder, atOnce });
  process.on("exit", onExit);
  try {
    await demoIn(dataDir, opts, port, gapMs, stop.signal);
  } catch (err) {
    // Stopped by a person: an end like being stopped while serving (exit 0), said above.
    if (!stop.signal.aborted) {
      // Failed (a store it could not write, a port taken since it was looked at): a --data
      // directory is left as it was found, so the same --data can be given again.
      if (!temporary) unmake(dataDir, madeDirs);
      throw err;
    }
  } finally {
    try {
      remove();
    } finally {
      clearTimeout(grace);
      offSignals();
      process.off("exit", onExit);
    }
  }
  if (stop.signal.aborted) say(`Stopped${temporary ? `; ${dataDir} is removed` : ""}.`);
}

/** Goes on unless the demo was stopped meanwhile. */
function goOn(stop: AbortSignal): void {
  if (stop.aborted) throw stop.reason;
}

async function demoIn(
  dataDir: string,
  opts: DemoOptions,
  port: number,
  gapMs: number | undefined,
  stop: AbortSignal,
): Promise<void> {
  const clock = systemClock;
  const tonight = nightOf(clock.now());
  const nights = [addDays(tonight, -1), tonight];
  const today = Date.parse(`${tonight}T00:00:00Z`);

  say("New on Record demo: everything below runs on this machine, nothing goes to the internet.");
  const sites = await startDemoSites(today);
  try {
    goOn(stop);
    say(`\n${sites.sites.length} invented government sites are up on loopback:`);
    for (const s of sites.sites) {
      say(`  ${s.source.government.name}: ${s.url}`);
      say(`      ${s.source.shows}`);
    }
    const catalogFile = join(dataDir, DEMO_CATALOG);
    writeFileSync(catalogFile, sites.catalogYaml());
    const { catalog, origins } = loadCatalogWithFiles([catalogFile]);
    const store = await openStore({ kind: "sqlite", dir: dataDir }, saying());
    try {
      goOn(stop);
      // A fresh directory: nothing to retire, so this is always "imported".
      importedOrStop(await importCatalog(store.db, catalog, origins, clock.now()));
      goOn(stop);
      say(`\nThe catalog (${catalogFile}) is in the store at ${dataDir}.`);
      // Served from the start (a busy port is said before the nights, not after), so the
      // directory can be watched filling in.
      const served = await listen(store, opts.host, port);
      try {
        goOn(stop);
        say(`The directory is already at ${served.url} and fills in as the nights run.`);
        // Said before the nights: the demo can be stopped (and its data removed) at any time.
        say(stopLine(opts, dataDir));
        for (const [i, night] of nights.entries()) {
          sites.night = i + 1;
          say(
            i === 0
              ? `\nNight 1 of 2 ("${night}"): every source read for the first time, at most one request at a time per site, ${gapMs === undefined ? "2 s" : `${gapMs} ms (--gap-ms)`} apart.`
              : `\nNight 2 of 2 ("${night}"): the same sources again; the Changeville page has two new records.`,
          );
          await demoNight(store, catalog, night, dataDir, gapMs, stop, served.url);
          goOn(stop);
        }
        const password = randomBytes(12).toString("base64url");
        await storePasswordHash(store.db, await hashPassword(password), clock.now());
        goOn(stop);
        await showAndWait(served.url, opts, dataDir, password, sites.sites.length, stop);
      } finally {
        await served.close();
      }
    } finally {
      await store.close();
    }
  } finally {
    await sites.close();
  }
}

/** The demo's catalog file in its data directory: made first, alone, to claim the directory. */
const DEMO_CATALOG = "demo-catalog.yaml";

/** What a demo makes in its data directory: its catalog, the store and its files, the archive. */
const DEMO_MADE = [DEMO_CATALOG, "nor.db", "nor.db-wal", "nor.db-shm", "nor.db-journal", "archive"];

/** `dir` and each parent of it that is not there yet, nearest first. */
function missingDirs(dir: string): string[] {
  const missing: string[] = [];
  for (let p = dir; !existsSync(p) && dirname(p) !== p; p = dirname(p)) missing.push(p);
  return missing;
}

/** Removes each of `dirs` (nearest first) that is empty; one that is not is left as it is. */
function removeEmptyDirs(dirs: readonly string[]): void {
  for (const d of dirs) {
    try {
      rmdirSync(d);
    } catch {
      // Not empty (something not the demo's is in it), or gone already.
    }
  }
}

/**
 * Takes away what a failed demo made in the --data directory it claimed (empty or new when it
 * began): its catalog, its store and its archive, then the directories it made, if nothing
 * else is in them. A file it did not make is never removed (the directory then stays).
 */
function unmake(dataDir: string, madeDirs: readonly string[]): void {
  for (const name of DEMO_MADE) rmSync(join(dataDir, name), { recursive: true, force: true });
  removeEmptyDirs(madeDirs);
}

/**
 * A new temporary directory, or the one given if it is new or empty. Checked before anything
 * starts (no site, no line of the banner): a directory the demo could not write its catalog and
 * store in is refused here (exit 2), as every other command refuses it. A directory given is
 * claimed at once: the demo's catalog file is made in it with O_EXCL, so of two demos started
 * at the same moment on one empty directory only one goes ahead (the other is refused as for a
 * directory not empty), and it is then looked at again, so nothing else is in it either.
 */
export function demoDataDir(data: string | undefined): string {
  if (data === undefined) return mkdtempSync(join(tmpdir(), "nor-demo-"));
  // resolve("") is the current directory: an empty value is a slip, not a choice of it.
  if (data === "") throw new UsageError("--data needs a directory, not an empty value");
  const dir = resolve(data);
  if (existsSync(dir) && !statSync(dir).isDirectory())
    throw new ConfigError(`--data ${dir} is a file: the demo needs a new or empty directory`);
  let names: string[] = [];
  try {
    if (existsSync(dir)) names = readdirSync(dir);
  } catch (err) {
    // A directory this user may not list (EACCES).
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    throw new ConfigError(
      `--data ${dir}: cannot read it (${code}): the demo needs a new or empty directory this user may read and write; choose another --data`,
      { cause: err },
    );
  }
  const notEmpty = (cause?: unknown) =>
    new ConfigError(
      `--data ${dir} is not empty: the demo needs a new or empty directory`,
      cause === undefined ? undefined : { cause },
    );
  if (names.length > 0) throw notEmpty();
  // Made one missing directory at a time and writable by this user, or said why not in the
  // words of `nor night` and `nor catalog import` (a part of the path that is a file, a
  // directory this user may not write in: data-dir.ts).
  ensureDataDir(dir);
  // The claim: one process only makes the file (O_EXCL). Another demo that looked at the
  // directory in the same moment, and found it empty too, finds the file here and stops.
  const claim = join(dir, DEMO_CATALOG);
  try {
    closeSync(openSync(claim, "wx"));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") throw notEmpty(err);
    throw err;
  }
  // Anything else made in it since it was looked at (another program): let go, refused alike.
  if (readdirSync(dir).some((name) => name !== DEMO_CATALOG)) {
    unlinkSync(claim);
    throw notEmpty();
  }
  return dir;
}

async function demoNight(
  store: Store,
  catalog: Catalog,
  night: string,
  dataDir: string,
  gapMs: number | undefined,
  stop: AbortSignal,
  /** The directory's address: served already, so the night's lines give it, not `nor serve`. */
  directory: string,
) {
  const tty = stdout().isTTY === true;
  const startedAt = systemClock.now();
  const sites = new Set(catalog.sources.map((s) => siteOf(s.url))).size;
  say(
    startLine(
      {
        night,
        resumed: false,
        deadlineAt: startedAt + DEMO_DEADLINE_MS,
        sources: catalog.sources.length,
        sites,
      },
      startedAt,
      "nor demo",
    ),
  );
  // The night runs the sources the store holds: the demo's catalog, imported just before.
  // Stopped, it stops in order and says so (`stopped`), or its stop comes up as an error
  // (a request it cut off): either way the demo then unwinds through its closes.
  const summary = await runNightWithStore(store, (await sourcesInUse(store.db)) ?? [], {
    night,
    deadlineMs: DEMO_DEADLINE_MS,
    concurrency: 16,
    dataDir,
    clock: systemClock,
    ids: randomIds,
    // Loopback sites: the gap between requests to a site is the real 2 s (P10); a shorter
    // --gap-ms is honoured only because they are on loopback (src/net/options.ts).
    allowPrivateAddresses: true,
    ...(gapMs !== undefined ? { gapMs } : {}),
    onProgress: (p) => {
      if (tty) stdout().write(`\r${progressLine(p, systemClock.now())}\x1b[K`);
      else
        say(
          `  ${p.done}/${p.total} ${p.last.sourceId}: ${p.last.outcome.kind}${p.last.outcome.reason ? ` (${p.last.outcome.reason})` : ""}`,
        );
    },
    stop,
  });
  if (tty) say();
  goOn(stop);
  const { requests, flagsRaised } = await nightTotals(store.db, night);
  const end = { ...summary, requests, flagsRaised, startedAt, endedAt: systemClock.now() };
  for (const line of summaryLines(end, { by: "nor demo", directory })) say(line);
}

interface Served {
  url: string;
  close(): Promise<void>;
}

/** Listens on `host`:`port` and lets it go at once; throws listenError's error if it cannot. */
async function canListen(host: string, port: number): Promise<void> {
  await new Promise<void>((ok, fail) => {
    const probe = createServer();
    probe.once("error", (err: NodeJS.ErrnoException) => fail(listenError(err, host, port)));
    probe.listen(port, host, () => probe.close(() => ok()));
  });
}

async function listen(store: Store, host: string, port: number): Promise<Served> {
  // Feeds, the calendar and the sitemap link to where the demo serves (known once listening).
  let listening = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  const app = createApp({ db: store.db, now: systemClock.now, origin: () => listening });
  const server = await new Promise<ReturnType<typeof serve>>((ok, fail) => {
    const s = serve({ fetch: app.fetch, hostname: host, port }, () => ok(s));
    answerClientErrors(s);
    s.once("error", (err: NodeJS.ErrnoException) => fail(listenError(err, host, port)));
  });
  const info = server.address() as AddressInfo;
  const url = `http://${info.address.includes(":") ? `[${info.address}]` : info.address}:${info.port}/`;
  listening = url.replace(/\/$/, "");
  return {
    url,
    close: () =>
      new Promise<void>((done) => {
        if ("closeAllConnections" in server) server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

async function showAndWait(
  url: string,
  opts: DemoOptions,
  dataDir: string,
  password: string,
  siteCount: number,
  stop: AbortSignal,
): Promise<void> {
  say(`\nThe directory is at ${url} — what to click:`);
  say(`  ${url}                      the directory: governments and sources by county`);
  say(`  ${url}new                   new on record since yesterday (also /new.atom, /new.json)`);
  say(`  ${url}sources/changeville-council-minutes   a source with new records on night 2`);
  say(`  ${url}sources/eastfield-township-minutes    a site that said no, shown as such (P23)`);
  say(`  ${url}sources/closedport-city-permits       robots.txt said no: only robots.txt was read`);
  say(`  ${url}site-owners           the page for site owners, its numbers from the checker's own`);
  say(`  ${url}console               the operator's console; password: ${password}`);
  // Commands for its data directory only while it is there to read: a headless demo without
  // --data removes it at once.
  if (!opts.headless || opts.data !== undefined) {
    say("And in another terminal:");
    // Quoted where the shell needs it: a --data with a space or a quote pastes as the same path.
    say(`  ${shellCommand("node", "bin/nor.js", "status", "--data", dataDir)}`);
    say(
      `  ${shellCommand("node", "bin/nor.js", "log", "--data", dataDir, "--source", "eastfield-township-minutes")}`,
    );
  }
  if (opts.headless) {
    await checkServed(url, siteCount, stop);
    say(
      `\nheadless: the directory answered as expected; stopping${opts.data === undefined ? ` (and removing ${dataDir}; give --data DIR to keep it)` : ""}.`,
    );
    return;
  }
  say(`\n${stopLine(opts, dataDir)}`);
  // Until a stop (runDemo's handlers): then the demo closes everything and ends.
  await new Promise<void>((done) => {
    if (stop.aborted) done();
    else stop.addEventListener("abort", () => done(), { once: true });
  });
}

function stopLine(opts: DemoOptions, dataDir: string): string {
  return opts.data === undefined
    ? `Ctrl-C stops the demo and removes ${dataDir} (give --data DIR to keep a demo's data).`
    : "Ctrl-C stops the demo.";
}

/** The served directory shows what the two nights found (the headless run's own check). */
async function checkServed(url: string, siteCount: number, stop: AbortSignal): Promise<void> {
  const expect = async (path: string, text: string) => {
    const res = await fetch(new URL(path, url), { signal: stop });
    const body = await res.text();
    if (res.status !== 200 || !body.includes(text))
      throw new NorError(
        "E_INTERNAL",
        `demo check: ${path} answered ${res.status} without "${text}"`,
      );
    say(`  checked ${path}: ${res.status}, shows "${text}"`);
  };
  await expect("/governments", "Harmon County");
  await expect("/new", "Finance Committee minutes");
  await expect("/sources/changeville-council-minutes", "Council minutes (special session)");
  await expect("/sources/eastfield-township-minutes", "the site said no");
  await expect("/sources/closedport-city-permits", "disallowed by robots.txt");
  await expect("/site-owners", "public-records-check");
  // A feed's links lead back to this server, not to http://localhost.
  await expect("/new.atom", `href="${new URL("/new.atom", url).href}"`);
  const api = (await (
    await fetch(new URL("/api/governments", url), { signal: stop })
  ).json()) as unknown;
  const n = JSON.stringify(api).match(/"id":/g)?.length ?? 0;
  if (n < siteCount - 1)
    throw new NorError("E_INTERNAL", `demo check: /api/governments lists too few entries (${n})`);
}
