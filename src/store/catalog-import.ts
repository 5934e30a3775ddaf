/**
 * The writes of `nor catalog import`, in one transaction: the rows as they stand are read,
 * the caller's plan (the diff, in `src/sources/catalog-import.ts`) decides what changes, and
 * each change is written with its line in catalog_changes. A retired row is only marked
 * (retired_at), never deleted, so its nights and records keep their history.
 */
import type { Db } from "./db.js";
import type { CatalogChangeKind, GovernmentRow, SourceRow } from "./schema/sources.js";
import { writeTxn } from "./write-txn.js";

/** An imported row as the diff sees it: its canonical catalog entry and whether it is retired. */
export interface CatalogEntryState {
  id: string;
  entry: string;
  retired_at: string | null;
}

export interface CatalogState {
  governments: CatalogEntryState[];
  sources: CatalogEntryState[];
}

type Stamps = "id" | "first_seen_at" | "updated_at" | "retired_at";
export type GovernmentFields = Omit<GovernmentRow, Stamps>;
export type SourceFields = Omit<SourceRow, Stamps>;

interface WriteBase {
  id: string;
  /** For "changed" (and an un-retire that also changed): the fields that differ. */
  fields?: string[];
}

/** One change to write: a retirement, or the row's new fields (added, changed, un-retired). */
export type CatalogWrite =
  | (WriteBase & { entity: "government" | "source"; change: "retired" })
  | (WriteBase & {
      entity: "government";
      change: Exclude<CatalogChangeKind, "retired">;
      row: GovernmentFields;
    })
  | (WriteBase & {
      entity: "source";
      change: Exclude<CatalogChangeKind, "retired">;
      row: SourceFields;
    });

export interface CatalogImportPlan<T> {
  writes: CatalogWrite[];
  result: T;
}

/**
 * Reads the catalog rows, asks `plan` what to write and writes it, all in one transaction;
 * a plan that throws leaves the store as it was.
 */
export async function writeCatalogImport<T>(
  db: Db,
  at: string,
  plan: (state: CatalogState) => CatalogImportPlan<T>,
): Promise<T> {
  // Reads, then writes: the write lock first (BEGIN IMMEDIATE on SQLite), so a night opening
  // alongside waits instead of failing with SQLITE_BUSY_SNAPSHOT.
  return writeTxn(db, async (tx) => {
    const governments = await tx
      .selectFrom("governments")
      .select(["id", "entry", "retired_at"])
      .execute();
    const sources = await tx.selectFrom("sources").select(["id", "entry", "retired_at"]).execute();
    const { writes, result } = plan({ governments, sources });
    for (const c of writes) {
      const table = c.entity === "government" ? "governments" : "sources";
      if (c.change === "retired") {
        await tx
          .updateTable(table)
          .set({ retired_at: at, updated_at: at })
          .where("id", "=", c.id)
          .execute();
      } else if (c.entity === "government") {
        if (c.change === "added")
          await tx
            .insertInto("governments")
            .values({ id: c.id, ...c.row, first_seen_at: at, updated_at: at, retired_at: null })
            .execute();
        else
          await tx
            .updateTable("governments")
            .set({ ...c.row, updated_at: at, retired_at: null })
            .where("id", "=", c.id)
            .execute();
      } else {
        if (c.change === "added")
          await tx
            .insertInto("sources")
            .values({ id: c.id, ...c.row, first_seen_at: at, updated_at: at, retired_at: null })
            .execute();
        else
          await tx
            .updateTable("sources")
            .set({ ...c.row, updated_at: at, retired_at: null })
            .where("id", "=", c.id)
            .execute();
      }
      await tx
        .insertInto("catalog_changes")
        .values({
          at,
          entity: c.entity,
          entity_id: c.id,
          change: c.change,
          fields: c.fields?.join(",") ?? null,
        })
        .execute();
    }
    return result;
  });
}
