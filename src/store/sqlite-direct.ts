/**
 * The night's hot statements on SQLite, run on the connection without kysely's executor.
 *
 * kysely runs every query through its executor: a connection asked of the driver (a mutex, a
 * promise), the query handed to it, the connection given back (another). better-sqlite3 runs a
 * statement synchronously, so for the prepared statements a request runs (prepared.ts: a dozen
 * or so) those hops were most of their cost: 12 µs a lookup where the statement itself takes 4
 * (bench: a select by key on the captures table).
 *
 * A statement goes straight to the connection only where kysely would have run it at once, on
 * the same connection, in the same state:
 * - inside a write transaction of writeTxn's (write-txn.ts), whose holder owns the connection
 *   for the transaction's whole length: `heldBy` marks the handle writeTxn runs its work on;
 * - on the store itself, only while nobody holds the connection (`held`, counted at the
 *   driver) and no transaction is open on it: a statement run then is a transaction of its
 *   own, exactly as kysely would run it, only sooner. While someone holds it (a transaction
 *   between two statements, a stream being read), a write goes through kysely and waits its
 *   turn; a read (a select) goes to the store's read-only connection (`reads`) and reads the
 *   last committed state at once. So a read sees every write that had committed when it ran,
 *   from any process, but not a write this process has started and not yet seen commit (its
 *   promise not settled): await a write before reading what it wrote. A read on the store
 *   from inside a write transaction does not see that transaction's own writes: read on the
 *   transaction's handle.
 * The statement, its parameters (U+0000 mapped, no-nul.ts) and its result are exactly what
 * kysely's SQLite connection would have used and given.
 */
import type SqliteDatabase from "better-sqlite3";
import type { DatabaseConnection, Driver, QueryResult } from "kysely";
import { parametersWithoutNul } from "./no-nul.js";
import type { StatementCache } from "./statement-cache.js";

export class SqliteDirect {
  /**
   * Connections asked of the driver and not yet given back, counted from the moment they are
   * asked for: kysely takes its lock when a query is issued, and a statement issued after it
   * must wait its turn behind that one, as it did through kysely.
   */
  held = 0;
  readonly #sqlite: SqliteDatabase.Database;
  readonly #cache: StatementCache;
  /** Opens the read-only connection of `reads` (none given: reads wait their turn). */
  readonly #openReader: (() => SqliteDirect) | undefined;
  /** The read-only connection, once opened; null when it could not be. */
  #reader: SqliteDirect | null | undefined;

  constructor(
    sqlite: SqliteDatabase.Database,
    cache: StatementCache,
    openReader?: () => SqliteDirect,
  ) {
    this.#sqlite = sqlite;
    this.#cache = cache;
    this.#openReader = openReader;
  }

  /**
   * Where a read on the store may run now while the connection is taken (a group commit's
   * transaction open on it, or a statement waiting its turn): a read-only connection of its
   * own to the same file, opened the first time it is wanted. In WAL mode it reads the last
   * committed state, the store's durable truth at that moment, without waiting for the
   * transaction under way to end; through kysely the read waited for it, then read the state
   * that transaction left. Nothing decided from a read alone sends a request: the journal's
   * admission, in a write transaction, decides that (journal.ts). Undefined: none can be had
   * (the store is closed, or the connection could not be opened); the read waits its turn.
   */
  reads(): SqliteDirect | undefined {
    if (!this.#sqlite.open) return undefined;
    if (this.#reader === undefined) {
      // A connection that cannot be had (the file replaced since, no descriptor left) is not
      // asked for again: reads wait their turn, as they did before there was one.
      try {
        this.#reader = this.#openReader?.() ?? null;
      } catch {
        this.#reader = null;
      }
    }
    return this.#reader ?? undefined;
  }

  /** Closes the read-only connection, if one was opened (the store is closing). */
  closeReads(): void {
    const reader = this.#reader;
    this.#reader = null;
    if (reader) reader.#cache.close();
  }

  /**
   * Whether a statement run now would be a transaction of its own, as kysely would run it, in
   * the order it was issued: nobody holds or waits for the connection, none is open on it, and
   * the store is not closed (then kysely's error is the one given).
   */
  get free(): boolean {
    return this.held === 0 && this.#sqlite.open && !this.#sqlite.inTransaction;
  }

  /** The driver, its connections counted while they are out. */
  count(driver: Driver): Driver {
    const acquire = driver.acquireConnection.bind(driver);
    const release = driver.releaseConnection.bind(driver);
    driver.acquireConnection = async (): Promise<DatabaseConnection> => {
      this.held++;
      try {
        return await acquire();
      } catch (err) {
        this.held--;
        throw err;
      }
    };
    driver.releaseConnection = async (conn: DatabaseConnection): Promise<void> => {
      this.held--;
      await release(conn);
    };
    return driver;
  }

  /** As kysely's SqliteConnection.executeQuery (under no-nul.ts), synchronously. */
  execute<R>(sql: string, values: readonly unknown[]): QueryResult<R> {
    const parameters = parametersWithoutNul(values) as unknown[];
    const stmt = this.#cache.prepare(sql);
    if (stmt.reader) return { rows: this.#cache.rows(sql, parameters, stmt) as R[] };
    const { changes, lastInsertRowid } = stmt.run(parameters);
    return {
      numAffectedRows: changes !== undefined && changes !== null ? BigInt(changes) : undefined,
      insertId:
        lastInsertRowid !== undefined && lastInsertRowid !== null
          ? BigInt(lastInsertRowid)
          : undefined,
      rows: [],
    } as QueryResult<R>;
  }
}

/** Each SQLite store's root handle, and each handle a write transaction runs its work on. */
const stores = new WeakMap<object, SqliteDirect>();
const holders = new WeakMap<object, SqliteDirect>();

export function registerStore(db: object, direct: SqliteDirect): void {
  stores.set(db, direct);
}

/** The store `db` belongs to, when `db` is a SQLite store's root handle. */
export function directOfStore(db: object): SqliteDirect | undefined {
  return stores.get(db);
}

/** Marks `handle` as holding the connection of `direct`, for the length of a transaction. */
export function heldBy(handle: object, direct: SqliteDirect): void {
  holders.set(handle, direct);
}

/** The transaction on `handle` is over: its statements go through kysely again. */
export function letGo(handle: object): void {
  holders.delete(handle);
}

/** Where a statement on `db` may go straight to the connection now; undefined: through kysely. */
export function directNow(db: object): SqliteDirect | undefined {
  const held = holders.get(db);
  if (held !== undefined) return held;
  const root = stores.get(db);
  return root?.free ? root : undefined;
}

/**
 * Where a read on `db`, the store itself (not a transaction of it), may run now when its
 * connection is taken: the store's read-only connection (SqliteDirect.reads); undefined:
 * through kysely, in its turn.
 */
export function readsNow(db: object): SqliteDirect | undefined {
  return stores.get(db)?.reads();
}
