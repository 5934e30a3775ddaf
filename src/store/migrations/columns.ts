import type { Kysely } from "kysely";
import { dialectOf } from "../dialect-of.js";
import { sql } from "../kysely.js";

/**
 * A table's column names as the store has them now (not a migration: a helper of those that add
 * a column only when it is missing, so a store put back from before them is mended alike).
 */
export async function columnsOf(db: Kysely<unknown>, table: string): Promise<string[]> {
  const rows =
    dialectOf(db) === "postgres"
      ? await sql<{
          name: string;
        }>`select column_name as name from information_schema.columns where table_schema = current_schema() and table_name = ${table}`.execute(
          db,
        )
      : await sql<{ name: string }>`select name from pragma_table_xinfo(${table})`.execute(db);
  return rows.rows.map((r) => r.name);
}
