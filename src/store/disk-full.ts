/**
 * Whether a store's write failed because its disk is full: SQLite's SQLITE_FULL (better-sqlite3's
 * code; SQLITE_IOERR_SHMSIZE when the WAL's shared-memory file could not grow), PostgreSQL's
 * disk_full (53100), or the file system's ENOSPC, on the error or any of its causes. The
 * operator's to mend (make room), as an archive that cannot keep an answer is (P8): a night
 * that meets it stops as configuration (exit 2), which the systemd units do not restart on.
 */
const FULL = new Set(["SQLITE_FULL", "SQLITE_IOERR_SHMSIZE", "53100", "ENOSPC"]);

export function diskFull(err: unknown): boolean {
  for (let e = err, depth = 0; e !== null && e !== undefined && depth < 8; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && FULL.has(code)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** What a night says when its store's disk is full, before the driver's own words. */
export const STORE_FULL = "its disk is full: make room, then run the night again; it resumes";
