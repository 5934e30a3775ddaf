/**
 * One `nor night` at a time per store directory. Two at once would each check every source
 * (a source checked twice a night), and each would keep its own site gates, so two requests
 * could be in flight to one site (P9) and the gap between them shorter than the floor (P10).
 * The lock is a file made with O_EXCL holding the owner's pid; a `kill -9` leaves it behind,
 * so a lock whose pid is no longer alive is stale and taken over (the restart after a crash
 * must work without a person).
 */
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
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
 * A lock file at `path` made with O_EXCL holding this process's pid, taken over when the pid
 * in it is no longer alive (a `kill -9` leaves it behind); while a live process holds it,
 * `taken(pid)` is thrown. The release removes it only while it is still this process's.
 */
export function acquirePidLock(path: string, taken: (pid: number) => Error): () => void {
  for (let attempt = 0; attempt < 2; attempt++) {
    let fd: number;
    try {
      fd = openSync(path, "wx");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const pid = Number.parseInt(readFileSync(path, "utf8"), 10);
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) throw taken(pid);
      unlinkSync(path); // stale: its owner died (kill -9) without releasing it
      continue;
    }
    writeSync(fd, `${process.pid}\n`);
    closeSync(fd);
    return () => {
      try {
        if (Number.parseInt(readFileSync(path, "utf8"), 10) === process.pid) unlinkSync(path);
      } catch {
        // already gone
      }
    };
  }
  throw new NorError("E_STORE", `cannot take the lock ${path}`);
}
