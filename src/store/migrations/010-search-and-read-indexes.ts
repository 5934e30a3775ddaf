import type { Kysely } from "kysely";
import { dialectOf } from "../dialect-of.js";
import { sql } from "../kysely.js";

/**
 * Full-text search over governments, sources and record titles, and the indexes the
 * directory's and the console's reads use (src/store/read).
 *
 * SQLite: one FTS5 table per searched table, with external content (the rows stay where they
 * are; FTS5 keeps only its index), kept in step by triggers, so whoever writes a record (the
 * night, a reparse, an import) needs to know nothing about search. The content tables have no
 * INTEGER PRIMARY KEY, so a manual VACUUM may renumber their rowids: after one, run
 * `INSERT INTO records_fts(records_fts) VALUES('rebuild')` (and the same for the other two).
 * `nor` itself never runs VACUUM.
 *
 * PostgreSQL: GIN indexes over `to_tsvector('simple', …)` of the same columns; the queries in
 * src/store/read/search.ts repeat these expressions exactly, so the planner uses the indexes.
 * (Since 018-record-instant, the records' one is a stored column of the title's words instead,
 * and all three are made of words as SQLite's tokenizer makes them: 018's `pgWords`.)
 * The 'simple' configuration does no stemming, like FTS5's unicode61 tokenizer.
 */

const FTS = [
  { table: "records", fts: "records_fts", columns: ["title"] },
  { table: "governments", fts: "governments_fts", columns: ["name", "county", "id"] },
  { table: "sources", fts: "sources_fts", columns: ["name", "records", "id"] },
] as const;

/** The tsvector expression PostgreSQL indexes and src/store/read/search.ts queries. */
export const PG_VECTOR: Record<(typeof FTS)[number]["table"], string> = {
  records: "to_tsvector('simple', title)",
  governments:
    "to_tsvector('simple', coalesce(name, '') || ' ' || coalesce(county, '') || ' ' || id)",
  sources: "to_tsvector('simple', coalesce(name, '') || ' ' || records || ' ' || id)",
};

export async function up(db: Kysely<unknown>): Promise<void> {
  if (dialectOf(db) === "sqlite") {
    for (const f of FTS) {
      const cols = f.columns.join(", ");
      const news = f.columns.map((c) => `new.${c}`).join(", ");
      const olds = f.columns.map((c) => `old.${c}`).join(", ");
      await sql
        .raw(
          `CREATE VIRTUAL TABLE IF NOT EXISTS ${f.fts} USING fts5(${cols}, content='${f.table}', content_rowid='rowid', tokenize='unicode61 remove_diacritics 2')`,
        )
        .execute(db);
      await sql
        .raw(
          `CREATE TRIGGER IF NOT EXISTS ${f.fts}_ai AFTER INSERT ON ${f.table} BEGIN INSERT INTO ${f.fts}(rowid, ${cols}) VALUES (new.rowid, ${news}); END`,
        )
        .execute(db);
      await sql
        .raw(
          `CREATE TRIGGER IF NOT EXISTS ${f.fts}_ad AFTER DELETE ON ${f.table} BEGIN INSERT INTO ${f.fts}(${f.fts}, rowid, ${cols}) VALUES ('delete', old.rowid, ${olds}); END`,
        )
        .execute(db);
      await sql
        .raw(
          `CREATE TRIGGER IF NOT EXISTS ${f.fts}_au AFTER UPDATE ON ${f.table} BEGIN INSERT INTO ${f.fts}(${f.fts}, rowid, ${cols}) VALUES ('delete', old.rowid, ${olds}); INSERT INTO ${f.fts}(rowid, ${cols}) VALUES (new.rowid, ${news}); END`,
        )
        .execute(db);
      await sql.raw(`INSERT INTO ${f.fts}(${f.fts}) VALUES ('rebuild')`).execute(db);
    }
  } else {
    for (const f of FTS) {
      await sql
        .raw(
          `CREATE INDEX IF NOT EXISTS ${f.fts} ON ${f.table} USING gin ((${PG_VECTOR[f.table]}))`,
        )
        .execute(db);
    }
  }
  // "What is new" windows read by night (records_by_night exists); upcoming meetings by date.
  await db.schema
    .createIndex("records_by_date")
    .ifNotExists()
    .on("records")
    .columns(["date"])
    .execute();
  // The console's overview: requests per site on one night, without reading the whole log.
  await db.schema
    .createIndex("request_log_night_site")
    .ifNotExists()
    .on("request_log")
    .columns(["night", "site", "bytes"])
    .execute();
  // P27: the log searched by source within a time window.
  await db.schema
    .createIndex("request_log_source_started_at")
    .ifNotExists()
    .on("request_log")
    .columns(["source", "started_at"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("request_log_source_started_at").ifExists().execute();
  await db.schema.dropIndex("request_log_night_site").ifExists().execute();
  await db.schema.dropIndex("records_by_date").ifExists().execute();
  for (const f of FTS) {
    if (dialectOf(db) === "sqlite") {
      for (const t of ["ai", "ad", "au"]) {
        await sql.raw(`DROP TRIGGER IF EXISTS ${f.fts}_${t}`).execute(db);
      }
      await sql.raw(`DROP TABLE IF EXISTS ${f.fts}`).execute(db);
    } else {
      await sql.raw(`DROP INDEX IF EXISTS ${f.fts}`).execute(db);
    }
  }
}
