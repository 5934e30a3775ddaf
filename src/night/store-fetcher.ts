/**
 * The real fetcher over the store's ports — the one wiring `nor night` and `nor discover`
 * share, so both send through the same log, site gaps, robots cache and archive.
 */
import type { Clock } from "../clock.js";
import type { IdSource } from "../ids.js";
import { createFetcher, type PoliteFetcher } from "../net/fetcher.js";
import type { JournalPort } from "../net/journal.js";
import type { ArchivePort } from "../net/types.js";
import type { Db } from "../store/db.js";
import type { GroupCommit } from "../store/group-commit.js";
import { SqlJournal } from "../store/journal.js";
import { SqlRobotsCache } from "../store/robots-cache.js";

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
  ids: IdSource;
  net: NetOptions;
  archive?: ArchivePort;
  /** Default: the SQL journal over `db` (request log and site state in one), on `clock`. */
  journal?: JournalPort;
  /** The group commit of `journal`'s SQL journal, which robots.txt answers then join. */
  group?: GroupCommit;
  deadline?: number;
  night?: string;
  /** This process's name in the journal's leases (default: a fresh one). */
  holder?: string;
}

export function storeFetcher(o: StoreFetcherOptions): PoliteFetcher {
  const { net } = o;
  const transportOptions: { allowPrivateAddresses?: boolean; resolve?: string[]; caFile?: string } =
    {};
  if (net.allowPrivateAddresses) transportOptions.allowPrivateAddresses = true;
  if (net.resolve?.length) transportOptions.resolve = net.resolve;
  if (net.caFile !== undefined) transportOptions.caFile = net.caFile;
  const journal = o.journal ?? new SqlJournal(o.db, o.clock);
  return createFetcher({
    clock: o.clock,
    ids: o.ids,
    journal,
    // One group commit for the journal's rows and the robots.txt answers stored beside them:
    // the one given (`nor night` wraps its SQL journal to count and time what it does), else
    // the journal's own when it is a SqlJournal.
    robotsCache: new SqlRobotsCache(
      o.db,
      o.group ?? (journal instanceof SqlJournal ? journal.group : undefined),
    ),
    ...(o.archive ? { archive: o.archive } : {}),
    ...(net.userAgent !== undefined ? { userAgent: net.userAgent } : {}),
    ...(net.gapMs !== undefined ? { gapMs: net.gapMs } : {}),
    transportOptions,
    ...(o.deadline !== undefined ? { deadline: o.deadline } : {}),
    ...(o.night !== undefined ? { night: o.night } : {}),
    ...(o.holder !== undefined ? { holder: o.holder } : {}),
  });
}
