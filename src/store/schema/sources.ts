/**
 * Tables owned by the sources module: the catalog as imported (`nor catalog import`).
 * A government or source removed from the catalog is retired (retired_at set), never
 * deleted, so its history (nights, records, request log) keeps pointing at a real row;
 * re-adding it un-retires it. Every import's diff is kept in catalog_changes.
 */
import type { Generated } from "kysely";

export interface GovernmentRow {
  id: string;
  name: string;
  kind: string;
  county: string | null;
  website: string | null;
  /** JSON text of the whole catalog entry, as validated: the basis of "changed". */
  entry: string;
  catalog_file: string;
  first_seen_at: string;
  updated_at: string;
  retired_at: string | null;
}

export interface SourceRow {
  id: string;
  government_id: string;
  records: string;
  url: string;
  access: string;
  platform: string | null;
  name: string | null;
  /** 0/1: a person has opened the page and seen records. */
  confirmed: number;
  /** JSON text of the whole Source (ways in, recipe, backfill), as validated. */
  entry: string;
  catalog_file: string;
  first_seen_at: string;
  updated_at: string;
  retired_at: string | null;
  /**
   * P6: the id this retired source was renamed to (its history moved there: store/
   * catalog-import.ts `moveHistory`); null for one never renamed or put back since
   * (migration 027).
   */
  renamed_to: string | null;
}

/** A record page seen but not read yet (catalog `leads:`): replaced whole on each import. */
export interface LeadRow {
  id: Generated<number>;
  government_id: string;
  records: string;
  /** As seen: it may lack a scheme or be a template (never fetched). */
  url: string;
  platform: string | null;
  why: string;
  evidence: string | null;
  notes: string | null;
  position: number;
  first_seen_at: string;
}

export type CatalogChangeKind = "added" | "changed" | "retired" | "unretired";

export interface CatalogChangeRow {
  id: Generated<number>;
  at: string;
  entity: "government" | "source";
  entity_id: string;
  change: CatalogChangeKind;
  /** For "changed": the top-level fields that differ, comma-separated. */
  fields: string | null;
}

/**
 * The stamp of the catalog files last imported (one row, id 1): their names, bytes and the
 * importer's code, hashed (src/sources/catalog/stamp.ts); null when that import could not vouch
 * for what it read. Written in each import's transaction, so it always describes the rows.
 */
export interface CatalogStampRow {
  id: number;
  digest: string | null;
  stamped_at: string;
  /**
   * The importer that validated the sources in use (stamp.ts importerVersion): a night may run
   * them instead of catalog files it cannot use only when it is this build's (migration 025);
   * null before that migration.
   */
  importer: string | null;
}

export type SourcesTables = {
  governments: GovernmentRow;
  sources: SourceRow;
  catalog_changes: CatalogChangeRow;
  leads: LeadRow;
  catalog_stamp: CatalogStampRow;
};
