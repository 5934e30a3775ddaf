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
 * The same workers also run jobs (openJobPool): a whole answer read and built in the worker
 * (the web's /new and its feeds), so that turning hundreds of rows into a page is off the event
 * loop too, on SQLite and PostgreSQL alike.
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
import { type Db, openPostgresPool, type StoreLocation, storeDamagedError } from "./db.js";
import {
  CompiledQuery,
  Kysely,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  sql,
} from "./kysely.js";
import { noNul } from "./no-nul.js";
import type { ReadReply, ReadRequest, ReadWorkerData } from "./read-worker.js";
import type { Database } from "./schema/index.js";

/**
 * Readers for the public pages: two, so two pages read side by side (a page whose count and list
 * must agree holds one reader for its snapshot: src/store/read/snapshot.ts).
 */
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
    dialect: noNul(new ReadPoolDialect(new ReadPoolDriver(data, readers))),
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

/** Workers that run whole jobs (read, then build an answer) off the event loop. */
export interface JobPool {
  run(job: unknown): Promise<unknown>;
  close(): Promise<void>;
}

export interface JobPoolOptions {
  /** The job module's URL: it exports `runJob(db, job)` (src/store/read-worker.ts). */
  jobs: string;
  /** Worker threads (default 1). */
  workers?: number;
  /** PostgreSQL: connections of each worker's own pool (default 2). */
  connections?: number;
  /** For tests: see ReadWorkerData.hold. */
  hold?: Int32Array;
}

/**
 * Worker threads that run jobs over the store: on SQLite each with its own read-only
 * connection, on PostgreSQL each with a small pool of its own (application_name
 * `nor-web-build`). A job leases a worker for its whole run, first come first served.
 */
export async function openJobPool(loc: StoreLocation, opts: JobPoolOptions): Promise<JobPool> {
  const workers = Math.max(1, Math.floor(opts.workers ?? 1));
  const data: ReadWorkerData = {
    ...(loc.kind === "sqlite"
      ? { file: join(loc.dir, "nor.db") }
      : {
          postgres: {
            url: loc.url,
            connections: Math.max(1, Math.floor(opts.connections ?? 2)),
            name: "nor-web-build",
          },
        }),
    jobs: opts.jobs,
    ...(opts.hold ? { hold: opts.hold } : {}),
  };
  const driver = new ReadPoolDriver(data, workers);
  await driver.init();
  return { run: (job) => driver.run(job), close: () => driver.destroy() };
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
  /**
   * Runs a job of the public pages in a worker thread (openWebReads' `jobs`): a whole answer
   * built off the event loop, read and all (/new and its feeds: up to 500 records).
   */
  build?: (job: unknown) => Promise<unknown>;
  close(): Promise<void>;
}

/** Worker threads building the public pages' heaviest answers (openWebReads' `jobs`). */
export const PUBLIC_BUILDERS = 1;

export interface WebReadsOptions {
  publicReaders?: number;
  consoleReaders?: number;
  /** The public pages' job module (src/web/public/answer-job.ts): enables `build`. */
  jobs?: string;
  builders?: number;
  /** For tests: holds the console's readers (ReadWorkerData.hold). */
  hold?: Int32Array;
  /** For tests: holds the builders. */
  buildHold?: Int32Array;
}

export async function openWebReads(
  loc: StoreLocation,
  opts: WebReadsOptions = {},
): Promise<WebReads> {
  const reads = await openReads(loc, opts);
  if (opts.jobs === undefined) return reads;
  let builders: JobPool;
  try {
    builders = await openJobPool(loc, {
      jobs: opts.jobs,
      workers: opts.builders ?? PUBLIC_BUILDERS,
      ...(opts.buildHold ? { hold: opts.buildHold } : {}),
    });
  } catch (err) {
    await reads.close();
    throw err;
  }
  return {
    ...reads,
    build: (job) => builders.run(job),
    close: async () => {
      await Promise.all([reads.close(), builders.close()]);
    },
  };
}

async function openReads(loc: StoreLocation, opts: WebReadsOptions): Promise<WebReads> {
  if (loc.kind === "postgres") {
    return pools(
      "async-driver",
      () => openPostgresPool(loc.url, PUBLIC_PG_CONNECTIONS, "nor-web-public"),
      () => openPostgresPool(loc.url, CONSOLE_PG_CONNECTIONS, "nor-web-console"),
    );
  }
  return pools(
    "worker-threads",
    () => openReadPool(loc.dir, { readers: opts.publicReaders ?? PUBLIC_READERS }),
    () =>
      openReadPool(loc.dir, {
        readers: opts.consoleReaders ?? CONSOLE_READERS,
        ...(opts.hold ? { hold: opts.hold } : {}),
      }),
  );
}

/** The public pages' pool and the console's, apart; the first closed if the second fails. */
async function pools(
  kind: WebReads["kind"],
  openPublic: () => Promise<Db>,
  openConsole: () => Promise<Db>,
): Promise<WebReads> {
  const pub = await openPublic();
  let con: Db;
  try {
    con = await openConsole();
  } catch (err) {
    await pub.destroy();
    throw err;
  }
  return {
    public: pub,
    console: con,
    kind,
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

  /** A job on the first free reader (the reader is leased for the whole job). */
  async run(job: unknown): Promise<unknown> {
    await this.init();
    const c = (await this.acquireConnection()) as ReaderConnection;
    try {
      return await c.runJob(job);
    } finally {
      await this.releaseConnection(c);
    }
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

type Pending = { resolve: (r: ReadReply) => void; reject: (e: unknown) => void };

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
        // A damaged store is said as every command says it, with its path (db.ts).
        if ("error" in m) p.reject(readerError(this.#data, m.error));
        else p.resolve(m);
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
    const m = await this.#ask({ sql: compiled.sql, parameters: compiled.parameters });
    if ("rows" in m) return { rows: m.rows as R[] };
    if ("changes" in m)
      return { numAffectedRows: BigInt(m.changes), insertId: BigInt(m.lastInsertRowid), rows: [] };
    throw new NorError("E_INTERNAL", "a reader answered a statement with something else");
  }

  /** Runs a job (ReadWorkerData.jobs) in the worker; resolves to what it returned. */
  async runJob(job: unknown): Promise<unknown> {
    const m = await this.#ask({ job });
    if ("result" in m) return m.result;
    throw new NorError("E_INTERNAL", "a reader answered a job with something else");
  }

  async #ask(
    request: { sql: string; parameters: readonly unknown[] } | { job: unknown },
  ): Promise<ReadReply> {
    if (this.#closing) throw new NorError("E_STORE", "the store's readers are closed");
    if (this.#dead) this.#start();
    await this.#ready;
    const id = this.#next++;
    const message: ReadRequest = { id, ...request };
    return new Promise<ReadReply>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#worker.ref();
      this.#worker.postMessage(message);
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

/**
 * What a reader's statement or job failed with: the store said damaged with its path when
 * SQLite found it so (storeDamagedError, as the store's own connection says it), else the
 * worker's error as it is (sqliteError).
 */
function readerError(data: ReadWorkerData, e: { message: string; code?: string }): Error {
  const err = sqliteError(e);
  return (data.file !== undefined ? storeDamagedError(data.file, err) : undefined) ?? err;
}

/** The worker's SQLite error as an Error with its code (SQLITE_READONLY, SQLITE_ERROR…). */
function sqliteError(e: { message: string; code?: string }): Error {
  const err = new Error(e.message) as Error & { code?: string };
  err.name = "SqliteError";
  if (e.code !== undefined) err.code = e.code;
  return err;
}
