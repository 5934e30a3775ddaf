/**
 * What the night needs from the store. Each source's result is committed in one
 * transaction with its outcome, records, validators, backfill cursor and flags, so a
 * `kill -9` at any moment leaves either all of a source's night or none of it.
 */
import type { SourceHistory, SourceResult } from "./types.js";

export interface NightState {
  night: string;
  startedAt: number;
  /** P13: fixed when the night first starts; a resumed night keeps it. */
  deadlineAt: number;
  /** true when this night had already been started (a restart after a crash or a stop). */
  resumed: boolean;
}

export interface CatalogRow {
  id: string;
  government: string;
  url: string;
  site: string;
}

export interface TonightHistory extends SourceHistory {
  /** Already has an outcome tonight: never checked twice in one night. */
  doneTonight: boolean;
}

export interface NightStore {
  openNight(night: string, now: number, deadlineAt: number): Promise<NightState>;
  /** Upserts what the night keeps about each catalog source (read from the file each run). */
  syncSources(rows: readonly CatalogRow[], now: number): Promise<void>;
  histories(night: string, ids: readonly string[]): Promise<Map<string, TonightHistory>>;
  /** One transaction. Returns how many of the records were new (first seen tonight). */
  commit(night: string, result: SourceResult): Promise<{ newRecords: number }>;
  /** P21: sites that said no earlier tonight (before a restart), which stay closed. */
  closedSites(night: string): Promise<Set<string>>;
  finishNight(night: string, now: number): Promise<void>;
}
