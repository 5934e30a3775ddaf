import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { openStore, type StoreLocation } from "../../src/store/db.js";
import { leftAt, rawStore, storeFactories } from "./stores.js";

/**
 * A store that ran migration 021 as it was first written (already_listed without the index of
 * the records new by night), opened by this version: the index is there after (migration 023),
 * on SQLite and PostgreSQL, and a store 021 already gave it keeps its one index.
 */
const factories = storeFactories();

async function indexes(loc: StoreLocation): Promise<string[]> {
  const db = rawStore(loc);
  try {
    const rows =
      loc.kind === "sqlite"
        ? (
            await sql<{ name: string }>`select name from sqlite_master
              where type = 'index' and tbl_name = 'records'`.execute(db)
          ).rows
        : (
            await sql<{ name: string }>`select indexname as name from pg_indexes
              where tablename = 'records' and schemaname = current_schema()`.execute(db)
          ).rows;
    return rows.map((r) => r.name).sort();
  } finally {
    await db.destroy();
  }
}

describe.each(factories)("a store left by 021's first version ($name)", (f) => {
  it("P27: opened by this version, it has the index of records new by night (023); a store that had it keeps one", async () => {
    const loc = await f.fresh();
    await leftAt(loc, "022-record-first-id", async (db) => {
      await sql`drop index records_new_by_night`.execute(db);
    });
    expect(await indexes(loc)).not.toContain("records_new_by_night");
    const s = await openStore(loc);
    await s.close();
    const after = await indexes(loc);
    expect(after.filter((n) => n === "records_new_by_night")).toHaveLength(1);
    // A store 021 gave the index: opened again, the same indexes.
    const again = await openStore(loc);
    await again.close();
    expect(await indexes(loc)).toEqual(after);
  }, 60_000);
});
