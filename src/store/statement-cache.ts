/**
 * Statements prepared once. kysely's SQLite driver calls `prepare(sql)` for every query it
 * runs, and better-sqlite3 compiles the SQL anew each time (sqlite3_prepare_v3): for the
 * night's handful of query shapes, run thousands of times, that compiling was a large share of
 * the engine's CPU per request. This wrapper hands kysely the same Statement for the same SQL
 * text, from a bounded least-recently-used cache.
 *
 * Why it is safe: a better-sqlite3 Statement is a reusable compiled program; its parameters
 * are bound at each run (`all(params)`, `run(params)`), and SQLite re-prepares it by itself
 * when the schema changed since (a migration). The one state a Statement holds between calls
 * is an open iterator (kysely's `stream()`): a Statement that is `busy` is never handed out
 * again until it is done; such a caller gets a fresh, uncached one instead.
 */
import type SqliteDatabase from "better-sqlite3";
import type { SqliteDatabase as KyselySqliteDatabase, SqliteStatement } from "kysely";

/**
 * Enough for every query shape the store runs (about a hundred), with room for the variable
 * ones (`in (?, ?, …)` of several lengths); beyond it the least recently used is dropped.
 */
export const STATEMENT_CACHE_SIZE = 512;

export class StatementCache implements KyselySqliteDatabase {
  readonly #db: SqliteDatabase.Database;
  readonly #max: number;
  /** Insertion order is recency order: a hit is moved to the end, the first entry is oldest. */
  readonly #cache = new Map<string, SqliteDatabase.Statement>();
  readonly #onClose: (() => void)[] = [];
  /**
   * The function that makes a statement's raw rows objects (`rows`), and, for a statement whose
   * columns a `*` names, the schema version its names were read under; null: none can.
   */
  readonly #builders = new WeakMap<
    SqliteDatabase.Statement,
    { build: RowBuilder; schema: number | undefined } | null
  >();
  /** `pragma schema_version`, prepared the first time it is asked. */
  #version: SqliteDatabase.Statement | undefined;

  constructor(db: SqliteDatabase.Database, max = STATEMENT_CACHE_SIZE) {
    if (!Number.isInteger(max) || max < 1)
      throw new RangeError(`statement cache size must be a positive integer, got ${max}`);
    this.#db = db;
    this.#max = max;
  }

  prepare(sql: string): SqliteStatement {
    const hit = this.#cache.get(sql);
    if (hit !== undefined) {
      // An iterator is still open on it (a stream not yet drained): not shareable now.
      if (hit.busy) return this.#db.prepare(sql);
      this.#cache.delete(sql);
      this.#cache.set(sql, hit);
      return hit;
    }
    const stmt = this.#db.prepare(sql);
    this.#cache.set(sql, stmt);
    if (this.#cache.size > this.#max) {
      const oldest = this.#cache.keys().next().value;
      if (oldest !== undefined) this.#cache.delete(oldest);
    }
    return stmt;
  }

  /**
   * Reading statements run for their rows as plain objects, each built by a function made once
   * for the statement's columns (`rowBuilder`), from the row as better-sqlite3 gives it in raw
   * mode (an array). better-sqlite3's own rows are built a column at a time, each name looked up
   * in V8's string table and set as a new property (a map transition per column, a row of 19
   * columns 4 µs here), where one object literal of a fixed shape costs about half. The rows are
   * equal to the ones `all` gives (the same keys, in the same order, the same values).
   */
  rows(
    sql: string,
    parameters: readonly unknown[],
    prepared: SqliteStatement = this.prepare(sql),
  ): Record<string, unknown>[] {
    const stmt = prepared as SqliteDatabase.Statement;
    let made = this.#builders.get(stmt);
    if (made === undefined) {
      const build = rowBuilder(stmt.columns().map((c) => c.name));
      // A `*` leaves the names to the schema: they are taken only from a run the schema did not
      // change under (below), never from the statement as first prepared.
      made = build ? { build, schema: STAR.test(sql) ? Number.NaN : undefined } : null;
      this.#builders.set(stmt, made);
    }
    if (made === null) return stmt.all(parameters as unknown[]) as Record<string, unknown>[];
    const before = made.schema !== undefined ? this.#schemaVersion() : 0;
    // The same compiled statement kysely is handed, in raw mode for this run only.
    stmt.raw(true);
    let raw: unknown[][];
    try {
      raw = stmt.all(parameters as unknown[]) as unknown[][];
    } finally {
      stmt.raw(false);
    }
    if (made.schema !== undefined) {
      // Columns by `*`: the schema may have changed since the builder was made (a migration of
      // another process: a column added, dropped, renamed, or the table made anew in another
      // order), and SQLite has then prepared the statement again. Its builder holds only for
      // the schema version it was made under, and only if that version held for the whole run;
      // otherwise it is made anew from this run's columns and the rows read as objects.
      const after = this.#schemaVersion();
      if (before !== after || after !== made.schema) {
        const build = rowBuilder(stmt.columns().map((c) => c.name));
        this.#builders.set(
          stmt,
          build ? { build, schema: before === after ? after : Number.NaN } : null,
        );
        return stmt.all(parameters as unknown[]) as Record<string, unknown>[];
      }
    }
    const { build } = made;
    const out = new Array<Record<string, unknown>>(raw.length);
    for (let i = 0; i < raw.length; i++) out[i] = build(raw[i] as unknown[]);
    return out;
  }

  /** The connection's schema version (SQLite's `schema_version`: it changes with every schema change). */
  #schemaVersion(): number {
    this.#version ??= this.#db.prepare("pragma schema_version").pluck();
    return this.#version.get() as number;
  }

  /** Statements cached now (for tests). */
  get size(): number {
    return this.#cache.size;
  }

  /** `fn` runs when the store's connection closes, before it does. */
  onClose(fn: () => void): void {
    this.#onClose.push(fn);
  }

  close(): void {
    for (const fn of this.#onClose.splice(0)) fn();
    this.#cache.clear();
    this.#db.close();
  }
}

type RowBuilder = (row: unknown[]) => Record<string, unknown>;

/** A `*` not written as `count(*)`: the statement's column names are the schema's, not its text's. */
const STAR = /(?<!\()\*/;

/**
 * A function making one raw row (values in column order) an object keyed by column name, as
 * better-sqlite3 would have made it: a later column of the same name wins, in the first one's
 * place. Undefined for a name an object literal would not take as a plain key (`__proto__` sets
 * the prototype there): such a statement's rows are read as objects by better-sqlite3.
 */
export function rowBuilder(names: readonly string[]): RowBuilder | undefined {
  if (names.includes("__proto__")) return undefined;
  const fields = names.map((n, i) => `${JSON.stringify(n)}: r[${i}]`).join(", ");
  // The column names become the literal's keys, as JSON string literals (never code); the body
  // is made once per statement.
  return new Function("r", `return { ${fields} };`) as RowBuilder;
}
