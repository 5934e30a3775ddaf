/**
 * Who holds a site's lease: `host:pid:random`. On this host a holder whose process is gone is
 * dead at once (a restart after `kill -9` need not wait); elsewhere its lease running out tells,
 * so a lease is never longer than the longest request can last, and on PostgreSQL its liveness
 * lock too (holder-liveness.ts): a holder frozen past its lease is not dead while it is held.
 */
import { hostname } from "node:os";

/**
 * The holders this process made. In a container a restarted `nor night` often gets the killed
 * one's hostname and pid back; a holder with this host and pid that this process did not make
 * is that dead run's, however alive its pid looks.
 */
const mine = new Set<string>();

export function newHolderId(random: () => string): string {
  const id = `${hostname()}:${process.pid}:${random()}`;
  mine.add(id);
  return id;
}

/** Whether this process made the holder `id` (an archive's `.writer` names one): see `mine`. */
export function madeHere(id: string): boolean {
  return mine.has(id);
}

/** Whether a process of this host is alive (EPERM: it exists, someone else's). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else; still alive.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * On this host a lease's process is asked directly: alive means it still holds the site, even
 * past its lease (a slow body must never see a second request sent alongside it, P9), up to
 * STALE_MS past it (a pid reused by another program). Another host's lease holds until it
 * runs out: a lease is longer than the longest request can last (P14). On PostgreSQL either holds
 * past that while the holder's liveness lock is held (holder-liveness.ts: a process frozen in the
 * middle of a slow body keeps its connection to the site, and to the database, open).
 */
export const STALE_MS = 10 * 60_000;

/** The pid of a holder made on this host (`host:pid:random`), or undefined. */
export function localPid(holder: string): number | undefined {
  const m = /^(.*):(\d+):[^:]+$/.exec(holder);
  return m && m[1] === hostname() ? Number(m[2]) : undefined;
}

export function holderDead(
  lease: { holder: string; until: number },
  now: number,
  /**
   * Holders known to live (on PostgreSQL, their liveness lock held: holder-liveness.ts), never
   * dead whatever their lease or pid says; read only for a lease this would call dead
   * (journal.ts admit and sweep).
   */
  living?: ReadonlySet<string>,
): boolean {
  if (living?.has(lease.holder)) return false;
  const pid = localPid(lease.holder);
  if (pid === undefined) return lease.until <= now;
  if (lease.until + STALE_MS <= now) return true;
  if (pid === process.pid) return !mine.has(lease.holder);
  return !alive(pid);
}
