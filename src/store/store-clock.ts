/**
 * One time for every host that shares a PostgreSQL store. The journal decides from instants
 * written by other processes (a site's last end, a lease's expiry, a Retry-After): when two
 * machines' clocks disagree by a few seconds, the one that runs ahead would send before the
 * other's gap ran out (P10) or take over a lease still held (P9). So on PostgreSQL the night's
 * clock is this host's clock corrected by its offset from the database server's clock,
 * measured at the start and again every few minutes (a round trip's half is the error bound).
 * SQLite is one machine's file: its processes already share one clock.
 */

import type { Clock } from "../clock.js";
import type { Db } from "./db.js";
import { sql } from "./kysely.js";

/** How often the offset is measured again while the night runs. */
export const CLOCK_REFRESH_MS = 5 * 60_000;
/** Samples per measurement; the one with the shortest round trip is kept. */
const SAMPLES = 5;

export interface StoreClock extends Clock {
  /** Milliseconds added to the host's clock (the database's clock minus the host's). */
  readonly offsetMs: number;
  /** The round trip of the sample the offset came from: the offset is right to half of it. */
  readonly uncertaintyMs: number;
  /** Measures the offset again (also done by itself on reads after CLOCK_REFRESH_MS). */
  refresh(): Promise<void>;
}

/** The host's clock aligned to the PostgreSQL server's, measured once before it is returned. */
export async function storeClock(db: Db, base: Clock): Promise<StoreClock> {
  let offset = 0;
  let uncertainty = 0;
  let measuredAt = Number.NEGATIVE_INFINITY;
  let refreshing: Promise<void> | undefined;
  const measure = async () => {
    let best: { offset: number; rtt: number } | undefined;
    for (let i = 0; i < SAMPLES; i++) {
      const t0 = base.now();
      const r = await sql<{
        ms: string | number;
      }>`select floor(extract(epoch from clock_timestamp()) * 1000) as ms`.execute(db);
      const t1 = base.now();
      const dbMs = Number(r.rows[0]?.ms);
      if (!Number.isFinite(dbMs)) continue;
      const sample = { offset: dbMs - (t0 + t1) / 2, rtt: t1 - t0 };
      if (!best || sample.rtt < best.rtt) best = sample;
    }
    if (!best) return;
    offset = Math.round(best.offset);
    uncertainty = best.rtt;
    measuredAt = base.now();
  };
  const clock: StoreClock = {
    get offsetMs() {
      return offset;
    },
    get uncertaintyMs() {
      return uncertainty;
    },
    now() {
      const t = base.now();
      if (t - measuredAt >= CLOCK_REFRESH_MS && !refreshing) {
        // Measured in the background; the last offset serves until the new one is known.
        refreshing = measure()
          .catch(() => {})
          .finally(() => {
            refreshing = undefined;
          });
      }
      return t + offset;
    },
    sleep: (ms, signal) => base.sleep(ms, signal),
    refresh: measure,
  };
  await measure();
  return clock;
}
