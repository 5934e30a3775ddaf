/**
 * The writes of `nor catalog import`, in one transaction, a batch at a time: the caller (the
 * diff, in `src/sources/catalog-import.ts`) asks for the rows of a batch of ids as they stand,
 * decides what changes and hands the batch's writes back; each change is written with its
 * line in catalog_changes. Nothing here holds the whole catalog: a batch's rows are read by
 * id, added rows are inserted together, and only the ids of the rows in use are listed (for
 * the retirements). A retired row is only marked (retired_at), never deleted, so its nights
 * and records keep their history, unless the import takes it for renamed: then its history is
 * moved to its new id (`moveHistory`, P6), the retired row keeping only its catalog entry. A
 * caller that throws leaves the store as it was.
 */
import type { Db } from "./db.js";
import { dialectOf } from "./dialect-of.js";
import { sql } from "./kysely.js";
import { latestMarks } from "./marks.js";
import type { CatalogChangeKind, GovernmentRow, LeadRow, SourceRow } from "./schema/sources.js";
import { type Tx, writeTxn } from "./write-txn.js";

/** An imported row as the diff sees it: its canonical catalog entry and whether it is retired. */
export interface CatalogEntryState {
  id: string;
  entry: string;
  retired_at: string | null;
}

export type CatalogEntity = "government" | "source";

type Stamps = "id" | "first_seen_at" | "updated_at" | "retired_at" | "renamed_to";
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
   * Whether the source has a history of its own: a row under its id in any table a rename's
   * move writes (records, nights' outcomes, page reads, marks, flags, backfill, the night's copy
   * of its entry: a lookup each, on the tables' keys and index by source). A source the import
   * would take for another renamed must have none (P6).
   */
  hasHistory(id: string): Promise<boolean>;
  /**
   * P6: moves a renamed source's history from its old id to its new one (`to`, without a
   * history of its own: `hasHistory`): see `moveHistory`.
   */
  moveHistory(rename: Rename): Promise<void>;
  /**
   * Asked after the move: records under other ids first listed under a source this import put
   * back, and that had been renamed away (only those have any: `renamed_to` set), are named by
   * the source they are under from now on (`firstSourceIdsLetGo`). No other import reads the
   * records.
   */
  letFirstSourceIdsGo(): Promise<void>;
  /**
   * Records the stamp of the files this import read (src/sources/catalog/stamp.ts), or none
   * (null) when it cannot vouch for them: the rows and the stamp land together.
   */
  stamp(digest: string | null, importer: string): Promise<void>;
  /**
   * P24: `to` takes `from`'s marks when `from`'s latest says it is not read (`to` is read at the
   * address a person marked not read under `from`): true when it did and `to` is now not read
   * (marks already there stay: `to`'s own later decision, read, stays in force, and is false).
   */
  carryNotRead(from: string, to: string): Promise<boolean>;
}

/** A source whose id the catalog renamed: the id retired and the one added or un-retired. */
export interface Rename {
  from: string;
  to: string;
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
  /** Sources put back by this import that had been renamed away (`letFirstSourceIdsGo`). */
  const renamedBack: string[] = [];
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
          if (c.change === "unretired") {
            // Put back after a rename: the records first listed under it give its id back,
            // once the import's move is done (`letFirstSourceIdsGo`).
            const was = await tx
              .selectFrom("sources")
              .select("renamed_to")
              .where("id", "=", c.id)
              .executeTakeFirst();
            if (was?.renamed_to != null) renamedBack.push(c.id);
          }
          await tx
            .updateTable("sources")
            .set({ ...c.row, updated_at: at, retired_at: null, renamed_to: null })
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
    async hasHistory(id) {
      for (const q of historyLookups(tx, id))
        if ((await q.executeTakeFirst()) !== undefined) return true;
      return false;
    },
    async moveHistory(rename) {
      await moveHistory(tx, rename);
    },
    async letFirstSourceIdsGo() {
      for (const part of slices(renamedBack.splice(0))) {
        if (part.length > 0) await firstSourceIdsLetGo(tx, part).execute();
      }
    },
    async carryNotRead(from, to) {
      const latest = (await latestMarks(tx, [from])).get(from);
      if (latest === undefined || Number(latest.reading) !== 0) return false;
      // A parameter in a select list has no type of its own for PostgreSQL: said as text.
      const toId = sql<string>`cast(${to} as text)`;
      await tx
        .insertInto("marks")
        .columns(["source_id", "at", "made_at", "reading", "reason", "by", "night"])
        .expression((eb) =>
          eb
            .selectFrom("marks")
            .select([toId.as("source_id"), "at", "made_at", "reading", "reason", "by", "night"])
            .where("source_id", "=", from),
        )
        .onConflict((oc) => oc.doNothing())
        .execute();
      // P24: the later of both ids' decisions is in force: one put back whose own latest (read)
      // is later keeps it, and is not said to be marked not read with the retired one.
      const now = (await latestMarks(tx, [to])).get(to);
      return now !== undefined && Number(now.reading) === 0;
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
 * Whether a source has a history of its own (CatalogImportTx.hasHistory): a row in any table the
 * move writes (`moveHistory`: records, nights' outcomes, page reads, marks, flags, the backfill's
 * place, the night's copy of its entry, where its catalog URL moved permanently), each by its key or index by source
 * (test/web/query-plans.test.ts). An id with any of them is not taken for a rename: a mark or
 * flag it kept from an earlier time in the catalog would otherwise outlive the move and be
 * taken for the renamed list's (review-o10c M1).
 */
export function historyLookups(db: Db | Tx, id: string) {
  return (
    [
      "records",
      "night_sources",
      "page_reads",
      "marks",
      "flags",
      "backfill",
      "night_catalog",
      "source_moves",
    ] as const
  ).map((table) =>
    db.selectFrom(table).select(sql.lit(1).as("one")).where("source_id", "=", id).limit(1),
  );
}

/**
 * The rows a rename gives the new id whatever the new id holds (`moveHistory`), each table's by
 * its key or index by source (test/web/query-plans.test.ts): the records (each keeping the source
 * id it was first listed under, none when that is the new id again), the nights' outcomes, the
 * list's last read in full and the flags.
 */
export function movedRows(db: Db | Tx, { from, to }: Rename) {
  // A parameter alone has no type for PostgreSQL: said as text.
  const fromId = sql<string>`cast(${from} as text)`;
  const toId = sql<string>`cast(${to} as text)`;
  return [
    db
      .updateTable("records")
      .set({
        source_id: to,
        first_source_id: sql<string | null>`nullif(coalesce(first_source_id, ${fromId}), ${toId})`,
      })
      .where("source_id", "=", from),
    ...(["night_sources", "page_reads", "flags"] as const).map((table) =>
      db.updateTable(table).set({ source_id: to }).where("source_id", "=", from),
    ),
    // The archive's index of captures (not the WARC files): `nor reparse` of the new id reads
    // the pages the old one read (review-o10c C1).
    db.updateTable("captures").set({ source: to }).where("source", "=", from),
    // And what `nor archive forget` took out of it: no older copy is read as the list.
    db.updateTable("forgotten_copies").set({ source: to }).where("source", "=", from),
  ];
}

/**
 * One rename's move (CatalogImportTx.moveHistory): every row keyed by the old id's source id is
 * given the new id, a statement a table, in the import's transaction. Moved, not copied, so no
 * record is ever listed under two ids: the records (each keeping when it was first seen,
 * whether it was already listed and the id it was first listed under, and now the source id it
 * was first listed under, `first_source_id`, so its feed entry and calendar event keep their
 * names: web/public/feeds.ts itemId; none when that is the new id again, an id renamed back),
 * the nights' outcomes (the last outcome, a refusal too, the recent nights, the unreached-first
 * order and what counts as the list read before: P23, P7), the list's last read in full (a 304
 * counted from it, P12), the backfill's place, where its catalog URL moved permanently (P11), a person's marks (P24: a source marked not read
 * stays so, its rechecks on the same calendar, P25), the flags, and the night's copy of its
 * catalog entry. The new id has no row of its own in any of these tables (the import asked
 * `hasHistory`), so nothing of it is left to outlive the move. The archive's index of captures
 * follows too (`nor reparse` of the new id reads what the old one read; the WARC files are not
 * touched); the request log (the journal, written once) keeps the id each request was made for;
 * catalog_changes says the old id retired, the new one added (or un-retired), as for any import;
 * the old id's row keeps `renamed_to`, the new id.
 */
async function moveHistory(tx: Tx, { from, to }: Rename): Promise<void> {
  for (const q of movedRows(tx, { from, to })) await q.execute();
  // Keyed by source (with the time, for marks; with the catalog URL, for a page that moved
  // permanently, P11): the new id holds none (`hasHistory`).
  for (const table of ["backfill", "night_catalog", "marks", "source_moves"] as const)
    await tx.updateTable(table).set({ source_id: to }).where("source_id", "=", from).execute();
  // The old id remembers where it went (its page and notices say so: web/public/retired.tsx),
  // as does an id renamed to it before (A -> B -> C: A's points at C); the new id, in use, at
  // nothing.
  await tx.updateTable("sources").set({ renamed_to: to }).where("renamed_to", "=", from).execute();
  await tx.updateTable("sources").set({ renamed_to: to }).where("id", "=", from).execute();
  await tx.updateTable("sources").set({ renamed_to: null }).where("id", "=", to).execute();
}

/**
 * The records that carry one of these ids (added or put back in use by this import) as the
 * source id they were first listed under lose it: their feed entries and calendar events are
 * named by the source they are under from now on. Else a source put back beside the one its
 * history moved to would name its own records as the moved ones are named (review-o10c D1).
 * By the partial index on first_source_id (migration 027).
 */
export function firstSourceIdsLetGo(db: Db | Tx, ids: readonly string[]) {
  return db
    .updateTable("records")
    .set({ first_source_id: null })
    .where("first_source_id", "in", ids);
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
