/**
 * One `nor night` at a time per store directory. Two at once would each check every source
 * (a source checked twice a night), and each would keep its own site gates, so two requests
 * could be in flight to one site (P9) and the gap between them shorter than the floor (P10).
 * The lock is a file holding the owner's pid (acquirePidLock); a `kill -9` leaves it behind,
 * so a lock whose process is no longer alive is stale and taken over (the restart after a
 * crash must work without a person).
 */
import { randomBytes } from "node:crypto";
import {
  linkSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { NorError } from "../errors.js";
import { alive } from "../store/holder.js";

export const NIGHT_LOCK_FILE = "night.lock";

/** `nor start`'s lock: one at a time serves and schedules the nights of a data directory. */
export const START_LOCK_FILE = "start.lock";

/** Takes `nor start`'s lock in `dir`, or throws E_CONFIG naming the `nor start` that holds it. */
export function acquireStartLock(dir: string): () => void {
  const path = join(dir, START_LOCK_FILE);
  return acquirePidLock(
    path,
    (pid) =>
      new NorError(
        "E_CONFIG",
        `another nor start is running on ${dir} (pid ${pid}, lock ${path}): one serves the directory and runs the nights of a data directory; stop that one first, or give this one another --data`,
      ),
  );
}

/** Takes the lock in `dir` or throws a NorError naming the running night's pid. */
export function acquireNightLock(dir: string): () => void {
  const path = join(dir, NIGHT_LOCK_FILE);
  return acquirePidLock(
    path,
    (pid) =>
      new NorError(
        "E_STORE",
        `another nor night is running on ${dir} (pid ${pid}, lock ${path}); not starting a second`,
      ),
  );
}

/**
 * A lock file at `path` holding this process's identity (its pid, this boot's id and the
 * process's start time, where Linux says them): written whole under another name and linked
 * into place, so no one ever reads it half made. A lock whose process is gone (a `kill -9`, a
 * power cut: another boot, or its pid now another program's) is stale and taken over: moved
 * aside, and removed only if it is still the stale one read. While a live process holds it,
 * `taken(pid)` is thrown. The release removes it only while it is still this process's.
 */
export function acquirePidLock(path: string, taken: (pid: number) => Error): () => void {
  const me = identityOf(process.pid);
  const release = () => {
    try {
      if (readFileSync(path, "utf8") === me) unlinkSync(path);
    } catch {
      // already gone
    }
  };
  for (let attempt = 0; attempt < 200; attempt++) {
    if (place(path, me)) return release;
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") continue; // released meanwhile
      throw err;
    }
    const pid = Number.parseInt(text, 10);
    if (!(Number.isInteger(pid) && pid > 0)) {
      // No pid (yet): one being written in place (a file system without hard links) is held
      // while young; an old one is a leftover.
      if (ageMs(path) < YOUNG_MS) {
        pause(10);
        continue;
      }
    } else if (text !== me && holds(text, pid)) throw taken(pid);
    // Stale. Taken over by one process at a time, under a second lock, and removed only if
    // it is still the stale one read: a lock made meanwhile is never removed.
    const guard = `${path}.takeover`;
    if (!place(guard, me)) {
      // Another is taking it over; a guard left by one that died while doing so goes.
      if (ageMs(guard) > YOUNG_MS) rmSync(guard, { force: true });
      pause(10);
      continue;
    }
    try {
      let still: string | undefined;
      try {
        still = readFileSync(path, "utf8");
      } catch {
        still = undefined;
      }
      if (still === text) unlinkSync(path);
    } finally {
      try {
        if (readFileSync(guard, "utf8") === me) unlinkSync(guard);
      } catch {
        // already gone
      }
    }
  }
  throw new NorError("E_STORE", `cannot take the lock ${path}`);
}

/** How long a lock file without a holder's pid, or a takeover's guard, is taken to be at work. */
const YOUNG_MS = 10_000;

/** Milliseconds since `path` was last written (0 when it cannot be looked at). */
function ageMs(path: string): number {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

/** Waits `ms` without returning to the event loop (the lock is taken synchronously). */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Makes the lock `path` holding `text`, whole; false when one is there already. */
function place(path: string, text: string): boolean {
  const part = `${path}.new-${process.pid}-${randomBytes(4).toString("hex")}`;
  writeFileSync(part, text, { flag: "wx" });
  try {
    linkSync(part, path);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return false;
    // A file system without hard links: made in place (written just after it appears).
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP" && code !== "ENOSYS")
      throw err;
    try {
      writeFileSync(path, text, { flag: "wx" });
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
      throw e;
    }
  } finally {
    rmSync(part, { force: true });
  }
}

/** This boot's id (Linux), or "" where the system does not say it. */
function bootId(): string {
  try {
    return readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
  } catch {
    return "";
  }
}

/** When process `pid` started, in clock ticks since boot (Linux), or "" where not said. */
function startOf(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces, in parentheses): the 22nd is start.
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? "";
  } catch {
    return "";
  }
}

/** This process's pid namespace (Linux), or "" where the system does not say it. */
export function pidNamespace(): string {
  try {
    return readlinkSync("/proc/self/ns/pid");
  } catch {
    return "";
  }
}

/**
 * This process's own identity, once read whole: its pid, boot, start time and pid namespace do
 * not change while it runs, and a night in a long-lived process (`nor start`, or the tests'
 * in-process nights) takes its locks several times a night (reading /proc/self/stat walks
 * every thread of the process). One read with a piece missing is not kept (read again next time).
 */
let ownIdentity: { pid: number; text: string } | undefined;

/** What a lock says of its holder: pid, boot id, start time, pid namespace, a line each. */
export function identityOf(pid: number): string {
  if (pid === process.pid && ownIdentity?.pid === pid) return ownIdentity.text;
  const boot = bootId();
  const start = startOf(pid);
  const ns = pidNamespace();
  const text = `${pid}\n${boot}\n${start}\n${ns}\n`;
  if (pid === process.pid && boot !== "" && start !== "" && ns !== "") ownIdentity = { pid, text };
  return text;
}

/**
 * The lock's process still holds it: alive, in this boot, and started when the lock says (a
 * pid the system gave to another program since is not the holder). A lock that says no boot
 * or start (written by an earlier version, or on a system without them) goes by the pid alone.
 */
export function holds(text: string, pid: number): boolean {
  const [, boot = "", start = "", ns = ""] = text.split("\n");
  // A holder in another pid namespace (a container sharing the directory) cannot be looked
  // at from here: held, in this boot.
  if (ns !== "" && ns !== pidNamespace()) return boot === "" || boot === bootId();
  if (!alive(pid)) return false;
  if (boot !== "" && boot !== bootId()) return false;
  if (start !== "" && startOf(pid) !== "" && start !== startOf(pid)) return false;
  return true;
}
