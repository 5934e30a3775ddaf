/**
 * One `nor night` at a time per store directory. Two at once would each check every source
 * (a source checked twice a night), and each would keep its own site gates, so two requests
 * could be in flight to one site (P9) and the gap between them shorter than the floor (P10).
 * The lock is a file holding the owner's pid (acquirePidLock); a `kill -9` leaves it behind,
 * so a lock whose process is no longer alive is stale and taken over (the restart after a
 * crash must work without a person).
 */
import { randomBytes } from "node:crypto";
import { linkSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
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
  for (let attempt = 0; attempt < 50; attempt++) {
    if (place(path, me)) return release;
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") continue; // released meanwhile
      throw err;
    }
    const pid = Number.parseInt(text, 10);
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && holds(text, pid))
      throw taken(pid);
    // Stale: moved aside first, so a lock another process made meanwhile is never removed.
    const aside = `${path}.stale-${process.pid}-${randomBytes(4).toString("hex")}`;
    try {
      renameSync(path, aside);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw err;
    }
    try {
      if (readFileSync(aside, "utf8") !== text) linkSync(aside, path); // someone's new one: back
    } catch {
      // taken by a third meanwhile: theirs stands
    } finally {
      rmSync(aside, { force: true });
    }
  }
  throw new NorError("E_STORE", `cannot take the lock ${path}`);
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

/** What a lock says of its holder: pid, boot id, start time, a line each. */
function identityOf(pid: number): string {
  return `${pid}\n${bootId()}\n${startOf(pid)}\n`;
}

/**
 * The lock's process still holds it: alive, in this boot, and started when the lock says (a
 * pid the system gave to another program since is not the holder). A lock that says no boot
 * or start (written by an earlier version, or on a system without them) goes by the pid alone.
 */
function holds(text: string, pid: number): boolean {
  if (!alive(pid)) return false;
  const [, boot = "", start = ""] = text.split("\n");
  if (boot !== "" && boot !== bootId()) return false;
  if (start !== "" && startOf(pid) !== "" && start !== startOf(pid)) return false;
  return true;
}
