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

/**
 * SQLite's codes for a write the file system refused otherwise than for want of room. A file
 * grown past the process's file-size limit (`ulimit -f`: EFBIG, once SIGXFSZ is ignored, as
 * Node ignores it) is one: SQLite says it as any write that failed, SQLITE_IOERR_WRITE ("disk
 * I/O error"), as it does a failing disk's EIO, which it cannot tell apart.
 */
const REFUSED = new Set(["SQLITE_IOERR_WRITE", "SQLITE_IOERR_TRUNCATE", "EFBIG"]);

/**
 * Why a store's write failed, when the file system refused it: `full` (diskFull), `refused`
 * (a file-size limit, or a disk failing), or undefined for any other error. Both are the
 * operator's to mend, said with the store's file (db.ts) and exit 2, as a night stops for a full
 * disk: running the command again before that meets the same refusal.
 */
export function storeWriteRefused(err: unknown): "full" | "refused" | undefined {
  if (diskFull(err)) return "full";
  for (let e = err, depth = 0; e !== null && e !== undefined && depth < 8; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && REFUSED.has(code)) return "refused";
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}
