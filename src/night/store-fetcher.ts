/**
 * The real fetcher over the store's ports — the one wiring `nor night` and `nor discover`
 * share, so both send through the same log, site gaps, robots cache and archive.
 */
import type { Clock } from "../clock.js";
import { createFetcher, type PoliteFetcher } from "../net/fetcher.js";
import type { ArchivePort, RequestLogPort, SiteStatePort } from "../net/types.js";
import type { Db } from "../store/db.js";
import { SqlRequestLog } from "../store/request-log.js";
import { SqlRobotsCache } from "../store/robots-cache.js";
import { SqlSiteState } from "../store/site-state.js";

/** The operator's network settings (validated at the CLI boundary, src/cli/net-options.ts). */
export interface NetOptions {
  userAgent?: string;
  allowPrivateAddresses?: boolean;
  resolve?: string[];
  caFile?: string;
  gapMs?: number;
}

export interface StoreFetcherOptions {
  db: Db;
  clock: Clock;
  net: NetOptions;
  archive?: ArchivePort;
  /** Defaults: the SQL request log and site state over `db`. */
  log?: RequestLogPort;
  siteState?: SiteStatePort;
  deadline?: number;
  night?: string;
}

export function storeFetcher(o: StoreFetcherOptions): PoliteFetcher {
  const { net } = o;
  const transportOptions: { allowPrivateAddresses?: boolean; resolve?: string[]; caFile?: string } =
    {};
  if (net.allowPrivateAddresses) transportOptions.allowPrivateAddresses = true;
  if (net.resolve?.length) transportOptions.resolve = net.resolve;
  if (net.caFile !== undefined) transportOptions.caFile = net.caFile;
  return createFetcher({
    clock: o.clock,
    log: o.log ?? new SqlRequestLog(o.db),
    siteState: o.siteState ?? new SqlSiteState(o.db, o.clock),
    robotsCache: new SqlRobotsCache(o.db),
    ...(o.archive ? { archive: o.archive } : {}),
    ...(net.userAgent !== undefined ? { userAgent: net.userAgent } : {}),
    ...(net.gapMs !== undefined ? { gapMs: net.gapMs } : {}),
    transportOptions,
    ...(o.deadline !== undefined ? { deadline: o.deadline } : {}),
    ...(o.night !== undefined ? { night: o.night } : {}),
  });
}
