/**
 * Who holds a site's lease: `host:pid:random`. On this host a holder whose process is gone is
 * dead at once (a restart after `kill -9` need not wait); elsewhere only its lease running out
 * tells, so a lease is never longer than the longest request can last.
 */
import { hostname } from "node:os";

export function newHolderId(random: () => string): string {
  return `${hostname()}:${process.pid}:${random()}`;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else; still alive.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

export function holderDead(lease: { holder: string; until: number }, now: number): boolean {
  if (lease.until <= now) return true;
  const m = /^(.*):(\d+):[^:]+$/.exec(lease.holder);
  if (!m) return true;
  const pid = Number(m[2]);
  if (m[1] !== hostname()) return false;
  if (pid === process.pid) return false;
  return !alive(pid);
}
