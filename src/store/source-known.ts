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

/** A source a catalog import retired: read by no night, so a person's change to it is refused. */
export interface Retired {
  kind: "retired";
  source: string;
  at: string;
  renamedTo?: string;
}

/** The refusal for a source whose `sources` row says it was retired (and renamed), if it was. */
export function retiredOf(
  source: string,
  row: { retired_at: string | null; renamed_to: string | null } | undefined,
): Retired | undefined {
  if (!row?.retired_at) return undefined;
  return {
    kind: "retired",
    source,
    at: row.retired_at,
    ...(row.renamed_to ? { renamedTo: row.renamed_to } : {}),
  };
}
