import type { Generated } from "kysely";

/**
 * One row per request attempt (P27). Times are ISO 8601 UTC text with milliseconds, so they
 * sort as text and read the same on SQLite and PostgreSQL; the JSON columns hold text.
 */
export interface RequestLogRow {
  /** Insertion order: breaks ties between attempts that started in the same millisecond. */
  id: Generated<number>;
  started_at: string;
  /** Empty while the request is in flight, and for an attempt a crash interrupted. */
  ended_at: string | null;
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
  /** The process that sent it (host:pid:random), to tell an interrupted row from one in flight. */
  holder: Generated<string | null>;
  /** The same request tonight (method, URL, body, validators): see net/journal requestKey. */
  request_key: Generated<string | null>;
  /** 1: the answer is complete and is replayed, never asked again tonight (P8). */
  final: Generated<number>;
  /** 1: closed before a full response (P15, P21). */
  closed_early: Generated<number>;
  /** P15: the next attempt at this request starts no sooner. */
  retry_at: Generated<string | null>;
  /** JSON of the stored answer (net/journal StoredAnswer), for replay. */
  answer: Generated<string | null>;
}

/** P10: when the last request to a site ended, so the 2 s gap survives a restart. */
export interface SiteStateRow {
  site: string;
  last_end_at: string | null;
  updated_at: string;
  /** P9: the request in flight to this site: who sent it, and until when the lease holds. */
  lease_holder: Generated<string | null>;
  lease_until: Generated<string | null>;
  /** P21: the night this site said no, and why. */
  closed_night: Generated<string | null>;
  closed_reason: Generated<string | null>;
  /** The night this site was down (a 5xx after a request's retries), and why: not a no. */
  down_night: Generated<string | null>;
  down_reason: Generated<string | null>;
  /** The source whose request found it down (its own next way in is still tried, P4). */
  down_source: Generated<string | null>;
  /** RFC 9110 §10.2.3: no request to the site before this time. */
  not_before: Generated<string | null>;
}

/** A site owner's request, kept with its reason and date until the operator clears it. */
export interface SiteRulesRow {
  id: string;
  site: string;
  kind: "gap" | "leave-alone" | "not-read";
  /** gap: milliseconds; leave-alone: the path prefix; not-read: empty. */
  value: string | null;
  reason: string;
  at: string;
  by: string;
  cleared_at: string | null;
  cleared_by: string | null;
}

/** A night's lane (one site) leased to one worker at a time. */
export interface NightLanesRow {
  night: string;
  site: string;
  holder: string | null;
  lease_until: string | null;
  done_at: string | null;
}

/**
 * A process running a night, from its opening to its end (night-runs.ts): its lease renewed
 * while it lives, so a night is seen from another machine even while it holds no lane.
 */
export interface NightRunsRow {
  holder: string;
  night: string;
  started_at: string;
  lease_until: string;
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
  site_rules: SiteRulesRow;
  night_lanes: NightLanesRow;
  night_runs: NightRunsRow;
};
