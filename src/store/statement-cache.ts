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
