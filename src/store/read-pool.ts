/**
 * Reads off the event loop. better-sqlite3 runs a statement on the calling thread and returns
 * only when it is done, so one slow read in the web server (a night's report over a million
 * log rows) would stop every other request, the public pages included, until it ends.
 *
 * On SQLite the web's reads therefore go to worker threads (src/store/read-worker.ts), each
 * with its own read-only connection to the same file: WAL lets readers work beside the
 * writer, and the main thread only waits for a message. The pool is a kysely dialect, so the
 * read models (src/store/read/…) run unchanged over it; a reader is leased per query (or per
 * transaction) like any connection. Writes stay on the store's own connection.
 *
 * On PostgreSQL the driver (pg) is asynchronous already, so nothing waits on the event loop;
 * what is shared there is connections. The public pages and the console each read through a
 * pool of their own (PUBLIC_PG_CONNECTIONS, CONSOLE_PG_CONNECTIONS), apart from the store's pool
 * that writes, so the console's biggest reads hold at most the console's connections and a public
 * page always finds one of its own.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type {
  DatabaseConnection,
  DatabaseIntrospector,
  Dialect,
  DialectAdapter,
  Driver,
  QueryCompiler,
  QueryResult,
} from "kysely";
import { NorError } from "../errors.js";
import { type Db, openPostgresPool, type StoreLocation } from "./db.js";
import {
  CompiledQuery,
  Kysely,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  sql,
} from "./kysely.js";
import type { ReadReply, ReadRequest, ReadWorkerData } from "./read-worker.js";
import type { Database } from "./schema/index.js";

/** Readers for the public pages: two, so a page's parallel reads run side by side. */
export const PUBLIC_READERS = 2;
/** Readers for the console: its own, so its biggest reads never queue a public page. */
export const CONSOLE_READERS = 1;
/** PostgreSQL: connections for the public pages' reads (as many as the store's own pool). */
export const PUBLIC_PG_CONNECTIONS = 4;
/** PostgreSQL: connections for the console's reads, its heaviest included; never the public's. */
export const CONSOLE_PG_CONNECTIONS = 2;

export interface ReadPoolOptions {
  /** Worker threads, each with one read-only connection (default 1). */
  readers?: number;
  /** For tests: see ReadWorkerData.hold (a SharedArrayBuffer-backed Int32Array of 2). */
  hold?: Int32Array;
}

/**
 * A Db over DIR/nor.db whose every statement runs in a worker thread. Read-only: a write is
 * refused by SQLite (SQLITE_READONLY). The store must exist (openStore creates and migrates).
 */
export async function openReadPool(dir: string, opts: ReadPoolOptions = {}): Promise<Db> {
  const readers = Math.max(1, Math.floor(opts.readers ?? 1));
  const data: ReadWorkerData = {
    file: join(dir, "nor.db"),
    ...(opts.hold ? { hold: opts.hold } : {}),
  };
  const db = new Kysely<Database>({
    dialect: new ReadPoolDialect(new ReadPoolDriver(data, readers)),
  });
  // Opened now, through kysely (so that db.destroy() stops the readers), so a store that
  // cannot be read is a startup error, not a failed page later.
  try {
    await sql`select 1`.execute(db);
  } catch (err) {
    await db.destroy();
    throw err;
  }
  return db;
}

/**
 * The reads the web server makes, in two pools: the public pages' and the console's, so the
 * console's heaviest read keeps neither the event loop nor a public page waiting. One
 * interface, two implementations: worker threads on SQLite, the store's own asynchronous pool
 * on PostgreSQL.
 */
export interface WebReads {
  /** The public directory, its feeds and API. */
  public: Db;
  /** The operator console's pages (night reports, the request log, sources, flags, sites). */
  console: Db;
  /** "worker-threads" (SQLite) or "async-driver" (PostgreSQL). */
  kind: "worker-threads" | "async-driver";
  close(): Promise<void>;
}

export async function openWebReads(
  loc: StoreLocation,
  opts: { publicReaders?: number; consoleReaders?: number; hold?: Int32Array } = {},
): Promise<WebReads> {
  if (loc.kind === "postgres") {
    const pub = await openPostgresPool(loc.url, PUBLIC_PG_CONNECTIONS, "nor-web-public");
    let con: Db;
    try {
      con = await openPostgresPool(loc.url, CONSOLE_PG_CONNECTIONS, "nor-web-console");
    } catch (err) {
      await pub.destroy();
      throw err;
    }
    return {
      public: pub,
      console: con,
      kind: "async-driver",
      close: async () => {
        await Promise.all([pub.destroy(), con.destroy()]);
      },
    };
  }
  const pub = await openReadPool(loc.dir, { readers: opts.publicReaders ?? PUBLIC_READERS });
  let con: Db;
  try {
    con = await openReadPool(loc.dir, {
      readers: opts.consoleReaders ?? CONSOLE_READERS,
      ...(opts.hold ? { hold: opts.hold } : {}),
    });
  } catch (err) {
    await pub.destroy();
    throw err;
  }
  return {
    public: pub,
    console: con,
    kind: "worker-threads",
    close: async () => {
      await Promise.all([pub.destroy(), con.destroy()]);
    },
  };
}

/**
 * The worker's compiled file: beside this module once built; from the TypeScript sources
 * (the tests), the build of the same file in dist/ (test/global-build.ts builds it first).
 */
function workerFile(): URL {
  const here = new URL("./read-worker.js", import.meta.url);
  if (existsSync(fileURLToPath(here))) return here;
  const built = new URL("../../dist/store/read-worker.js", import.meta.url);
  if (existsSync(fileURLToPath(built))) return built;
  throw new NorError(
    "E_INTERNAL",
    `the store's reader (read-worker.js) is not built: run \`npm run build\``,
  );
}

class ReadPoolDialect implements Dialect {
  readonly #driver: ReadPoolDriver;
  constructor(driver: ReadPoolDriver) {
    this.#driver = driver;
  }
  createAdapter(): DialectAdapter {
    return new SqliteAdapter();
  }
  createDriver(): Driver {
    return this.#driver;
  }
  createQueryCompiler(): QueryCompiler {
    return new SqliteQueryCompiler();
  }
  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new SqliteIntrospector(db);
  }
}

/** A fixed set of readers; a query (or a transaction) leases one, first come first served. */
class ReadPoolDriver implements Driver {
  readonly #data: ReadWorkerData;
  readonly #size: number;
  #all: ReaderConnection[] = [];
  #idle: ReaderConnection[] = [];
  readonly #waiting: ((c: ReaderConnection) => void)[] = [];
  #started: Promise<void> | undefined;

  constructor(data: ReadWorkerData, size: number) {
    this.#data = data;
    this.#size = size;
  }

  init(): Promise<void> {
    this.#started ??= (async () => {
      const file = workerFile();
      this.#all = Array.from({ length: this.#size }, () => new ReaderConnection(file, this.#data));
      try {
        await Promise.all(this.#all.map((c) => c.ready()));
      } catch (err) {
        await Promise.all(this.#all.map((c) => c.close()));
        throw err;
      }
      this.#idle = [...this.#all];
    })();
    return this.#started;
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const c = this.#idle.shift();
    if (c) return c;
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const c = connection as ReaderConnection;
    const next = this.#waiting.shift();
    if (next) next(c);
    else this.#idle.push(c);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    // A read transaction: one snapshot for every statement in it (WAL).
    await connection.executeQuery(CompiledQuery.raw("begin"));
  }
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("commit"));
  }
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("rollback"));
  }

  async destroy(): Promise<void> {
    await Promise.all(this.#all.map((c) => c.close()));
    this.#all = [];
    this.#idle = [];
  }
}

type Pending = { resolve: (r: QueryResult<unknown>) => void; reject: (e: unknown) => void };

/** One worker thread with its connection. A worker that dies is started again on next use. */
class ReaderConnection implements DatabaseConnection {
  readonly #file: URL;
  readonly #data: ReadWorkerData;
  readonly #pending = new Map<number, Pending>();
  #next = 1;
  #worker!: Worker;
  #ready!: Promise<void>;
  #dead = false;
  #closing = false;

  constructor(file: URL, data: ReadWorkerData) {
    this.#file = file;
    this.#data = data;
    this.#start();
  }

  ready(): Promise<void> {
    return this.#ready;
  }

  #start(): void {
    const w = new Worker(this.#file, { workerData: this.#data });
    this.#worker = w;
    this.#dead = false;
    this.#ready = new Promise<void>((resolve, reject) => {
      w.on("message", (m: ReadReply) => {
        if ("kind" in m) {
          if (m.kind === "ready") {
            resolve();
            // Idle readers keep no process alive; one with a query in flight does (executeQuery).
            if (this.#pending.size === 0) w.unref();
          } else {
            reject(new NorError("E_STORE", `cannot open a reader of the store: ${m.message}`));
            void w.terminate();
          }
          return;
        }
        const p = this.#pending.get(m.id);
        if (!p) return;
        this.#pending.delete(m.id);
        if (this.#pending.size === 0) w.unref();
        if ("error" in m) p.reject(sqliteError(m.error));
        else if ("rows" in m) p.resolve({ rows: m.rows });
        else
          p.resolve({
            numAffectedRows: BigInt(m.changes),
            insertId: BigInt(m.lastInsertRowid),
            rows: [],
          });
      });
      const fail = (err: unknown) => {
        this.#dead = true;
        reject(err);
        for (const p of this.#pending.values()) p.reject(err);
        this.#pending.clear();
      };
      w.on("error", (err) =>
        fail(
          new NorError("E_STORE", `a reader of the store failed: ${err.message}`, { cause: err }),
        ),
      );
      w.on("exit", (code) => {
        if (!this.#closing)
          fail(new NorError("E_STORE", `a reader of the store stopped (exit code ${code})`));
      });
    });
    // Nobody may be waiting yet (a reader restarted between queries): never unhandled.
    this.#ready.catch(() => {});
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    if (this.#closing) throw new NorError("E_STORE", "the store's readers are closed");
    if (this.#dead) this.#start();
    await this.#ready;
    const id = this.#next++;
    const request: ReadRequest = { id, sql: compiled.sql, parameters: compiled.parameters };
    return new Promise<QueryResult<R>>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as Pending["resolve"], reject });
      this.#worker.ref();
      this.#worker.postMessage(request);
    });
  }

  // biome-ignore lint/correctness/useYield: streaming is not offered by the readers.
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new NorError("E_INTERNAL", "the store's readers do not stream; use execute()");
  }

  async close(): Promise<void> {
    this.#closing = true;
    const err = new NorError("E_STORE", "the store's readers are closed");
    for (const p of this.#pending.values()) p.reject(err);
    this.#pending.clear();
    await this.#worker.terminate();
  }
}

/** The worker's SQLite error as an Error with its code (SQLITE_READONLY, SQLITE_ERROR…). */
function sqliteError(e: { message: string; code?: string }): Error {
  const err = new Error(e.message) as Error & { code?: string };
  err.name = "SqliteError";
  if (e.code !== undefined) err.code = e.code;
  return err;
}
