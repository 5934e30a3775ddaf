import type { Generated } from "kysely";

/**
 * One row per request attempt (P27). Times are ISO 8601 UTC text with milliseconds, so they
 * sort as text and read the same on SQLite and PostgreSQL; the JSON columns hold text.
 */
export interface RequestLogRow {
  /** Insertion order: breaks ties between attempts that started in the same millisecond. */
  id: Generated<number>;
  started_at: string;
  ended_at: string;
  method: string;
  url: string;
  status: number | null;
  outcome: string;
  failure: string | null;
  bytes: number;
  site: string;
  origin: string;
  source: string | null;
  purpose: string;
  attempt: number;
  /** YYYY-MM-DD of the `nor night` run, when there was one. */
  night: string | null;
  /** JSON text of the Validators sent (If-None-Match / If-Modified-Since, P12). */
  validators_sent: string | null;
  validators_received: string | null;
  /** JSON text of the RefusalEvidence behind a "no" (P21). */
  evidence: string | null;
}

/** P10: when the last request to a site ended, so the 2 s gap survives a restart. */
export interface SiteStateRow {
  site: string;
  last_end_at: string;
  updated_at: string;
}

/** P16: one robots.txt per origin (scheme, host and port), read at most once a day. */
export interface RobotsCacheRow {
  origin: string;
  fetched_at: string;
  state: "rules" | "allow-all" | "unreachable";
  status: number | null;
  body: string | null;
  etag: string | null;
  last_modified: string | null;
  reason: string | null;
  /** P20: the night an "unreachable" answer belongs to; it holds until that night ends. */
  night: string | null;
}

// Tables owned by the log module.
export type LogTables = {
  request_log: RequestLogRow;
  site_state: SiteStateRow;
  robots_cache: RobotsCacheRow;
};
