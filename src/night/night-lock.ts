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

/** Takes the lock in `dir` or throws a NorError naming the running night's pid. */
export function acquireNightLock(dir: string): () => void {
  const path = join(dir, NIGHT_LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    let fd: number;
    try {
      fd = openSync(path, "wx");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const pid = Number.parseInt(readFileSync(path, "utf8"), 10);
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) {
        throw new NorError(
          "E_STORE",
          `another nor night is running on ${dir} (pid ${pid}, lock ${path}); not starting a second`,
        );
      }
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
  throw new NorError("E_STORE", `cannot take the night lock ${path}`);
}
