/**
 * One night at a time on a data directory (P11, P16): every `nor night` process writes here
 * which night it runs, and one asked to run another night while a live process runs a different
 * one is refused. Processes of the same night share it (workers, a second command: lanes and
 * the journal keep them apart), so they are let in.
 *
 * Each process has a file of its own in `night-runners/` (named by its holder id), written while
 * the opening lock is held (so a file another process reads is never half written) and removed
 * when it ends, or is stopped by a signal. A file whose process is gone (`kill -9`) is stale and
 * removed by the next process that looks (holder.ts: the pid on this host, and the process's
 * start and boot as the mark names them, so a pid another program got since is no longer the
 * night's; past the night's own time, whatever the pid). On PostgreSQL every
 * machine has a data directory of its own: the marks see the processes of one data directory.
 */
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { NorError } from "../errors.js";
import type { IdSource } from "../ids.js";
import { NIGHT_SPAN_MS } from "../policy/night-date.js";
import { holderDead, localPid, madeHere, newHolderId, STALE_MS } from "../store/holder.js";
import { holds, identityOf, pidNamespace } from "./night-lock.js";

export const RUNNERS_DIR = "night-runners";

interface Runner {
  night: string;
  holder: string;
  /** When the night's time is over: past it (and a few minutes), stale whatever its pid. */
  until: number;
  /**
   * The process as a lock names it (night-lock.ts identityOf: pid, boot id, start time): a
   * mark whose pid the system has since given to another program, or from an earlier boot, is
   * stale at once, not only when the night's time is over. Absent in marks written before it.
   */
  process?: string;
  /**
   * The data directory its process opened, as it saw it (its real path). Said in a refusal
   * only: a mark is honoured wherever it is found, since no check made from here can tell a
   * copy of a directory from another view of the same one (an overlay, a second mount).
   * Absent in marks written before it.
   */
  dir?: string;
}

/** `dataDir`'s real path (as the file system spells it), or undefined when it cannot be had. */
function realDir(dataDir: string): string | undefined {
  try {
    return realpathSync.native(dataDir);
  } catch {
    return undefined;
  }
}

/**
 * The hint of `markedElsewhere` for one mark's directory (`there`), or "" when it is this one's
 * (`here`: `dataDir`'s real path).
 */
function elsewhereText(
  dataDir: string,
  here: string | undefined,
  there: string | undefined,
): string {
  return there === undefined || here === undefined || there === here
    ? ""
    : ` (that process opened it as ${there}: if ${dataDir} is a copy of that directory made while its night ran, the night's mark came with the copy, and it is honoured until that night is over, as no check can tell a copy from another view of the same directory; copy a data directory while no night runs there)`;
}

/**
 * What a refusal adds when the night's process opened the data directory under another path:
 * this one may be a copy made while that night ran (`cp -a`), and the mark came with it. It is
 * honoured all the same (politeness never fails open): the copy is refused until that night is
 * over.
 */
export function markedElsewhere(dataDir: string, now: number): string {
  let dirs: (string | undefined)[];
  try {
    dirs = liveMarks(join(dataDir, RUNNERS_DIR), now, false).map((r) => r.dir);
  } catch {
    return "";
  }
  const here = realDir(dataDir);
  for (const d of dirs) {
    const text = typeof d === "string" ? elsewhereText(dataDir, here, d) : "";
    if (text !== "") return text;
  }
  return "";
}

/**
 * Whether a mark's process is gone. A mark of this host that names its process is judged as a
 * lock is (night-lock.ts `holds`: alive, in this boot, started when it says; one in another pid
 * namespace, a container sharing the directory and the host name, cannot be looked at from
 * here and is held), up to STALE_MS past the night's time; any other by its holder (holder.ts).
 */
function markDead(r: Runner, now: number): boolean {
  const ends = Number(r.until);
  const until = Number.isFinite(ends) ? ends : now;
  const pid = localPid(r.holder);
  if (typeof r.process === "string" && pid !== undefined) {
    if (until + STALE_MS <= now) return true;
    // This process's pid in this pid namespace: its own mark, or a dead run's that had the
    // same pid (a container restarted), told apart by the holders this process made.
    const ns = r.process.split("\n")[3] ?? "";
    if (pid === process.pid && (ns === "" || ns === pidNamespace())) return !madeHere(r.holder);
    return !holds(r.process, pid);
  }
  return holderDead({ holder: r.holder, until }, now);
}

/**
 * The marks' directory this user may not write in (or read), most often made by another user (a
 * night once run as root, then as the service user): configuration, exit 2, naming the
 * directory, as an archive directory nor may not write in is (warc-archive.ts), before the night
 * is opened or anything asked; not a bare EACCES with exit 1, which the units restart on. Any
 * other error is passed on as it is.
 */
function marksNotWritable(dir: string, err: unknown): unknown {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code !== "EACCES" && code !== "EPERM" && code !== "EROFS") return err;
  const uid = process.getuid ? String(process.getuid()) : "?";
  return new NorError(
    "E_CONFIG",
    `the directory ${dir} is not writable (${code}): nor night keeps there a mark of each process running a night (one night at a time on a data directory); give the user running nor (uid ${uid}) write access to it (made by a night run as another user, root say: \`chown -R\` it to the user nor runs as), or run nor as its owner`,
    { cause: err },
  );
}

/** The signals that stop a night: the mark goes with it, then the signal does what it did. */
const STOPS = ["SIGTERM", "SIGINT", "SIGHUP"] as const;

/**
 * How long a stopped night has to leave its store in order (the rows of requests waiting to
 * leave written as not sent, requests on the wire cut off, the store closed) before the
 * signal ends the process anyway.
 */
export const STOP_GRACE_MS = 10_000;

/** This process's mark, and whether another live process of the same night was found. */
export interface NightRunner {
  /** Takes the mark away (and the signal handlers with it). */
  release(): void;
  /** Another live process runs this night here: it is under way, whatever the calendar says. */
  joined: boolean;
}

/**
 * The marks in `dir` whose processes are alive. `tidy`: a mark whose process is gone is
 * removed, and so is one that cannot be read (written under the opening lock, which the caller
 * holds: one cut short was cut short by its writer's death); otherwise they are only passed over.
 */
function liveMarks(dir: string, now: number, tidy: boolean): Runner[] {
  const live: Runner[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    let r: Runner;
    try {
      r = JSON.parse(readFileSync(path, "utf8")) as Runner;
    } catch {
      if (tidy) removeMark(path);
      continue;
    }
    if (typeof r.holder !== "string" || typeof r.night !== "string") continue;
    if (markDead(r, now)) {
      if (tidy) removeMark(path);
      continue;
    }
    live.push(r);
  }
  return live;
}

/**
 * Removes a stale mark: gone already is as good. Unlinked, not `rmSync`: one its directory keeps
 * (EACCES, EPERM) is said with that code, not as rm's fallback's ENOTDIR.
 */
function removeMark(path: string): void {
  try {
    unlinkSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
}

/** A live process running a night on a data directory, as its mark says. */
export interface RunningNight {
  night: string;
  /** `host:pid:random` (holder.ts). */
  holder: string;
}

/**
 * The live processes running a night on `dataDir` (one night at a time: all of the same one),
 * read from their marks without changing any: what a catalog import looks at before it changes
 * the sources such a night runs (catalog-beside-night.ts). None when there are no marks there.
 */
export function nightsRunning(dataDir: string, now: number): RunningNight[] {
  let marks: Runner[];
  try {
    marks = liveMarks(join(dataDir, RUNNERS_DIR), now, false);
  } catch (err) {
    // No marks made here yet, or a file in their way (no night can run here then).
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return [];
    throw err;
  }
  return marks.map((r) => ({ night: r.night, holder: r.holder }));
}

/**
 * Registers this process as running `night` in `dataDir`, after removing stale files; throws a
 * NorError (exit 1) naming the night another live process runs there.
 */
export function registerNightRunner(
  dataDir: string,
  night: string,
  now: number,
  /** When the night's time is over (its deadline): the mark is stale after it. */
  until: number,
  ids: IdSource,
  /**
   * Runs first when the process is stopped by a signal (to pass it on to the night's workers).
   * A promise: the caller stops in order and says when it is done (at most STOP_GRACE_MS);
   * then the mark goes and the signal ends the process.
   */
  onSignal: (signal: NodeJS.Signals) => undefined | Promise<void> = () => undefined,
): NightRunner {
  const dir = join(dataDir, RUNNERS_DIR);
  // The data directory is there (the store is open): only this one is made, never `mkdir -p`.
  try {
    mkdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw marksNotWritable(dir, err);
    if (!statSync(dir).isDirectory())
      throw new NorError(
        "E_CONFIG",
        `${dir} is not a directory: nor night keeps the marks of its running processes in a directory there; move what is in the way`,
      );
  }
  let joined = false;
  const here = realDir(dataDir);
  let marks: Runner[];
  try {
    marks = liveMarks(dir, now, true);
  } catch (err) {
    throw marksNotWritable(dir, err);
  }
  for (const r of marks) {
    const elsewhere = elsewhereText(dataDir, here, typeof r.dir === "string" ? r.dir : undefined);
    if (r.night !== night) {
      throw new NorError(
        "E_STORE",
        `night ${r.night} is being run on ${dataDir} by another process (${r.holder})${elsewhere}; not starting night ${night} beside it: one night at a time (it would ask every site twice); start it once that one is over`,
      );
    }
    // The same night, joined only through the directory its process opened: a copy's journal
    // is not that night's, and its requests would not wait on that process's (P9, P10, P11).
    if (elsewhere !== "") {
      throw new NorError(
        "E_STORE",
        `night ${r.night} is being run by another process (${r.holder})${elsewhere}; not joining it from ${dataDir}: join it with --data naming the directory that process opened, or start this one once that night is over`,
      );
    }
    joined = true;
  }
  const holder = newHolderId(() => ids.uuid().slice(0, 8));
  const path = join(dir, `${holder.replace(/[^\w.-]/g, "_")}.json`);
  const me: Runner = {
    night,
    holder,
    until: Math.min(until, now + NIGHT_SPAN_MS),
    process: identityOf(process.pid),
  };
  if (here !== undefined) me.dir = here;
  try {
    writeFileSync(path, `${JSON.stringify(me)}\n`);
  } catch (err) {
    throw marksNotWritable(dir, err);
  }
  const release = () => {
    rmSync(path, { force: true });
    for (const s of STOPS) process.off(s, onStop);
  };
  let stopping = false;
  const end = (signal: NodeJS.Signals) => {
    release();
    // As if never caught: the process ends by the signal, unless someone else listens for it.
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };
  const onStop = (signal: NodeJS.Signals) => {
    // Signals after the first change nothing: the stop is under way, bounded by the grace
    // (systemd signals every process of the unit, and `nor start` passes it on as well).
    if (stopping) return;
    stopping = true;
    let inOrder: Promise<void> | undefined;
    try {
      inOrder = onSignal(signal);
    } catch {
      inOrder = undefined;
    }
    if (inOrder === undefined) return end(signal);
    const timer = setTimeout(() => end(signal), STOP_GRACE_MS);
    void inOrder
      .catch(() => {})
      .finally(() => {
        clearTimeout(timer);
        end(signal);
      });
  };
  for (const s of STOPS) process.on(s, onStop);
  return { release, joined };
}
