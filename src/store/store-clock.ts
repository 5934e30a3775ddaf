/**
 * One time for every host that shares a PostgreSQL store. The journal decides from instants
 * written by other processes (a site's last end, a lease's expiry, a Retry-After): when two
 * machines' clocks disagree by a few seconds, the one that runs ahead would send before the
 * other's gap ran out (P10) or take over a lease still held (P9). So on PostgreSQL the time of
 * every command (night, workers, discover) is the database server's: read from it at the start
 * and again every few minutes (the sample with the shortest round trip; half of it is the error
 * bound), and carried between readings by this host's monotonic clock, which an NTP step or an
 * operator's `date -s` does not move. The host's wall clock is not read at all.
 * SQLite is one machine's file: its processes already share one clock.
 */

import type { Clock } from "../clock.js";
import { NorError } from "../errors.js";
import type { Db } from "./db.js";
import { sql } from "./kysely.js";

/** How often the offset is measured again while the night runs. */
export const CLOCK_REFRESH_MS = 5 * 60_000;
/** Samples per measurement; the one with the shortest round trip is kept. */
const SAMPLES = 5;

export interface StoreClock extends Clock {
  /** The database's clock minus the host's wall clock (`base`), now: for reports. */
  readonly offsetMs: number;
  /** The round trip of the sample the offset came from: the offset is right to half of it. */
  readonly uncertaintyMs: number;
  /** Measures the offset again (also done by itself on reads after CLOCK_REFRESH_MS). */
  refresh(): Promise<void>;
}

/**
 * The PostgreSQL server's time, read once before it is returned; `base` only sleeps. `mono` is
 * a monotonic milliseconds counter (performance.now()), injected for tests.
 */
export async function storeClock(
  db: Db,
  base: Clock,
  mono: () => number = () => performance.now(),
): Promise<StoreClock> {
  // The database's time at the monotonic instant `anchor`.
  let dbAt = base.now();
  let anchor = mono();
  let uncertainty = 0;
  let refreshing: Promise<void> | undefined;
  const measure = async () => {
    let best: { dbAt: number; anchor: number; rtt: number } | undefined;
    for (let i = 0; i < SAMPLES; i++) {
      const t0 = mono();
      const r = await sql<{
        ms: string | number;
      }>`select floor(extract(epoch from clock_timestamp()) * 1000) as ms`.execute(db);
      const t1 = mono();
      const dbMs = Number(r.rows[0]?.ms);
      if (!Number.isFinite(dbMs)) continue;
      const sample = { dbAt: dbMs, anchor: (t0 + t1) / 2, rtt: t1 - t0 };
      if (!best || sample.rtt < best.rtt) best = sample;
    }
    if (!best) return;
    dbAt = best.dbAt;
    anchor = best.anchor;
    uncertainty = best.rtt;
  };
  const clock: StoreClock = {
    get offsetMs() {
      return Math.round(dbAt + (mono() - anchor) - base.now());
    },
    get uncertaintyMs() {
      return uncertainty;
    },
    now() {
      const m = mono();
      if (m - anchor >= CLOCK_REFRESH_MS && !refreshing) {
        // Read again in the background; the last reading serves until the new one is known.
        refreshing = measure()
          .catch(() => {})
          .finally(() => {
            refreshing = undefined;
          });
      }
      return Math.round(dbAt + (m - anchor));
    },
    sleep: (ms, signal) => base.sleep(ms, signal),
    refresh: measure,
  };
  await measure();
  return clock;
}

/**
 * The database server's time now, in one reading (its round trip's error): for a command that
 * judges another machine's lease once, where a StoreClock's five samples are not needed.
 */
export async function serverNow(db: Db): Promise<number> {
  const r = await sql<{
    ms: string | number;
  }>`select floor(extract(epoch from clock_timestamp()) * 1000) as ms`.execute(db);
  const ms = Number(r.rows[0]?.ms);
  if (!Number.isFinite(ms)) throw new NorError("E_STORE", "the database did not say its time");
  return ms;
}
