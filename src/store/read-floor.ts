/**
 * The floors of the directory's reads (bench/directory.ts): the least the store must do to
 * answer a search, or to list a source's records, measured beside the real reads
 * (src/store/read/search.ts, directory.ts). Nothing of the product uses them; they live here
 * because every piece of SQL does (as durable-floor.ts does for the engine's bench).
 */
import type { Db } from "./db.js";
import { dialectOf } from "./dialect-of.js";
import { sql } from "./kysely.js";

/** Records whose title holds a word beginning `prefix`, counted from the full-text index alone. */
export async function countTitleMatches(db: Db, prefix: string): Promise<number> {
  const r =
    dialectOf(db) === "postgres"
      ? await sql<{
          n: string;
        }>`select count(*) as n from records where title_words @@ to_tsquery('simple', ${`${prefix}:*`})`.execute(
          db,
        )
      : await sql<{
          n: number;
        }>`select count(*) as n from records_fts where records_fts match ${`${prefix}*`}`.execute(
          db,
        );
  return Number(r.rows[0]?.n ?? 0);
}

/** `limit` of a source's records in key order: its rows read by their primary key. */
export async function recordsByKey(db: Db, sourceId: string, limit: number): Promise<number> {
  const rows = await db
    .selectFrom("records")
    .select(["record_id", "title", "date", "url", "kind", "first_seen_night", "first_seen_at"])
    .where("source_id", "=", sourceId)
    .orderBy("record_id")
    .limit(limit)
    .execute();
  return rows.length;
}

/** Statistics brought up to date, as autovacuum (PostgreSQL) would after a large load. */
export async function analyzeStore(db: Db): Promise<void> {
  await sql`analyze`.execute(db);
}

/**
 * Every record made new on record (none already listed), as a store is after nights of new
 * records: the bench loads a store by each source's first read, whose records are already listed.
 */
export async function everyRecordNew(db: Db): Promise<void> {
  await db.updateTable("records").set({ already_listed: 0 }).execute();
}
