import type { Generated, GeneratedAlways } from "kysely";

/**
 * Tables owned by the night module (src/night). Times are ISO 8601 UTC text; booleans are
 * integers 0/1; JSON is text — the same on SQLite and PostgreSQL. No foreign keys to other
 * modules' tables: the night keeps its own copy of what it needs from the catalog.
 */
export interface NightCatalogTable {
  source_id: string;
  government: string;
  url: string;
  site: string;
  updated_at: string;
}

export interface NightsTable {
  night: string;
  started_at: string;
  deadline_at: string;
  finished_at: string | null;
  runs: number;
  /** P1: the User-Agent its requests carried (the last process to run it); null before 017. */
  user_agent: string | null;
  /**
   * Why the night ran the sources the store last imported instead of its catalog files (the
   * files unreadable, invalid or their import refused: `--or-stored-catalog`); null when it ran
   * its files, and before migration 025.
   */
  catalog_note: string | null;
}

/** One outcome per source per night (P23: the directory shows that night's no). */
export interface NightSourcesTable {
  night: string;
  source_id: string;
  outcome: string;
  reason: string | null;
  /** RefusalEvidence as JSON (P21). */
  evidence: string | null;
  status: number | null;
  url: string | null;
  /** P4: the way in used and the better ways skipped with why (WayChoice as JSON). */
  way: string | null;
  records_found: number;
  new_records: number;
  started_at: string;
  ended_at: string;
  duration_ms: number;
}

export interface RecordsTable {
  source_id: string;
  record_id: string;
  title: string;
  date: string | null;
  url: string | null;
  kind: string | null;
  first_seen_night: string;
  first_seen_at: string;
  /**
   * 1: already listed when first seen (the source's first read, or an older page a backfill
   * read, P7): the source's record, never "new on record". Migration 021.
   */
  already_listed: Generated<number>;
  /**
   * The id it was first listed under, when its link, and so its id, changed since (P6: a site
   * moved to https, or moved its files); null when `record_id` is that id. Migration 022.
   */
  first_id: Generated<string | null>;
  /**
   * The source id it was first listed under, when the catalog renamed its source since (P6: the
   * import moved the old id's history to the new one); null when `source_id` is that id.
   * Migration 026.
   */
  first_source_id: Generated<string | null>;
  /**
   * When the record, seen before, was last brought up to date (the list shows it retitled,
   * redated, of another kind; a link written anew alone is no change: P6, nor is our own
   * reading of a 304's copy: night-records.ts), ISO 8601 UTC; null while it is as first seen. A feed's entry and a calendar's event say it changed
   * (web/public/feeds.ts). Migration 028.
   */
  changed_at: Generated<string | null>;
  /**
   * The instant `date` names, worked out by the store (a generated column: never written):
   * julianday on SQLite, a timestamp in UTC on PostgreSQL; only ever ordered by.
   */
  instant: GeneratedAlways<number | Date | null>;
}

/** P24: only a person changes whether a source is read; every change kept with time and reason. */
export interface MarksTable {
  source_id: string;
  /** The mark's place in the order of decisions (marks.ts markAt); its time unless moved. */
  at: string;
  /** P24: the time its host gave it, shown (migration 037; null on older marks: `at`). */
  made_at: string | null;
  reading: number;
  reason: string | null;
  by: string;
  night: string;
}

export interface FlagsTable {
  id: string;
  source_id: string;
  kind: string;
  night: string;
  detail: string;
  raised_at: string;
  cleared_at: string | null;
  cleared_by: string | null;
}

/** P12: last ETag / Last-Modified per URL, until the archive's index provides them. */
export interface ValidatorsTable {
  url: string;
  etag: string | null;
  last_modified: string | null;
  updated_at: string;
}

/**
 * P8, P12: the first page a source showed when last read in full, by its key (the way in, URL,
 * Content-Type and body, hashed), with how many records it listed and their distinct ids: a 304
 * whose copy has that key is counted, not extracted again, while every one of those ids is in
 * `records`.
 */
export interface PageReadsTable {
  source_id: string;
  url: string;
  key: string;
  records: number;
  night: string;
  /** JSON array of the read's distinct record ids; null for a row from before migration 014. */
  ids: string | null;
}

/** P7: backfill progress per source. */
export interface BackfillTable {
  source_id: string;
  done: number;
  /**
   * The next older page request as JSON (with the misses and failed nights counted to it), when
   * not done; when done, kept only by a backfill that gave up on that page (P7: `nor backfill
   * restart` goes on from it).
   */
  cursor: string | null;
  pages_read: number;
  /** Why it ended and on which night (JSON of night/types.ts BackfillEnd); null while it goes on. */
  ended: string | null;
  /**
   * P7: how many times a person restarted it (`nor backfill restart`, the console): a night's save
   * is written only while it is the count the night read (migration 030).
   */
  restarts: Generated<number>;
  /** The latest restart: when (ISO 8601 UTC) and by whom; null if never. */
  restarted_at: string | null;
  restarted_by: string | null;
  /**
   * P7: the night an overflow reading left unfinished began (the earliest, when several stack),
   * null when none is pending; with the page it goes on from (`overflow_cursor`, a request as
   * JSON). Migration 034.
   */
  overflow_since: string | null;
  overflow_cursor: string | null;
}

/**
 * P11: a source's catalog URL (a way's, as the catalog writes it) that answered a permanent
 * redirect (301, 308, every hop) to `to_url`, where its page was read on `night`: later nights
 * ask `to_url` directly. Keyed by the source and the catalog URL, so a catalog that changes the
 * URL leaves it behind; deleted when the target fails (night/check-source.ts moveOf).
 */
export interface SourceMovesTable {
  source_id: string;
  from_url: string;
  to_url: string;
  night: string;
}

export type NightTables = {
  night_catalog: NightCatalogTable;
  nights: NightsTable;
  night_sources: NightSourcesTable;
  records: RecordsTable;
  marks: MarksTable;
  flags: FlagsTable;
  validators: ValidatorsTable;
  backfill: BackfillTable;
  page_reads: PageReadsTable;
  source_moves: SourceMovesTable;
};
