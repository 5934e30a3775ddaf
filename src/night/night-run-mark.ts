/**
 * P13, P26: a night under way is seen in a shared PostgreSQL store from its opening to its end
 * (store/night-runs.ts), not only while it leases a lane: `nor catalog import`, `nor start` and
 * another `nor night` on another machine, each with a data directory of its own, read it there
 * (store/admin.ts nightsLiveInStore), as the same data directory's marks (night-runners.ts) are
 * read on this machine. Written while the opening lock is held, renewed every third of its lease
 * while the process lives, deleted at its end; a process killed leaves a row that is dead at
 * once on this host (its pid), elsewhere when its liveness lock goes or its lease runs out.
 */
import type { Clock } from "../clock.js";
import type { IdSource } from "../ids.js";
import type { Db } from "../store/db.js";
import { dialectOf } from "../store/dialect-of.js";
import { newHolderId } from "../store/holder.js";
import {
  endNightRun,
  markNightRun,
  NIGHT_RUN_LEASE_MS,
  renewNightRun,
} from "../store/night-runs.js";
import { storeClock } from "../store/store-clock.js";

export interface NightRunMark {
  /** The night's row goes (its heartbeat stops); a store that fails it lets its lease run out. */
  end(): Promise<void>;
}

export async function markNightInStore(
  db: Db,
  night: string,
  clock: Clock,
  ids: IdSource,
): Promise<NightRunMark> {
  const holder = newHolderId(() => ids.uuid().slice(0, 8));
  // Leased by the database server's time on PostgreSQL, as the lanes are (store-clock.ts): a
  // machine whose clock runs ahead would otherwise leave a row, once killed, that every other
  // machine reads as live for as long as its clock is ahead.
  const at: Clock = dialectOf(db) === "postgres" ? await storeClock(db, clock) : clock;
  await markNightRun(db, holder, night, at.now());
  // A real timer (as the lanes' heartbeat, compose.ts), unref'd: it never keeps the process
  // alive. A renewal that fails (a dropped connection) is tried again at the next beat.
  /**
   * The renewal under way, if any: waited for at the end, so none writes the row again after.
   * A beat while one is still under way (a connection stalled past a third of the lease) is
   * skipped: two at once, the end would wait for the newest only, and the older could land after
   * the row's delete and write it again.
   */
  let beating: Promise<void> | undefined;
  const beat = setInterval(() => {
    if (beating !== undefined) return;
    beating = renewNightRun(db, holder, night, at.now())
      .catch(() => {})
      .finally(() => {
        beating = undefined;
      });
  }, NIGHT_RUN_LEASE_MS / 3);
  beat.unref();
  let ended = false;
  return {
    end: async () => {
      if (ended) return;
      ended = true;
      clearInterval(beat);
      await beating;
      await endNightRun(db, holder).catch(() => {});
    },
  };
}
