import type { Kysely } from "kysely";
import { sql } from "../kysely.js";
import { columnsOf } from "./columns.js";

/**
 * P7, P24: a person's `nor backfill restart` (or the console's button) kept with who and when
 * (`restarted_by`, `restarted_at`, the latest), and counted (`restarts`): a night's save of a
 * backfill is written only while the count is the one the night read, so a restart made while a
 * night is under way is never overwritten by that night's save (a second decision not lost).
 * Existing rows: never restarted (0, nulls).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const has = await columnsOf(db, "backfill");
  if (!has.includes("restarts"))
    await db.schema
      .alterTable("backfill")
      .addColumn("restarts", "integer", (c) => c.notNull().defaultTo(sql`0`))
      .execute();
  if (!has.includes("restarted_at"))
    await db.schema.alterTable("backfill").addColumn("restarted_at", "text").execute();
  if (!has.includes("restarted_by"))
    await db.schema.alterTable("backfill").addColumn("restarted_by", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const c of ["restarted_by", "restarted_at", "restarts"])
    await db.schema.alterTable("backfill").dropColumn(c).execute();
}
