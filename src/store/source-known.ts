import type { Db } from "./db.js";

/** Whether this store knows a source by that id: imported (retired ones too) or in a night's catalog. */
export async function sourceKnown(db: Db, id: string): Promise<boolean> {
  const imported = await db
    .selectFrom("sources")
    .select("id")
    .where("id", "=", id)
    .executeTakeFirst();
  if (imported) return true;
  const listed = await db
    .selectFrom("night_catalog")
    .select("source_id")
    .where("source_id", "=", id)
    .executeTakeFirst();
  return listed !== undefined;
}
