/**
 * A source's nights as the store holds them (P23: each night's outcome, reason and evidence),
 * read-only over the night's tables (src/store/schema/night.ts), the same on SQLite and
 * PostgreSQL. The web turns these rows into what it shows (src/web/public/state.ts).
 */
import type { Db } from "../db.js";
import type { NightSourcesTable } from "../schema/night.js";

export type OutcomeRow = Omit<NightSourcesTable, "started_at" | "duration_ms">;

const OUTCOME_COLUMNS = [
  "night",
  "source_id",
  "outcome",
  "reason",
  "evidence",
  "status",
  "url",
  "way",
  "records_found",
  "new_records",
  "ended_at",
] as const;

/** The latest night's outcome row of each source. */
export async function lastOutcomeRows(
  db: Db,
  ids: readonly string[],
): Promise<Map<string, OutcomeRow>> {
  const out = new Map<string, OutcomeRow>();
  if (ids.length === 0) return out;
  const rows = await db
    .selectFrom("night_sources")
    .select([...OUTCOME_COLUMNS])
    .where("source_id", "in", [...ids])
    .orderBy("night", "asc")
    .execute();
  for (const r of rows) out.set(r.source_id, r);
  return out;
}

/** The nights that ran, newest first. */
export async function recentNights(db: Db, count: number): Promise<string[]> {
  const rows = await db
    .selectFrom("nights")
    .select("night")
    .orderBy("night", "desc")
    .limit(count)
    .execute();
  return rows.map((r) => r.night);
}

/** One source's outcome rows from night `from` on; a night it was not checked is absent. */
export async function outcomeRowsSince(
  db: Db,
  sourceId: string,
  from: string,
): Promise<Map<string, OutcomeRow>> {
  const out = new Map<string, OutcomeRow>();
  const rows = await db
    .selectFrom("night_sources")
    .select([...OUTCOME_COLUMNS])
    .where("source_id", "=", sourceId)
    .where("night", ">=", from)
    .execute();
  for (const r of rows) out.set(r.night, r);
  return out;
}

/** A change to whether a source is in the catalog (`nor catalog import`'s diff, kept). */
export interface ListingChange {
  /** ISO instant of the import. */
  at: string;
  change: "added" | "retired" | "unretired";
}

/**
 * When a source was in the directory's catalog: its additions, retirements and returns, oldest
 * first (catalog_changes, by its index on entity_id and at). A night before it was listed (or
 * while it was retired) is not the checker's outage for it (P23).
 */
export async function listingChanges(db: Db, sourceId: string): Promise<ListingChange[]> {
  const rows = await db
    .selectFrom("catalog_changes")
    .select(["at", "change"])
    .where("entity_id", "=", sourceId)
    .where("entity", "=", "source")
    .where("change", "in", ["added", "retired", "unretired"])
    .orderBy("at")
    .orderBy("id")
    .execute();
  return rows.map((r) => ({ at: r.at, change: r.change as ListingChange["change"] }));
}
