/**
 * The composition root of `nor night`: the store's ports, the real fetcher over undici,
 * the WARC archive (P8), and the scheduler. Kept out of the CLI file so the command stays
 * thin and the wiring is read in one place.
 */
import { type Clock, systemClock } from "../clock.js";
import type { PoliteFetcher } from "../net/fetcher.js";
import type { RequestLogPort } from "../net/types.js";
import { isRecheckNight } from "../policy/recheck.js";
import { siteOf } from "../policy/site.js";
import type { Catalog } from "../sources/catalog/types.js";
import { archiveDir, WarcArchive } from "../store/archive/index.js";
import type { Store } from "../store/db.js";
import { SqlRequestLog } from "../store/request-log.js";
import { SqlSiteState } from "../store/site-state.js";
import { ArchiveValidators } from "./archive-validators.js";
import { type NightProgress, type NightSummary, runNight } from "./run-night.js";
import { SqlNightStore } from "./sql-store.js";
import { type NetOptions, storeFetcher } from "./store-fetcher.js";
import { wayReader } from "./way-reader.js";

export interface NightRunOptions extends NetOptions {
  night: string;
  deadlineMs: number;
  concurrency: number;
  /** The data directory: the archive lives in DIR/archive (P8). */
  dataDir?: string;
  clock?: Clock;
  onProgress?(p: NightProgress & { requests: number }): void;
}

export async function runNightWithStore(
  store: Store,
  catalog: Catalog,
  opts: NightRunOptions,
): Promise<NightSummary> {
  const clock = opts.clock ?? systemClock;
  const db = store.db;
  const siteState = new SqlSiteState(db, clock);
  const sqlLog = new SqlRequestLog(db);
  let requests = 0;
  const log: RequestLogPort = {
    append: (e) => {
      requests++;
      return sqlLog.append(e);
    },
  };
  const archive =
    opts.dataDir !== undefined
      ? await WarcArchive.open(archiveDir(opts.dataDir), { db, clock })
      : undefined;
  const nightStore = new SqlNightStore(db);
  let fetcher: PoliteFetcher | undefined;
  try {
    return await runNight(
      catalog,
      {
        store: nightStore,
        clock,
        reader: wayReader,
        // P8/P12: validators and 304 answers come from the archive when there is one.
        validators: archive ? new ArchiveValidators(db, archive.dir) : nightStore,
        siteOf,
        isRecheckNight,
        makeFetcher: async (state) => {
          if (state.resumed) {
            // A process killed mid-request left no end behind: count "now" as that end, so
            // the gap after a crash is never shorter than the floor (P10).
            const now = clock.now();
            const sites = new Set(catalog.sources.map((s) => siteOf(s.url)));
            for (const site of sites) await siteState.setLastEnd(site, now);
          }
          fetcher = storeFetcher({
            db,
            clock,
            net: opts,
            log,
            siteState,
            ...(archive ? { archive } : {}),
            deadline: state.deadlineAt,
            night: opts.night,
          });
          return fetcher;
        },
        onSourceDone: (p) => opts.onProgress?.({ ...p, requests }),
      },
      { night: opts.night, deadlineMs: opts.deadlineMs, concurrency: opts.concurrency },
    );
  } finally {
    await fetcher?.close();
    await archive?.close();
  }
}
