/**
 * The writes of `nor catalog import`, in one transaction, a batch at a time: the caller (the
 * diff, in `src/sources/catalog-import.ts`) asks for the rows of a batch of ids as they stand,
 * decides what changes and hands the batch's writes back; each change is written with its
 * line in catalog_changes. Nothing here holds the whole catalog: a batch's rows are read by
 * id, added rows are inserted together, and only the ids of the rows in use are listed (for
 * the retirements). A retired row is only marked (retired_at), never deleted, so its nights
 * and records keep their history. A caller that throws leaves the store as it was.
 */
import type { Db } from "./db.js";
import { dialectOf } from "./dialect-of.js";
import { sql } from "./kysely.js";
import type { CatalogChangeKind, GovernmentRow, LeadRow, SourceRow } from "./schema/sources.js";
import { type Tx, writeTxn } from "./write-txn.js";

/** An imported row as the diff sees it: its canonical catalog entry and whether it is retired. */
export interface CatalogEntryState {
  id: string;
  entry: string;
  retired_at: string | null;
}

export type CatalogEntity = "government" | "source";

type Stamps = "id" | "first_seen_at" | "updated_at" | "retired_at";
export type GovernmentFields = Omit<GovernmentRow, Stamps>;
export type SourceFields = Omit<SourceRow, Stamps>;
/** A lead to write: its fields, its place in the catalog, and since when it is listed. */
export type LeadFields = Omit<LeadRow, "id">;
/** A lead as it stands: what says it is the same lead, and since when it is listed. */
export type LeadState = Pick<LeadRow, "government_id" | "records" | "url" | "first_seen_at">;

interface WriteBase {
  id: string;
  /** For "changed" (and an un-retire that also changed): the fields that differ. */
  fields?: string[];
}

/** One change to write: a retirement, or the row's new fields (added, changed, un-retired). */
export type CatalogWrite =
  | (WriteBase & { entity: CatalogEntity; change: "retired" })
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

/** The import's view of the store, inside its transaction. */
export interface CatalogImportTx {
  /** Ids of the rows in use (not retired), in id order. */
  activeIds(entity: CatalogEntity): Promise<string[]>;
  /** The rows of these ids that exist, retired or not. */
  entries(entity: CatalogEntity, ids: readonly string[]): Promise<CatalogEntryState[]>;
  /** Writes a batch of changes, each with its catalog_changes line. */
  write(writes: readonly CatalogWrite[]): Promise<void>;
  /** The leads as they stand, then none: the import lists the catalog's anew (`addLeads`). */
  takeLeads(): Promise<LeadState[]>;
  addLeads(rows: readonly LeadFields[]): Promise<void>;
  /**
   * Records the stamp of the files this import read (src/sources/catalog/stamp.ts), or none
   * (null) when it cannot vouch for them: the rows and the stamp land together.
   */
  stamp(digest: string | null, importer: string): Promise<void>;
}

/** Rows per statement: well under SQLite's 32,766 and PostgreSQL's 65,535 parameters. */
const ROWS_PER_STATEMENT = 500;

function tableOf(entity: CatalogEntity): "governments" | "sources" {
  return entity === "government" ? "governments" : "sources";
}

function slices<T>(list: readonly T[], size = ROWS_PER_STATEMENT): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

function importTx(tx: Tx, at: string): CatalogImportTx {
  return {
    async activeIds(entity) {
      const rows = await tx
        .selectFrom(tableOf(entity))
        .select("id")
        .where("retired_at", "is", null)
        .orderBy("id")
        .execute();
      return rows.map((r) => r.id);
    },
    async entries(entity, ids) {
      const out: CatalogEntryState[] = [];
      for (const part of slices(ids)) {
        if (part.length === 0) continue;
        const rows = await tx
          .selectFrom(tableOf(entity))
          .select(["id", "entry", "retired_at"])
          .where("id", "in", part)
          .execute();
        out.push(...rows);
      }
      return out;
    },
    async write(writes) {
      const stamps = { first_seen_at: at, updated_at: at, retired_at: null };
      const addedGovs = [];
      const addedSrcs = [];
      const retired: Record<CatalogEntity, string[]> = { government: [], source: [] };
      for (const c of writes) {
        if (c.change === "retired") retired[c.entity].push(c.id);
        else if (c.change === "added") {
          if (c.entity === "government") addedGovs.push({ id: c.id, ...c.row, ...stamps });
          else addedSrcs.push({ id: c.id, ...c.row, ...stamps });
        } else if (c.entity === "government") {
          await tx
            .updateTable("governments")
            .set({ ...c.row, updated_at: at, retired_at: null })
            .where("id", "=", c.id)
            .execute();
        } else {
          await tx
            .updateTable("sources")
            .set({ ...c.row, updated_at: at, retired_at: null })
            .where("id", "=", c.id)
            .execute();
        }
      }
      for (const rows of slices(addedGovs))
        await tx.insertInto("governments").values(rows).execute();
      for (const rows of slices(addedSrcs)) await tx.insertInto("sources").values(rows).execute();
      for (const entity of ["government", "source"] as const) {
        for (const ids of slices(retired[entity])) {
          await tx
            .updateTable(tableOf(entity))
            .set({ retired_at: at, updated_at: at })
            .where("id", "in", ids)
            .execute();
        }
      }
      const log = writes.map((c) => ({
        at,
        entity: c.entity,
        entity_id: c.id,
        change: c.change,
        fields: c.fields?.join(",") ?? null,
      }));
      for (const rows of slices(log)) await tx.insertInto("catalog_changes").values(rows).execute();
    },
    async takeLeads() {
      const rows = await tx
        .selectFrom("leads")
        .select(["government_id", "records", "url", "first_seen_at"])
        .execute();
      await tx.deleteFrom("leads").execute();
      return rows;
    },
    async addLeads(rows) {
      for (const part of slices(rows)) {
        if (part.length > 0) await tx.insertInto("leads").values(part).execute();
      }
    },
    async stamp(digest, importer) {
      await tx.deleteFrom("catalog_stamp").execute();
      await tx
        .insertInto("catalog_stamp")
        .values({ id: 1, digest, stamped_at: at, importer })
        .execute();
    },
  };
}

/**
 * Runs the import in one transaction: everything `work` writes lands together, or (when it
 * throws: a refused retirement, a file changed while read) nothing does.
 */
export async function withCatalogImport<T>(
  db: Db,
  at: string,
  work: (tx: CatalogImportTx) => Promise<T>,
): Promise<T> {
  // Reads, then writes: the write lock first (BEGIN IMMEDIATE on SQLite), so a night opening
  // alongside waits instead of failing with SQLITE_BUSY_SNAPSHOT.
  return writeTxn(db, async (tx) => {
    // PostgreSQL: one import at a time, the next one reading only after the last committed
    // (READ COMMITTED: each statement sees what committed before it). Otherwise an import
    // that read the sources in use before another committed would record its stamp over a
    // source only the other catalog has, left in use, and every night of its files would run
    // it without reading them. The lock conflicts with itself and with writes to the table,
    // not with reading it (a night's `sourcesInUse`).
    if (dialectOf(db) === "postgres")
      await sql`lock table catalog_stamp in share row exclusive mode`.execute(tx);
    return work(importTx(tx, at));
  });
}
