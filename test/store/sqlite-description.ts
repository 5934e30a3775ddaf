import { join } from "node:path";
import Sqlite from "better-sqlite3";

/**
 * All that says what a SQLite store is, read from its file by a connection of its own: every
 * entry of sqlite_master (tables, indexes, triggers, FTS5 tables and their shadow tables, as
 * SQL), the PRAGMAs that are kept in the file (user_version, application_id, journal_mode,
 * page_size, auto_vacuum, encoding) and every table's rows, kysely_migration's timestamps left
 * out (when each migration ran). Not in it: where each table's pages are (rootpage), the
 * schema's change counter (schema_version) and free pages, which say how the file came to be,
 * not what it holds.
 */
export function describeSqliteStore(dir: string): unknown {
  const db = new Sqlite(join(dir, "nor.db"), { readonly: true, fileMustExist: true });
  try {
    const schema = db
      .prepare("select type, name, tbl_name, sql from sqlite_master order by 1, 2")
      .all() as { type: string; name: string }[];
    const pragmas = Object.fromEntries(
      [
        "user_version",
        "application_id",
        "journal_mode",
        "page_size",
        "auto_vacuum",
        "encoding",
      ].map((p) => [p, db.pragma(p, { simple: true })]),
    );
    const rows: Record<string, unknown[]> = {};
    for (const t of schema.filter((r) => r.type === "table")) {
      const sqlOf = (db
        .prepare("select sql from sqlite_master where name = ?")
        .pluck()
        .get(t.name) ?? "") as string;
      // A virtual table's rows are its shadow tables', read as themselves.
      if (/^create virtual table/i.test(sqlOf)) continue;
      // In an order of their own (a WITHOUT ROWID table has no rowid to order by).
      const all = (db.prepare(`select * from "${t.name}"`).all() as Record<string, unknown>[])
        .map(
          (r) =>
            [JSON.stringify(r, (_k, v) => (typeof v === "bigint" ? String(v) : v)), r] as const,
        )
        .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
        .map(([, r]) => r);
      rows[t.name] =
        t.name === "kysely_migration" ? all.map((r) => ({ ...r, timestamp: "(when)" })) : all;
    }
    return { schema, pragmas, rows };
  } finally {
    db.close();
  }
}
