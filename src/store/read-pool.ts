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
  /**
   * How many of them start when the pool opens (default 1; 0 = none): the others start on
   * first demand, when a query finds every started reader busy. With one or more, a store that
   * cannot be read is an error when the pool opens.
   */
  eager?: number;
  /** For tests: see ReadWorkerData.hold (a SharedArrayBuffer-backed Int32Array of 2). */
  hold?: Int32Array;
  /**
   * For tests: where a reader's built file is found, asked at each thread's start (default
   * workerFile: dist/store/read-worker.js); one that throws stands for a file missing, without
   * taking away the file other processes of the run start their readers from.
   */
  workerFile?: () => URL;
}

/**
 * A Db over DIR/nor.db whose every statement runs in a worker thread. Read-only: a write is
 * refused by SQLite (SQLITE_READONLY). The store must exist (openStore creates and migrates).
 */
export async function openReadPool(dir: string, opts: ReadPoolOptions = {}): Promise<Db> {
  return (await openReaders(dir, opts)).db;
}

/** openReadPool, with the driver (its count of threads started). */
async function openReaders(
  dir: string,
  opts: ReadPoolOptions,
): Promise<{ db: Db; driver: ReadPoolDriver }> {
  const readers = Math.max(1, Math.floor(opts.readers ?? 1));
  const eager = Math.min(readers, Math.max(0, Math.floor(opts.eager ?? 1)));
  const data: ReadWorkerData = {
    file: join(dir, "nor.db"),
    ...(opts.hold ? { hold: opts.hold } : {}),
  };
  const driver = new ReadPoolDriver(data, readers, eager, opts.workerFile);
  const db = new Kysely<Database>({ dialect: noNul(new ReadPoolDialect(driver)) });
  // Opened now, through kysely (so that db.destroy() stops the readers), so a store that
  // cannot be read is a startup error, not a failed page later.
  if (eager > 0) {
    try {
      await sql`select 1`.execute(db);
    } catch (err) {
      await db.destroy();
      throw err;
    }
  }
  return { db, driver };
}

/** Workers that run whole jobs (read, then build an answer) off the event loop. */
export interface JobPool {
  run(job: unknown): Promise<unknown>;
  close(): Promise<void>;
  /** Worker threads started so far (started on first demand beyond `eager`). */
  threads(): number;
}

export interface JobPoolOptions {
  /** The job module's URL: it exports `runJob(db, job)` (src/store/read-worker.ts). */
  jobs: string;
  /** Worker threads (default 1). */
  workers?: number;
  /** How many start when the pool opens (default all); the others on first demand. */
  eager?: number;
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
  const driver = new ReadPoolDriver(
    data,
    workers,
    Math.min(workers, Math.max(0, Math.floor(opts.eager ?? workers))),
  );
  await driver.init();
  return {
    run: (job) => driver.run(job),
    close: () => driver.destroy(),
    threads: () => driver.started(),
  };
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
  /**
   * Worker threads started so far, readers and builders (0 on PostgreSQL but the builders').
   * One public reader starts when the reads open; the others on first demand.
   */
  threads?(): number;
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
  /** For tests: the public and console readers' file (ReadPoolOptions.workerFile). */
  workerFile?: () => URL;
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
      // Started by the first answer built: /new's first page waits one thread's start.
      eager: 0,
      ...(opts.buildHold ? { hold: opts.buildHold } : {}),
    });
  } catch (err) {
    await reads.close();
    throw err;
  }
  return {
    ...reads,
    build: (job) => builders.run(job),
    threads: () => (reads.threads?.() ?? 0) + builders.threads(),
    close: async () => {
      await Promise.all([reads.close(), builders.close()]);
    },
  };
}

type Pool = { db: Db; driver?: ReadPoolDriver };

async function openReads(loc: StoreLocation, opts: WebReadsOptions): Promise<WebReads> {
  if (loc.kind === "postgres") {
    return pools(
      "async-driver",
      async () => ({
        db: await openPostgresPool(loc.url, PUBLIC_PG_CONNECTIONS, "nor-web-public"),
      }),
      async () => ({
        db: await openPostgresPool(loc.url, CONSOLE_PG_CONNECTIONS, "nor-web-console"),
      }),
    );
  }
  // One public reader starts now (a store it cannot read is a startup error, said as before);
  // the second public reader and the console's start on first demand: a page waits at most one
  // thread's start, and a server nobody asks costs no more threads than one.
  return pools(
    "worker-threads",
    () =>
      openReaders(loc.dir, {
        readers: opts.publicReaders ?? PUBLIC_READERS,
        eager: 1,
        ...(opts.workerFile ? { workerFile: opts.workerFile } : {}),
      }),
    () =>
      openReaders(loc.dir, {
        readers: opts.consoleReaders ?? CONSOLE_READERS,
        eager: 0,
        ...(opts.hold ? { hold: opts.hold } : {}),
        ...(opts.workerFile ? { workerFile: opts.workerFile } : {}),
      }),
  );
}

/** The public pages' pool and the console's, apart; the first closed if the second fails. */
async function pools(
  kind: WebReads["kind"],
  openPublic: () => Promise<Pool>,
  openConsole: () => Promise<Pool>,
): Promise<WebReads> {
  const { db: pub, driver: pubDriver } = await openPublic();
  let con: Db;
  let conDriver: ReadPoolDriver | undefined;
  try {
    ({ db: con, driver: conDriver } = await openConsole());
  } catch (err) {
    await pub.destroy();
    throw err;
  }
  return {
    public: pub,
    console: con,
    kind,
    threads: () => (pubDriver?.started() ?? 0) + (conDriver?.started() ?? 0),
    close: async () => {
      await Promise.all([pub.destroy(), con.destroy()]);
    },
  };
}

/**
 * The worker's compiled file: beside this module once built; from the TypeScript sources
 * (the tests), the build of the same file in dist/ (test/global-build.ts builds it first).
 */
export function workerFile(): URL {
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

/**
 * After a reader failed to start twice in a row while another lives, how long before the next
 * try (GROW_RETRY_MS): the queries that find every reader busy meanwhile wait for one given back
 * or for that try, so a start that keeps failing costs one thread's start a second at most, not
 * one per query.
 */
export const GROW_RETRY_MS = 1_000;

/**
 * Up to `size` readers; a query (or a transaction) leases one, first come first served. `eager`
 * of them start with the pool (init); the others one at a time, when a query finds every
 * started reader busy: it takes whichever is free first, the busy one given back or the new one
 * ready, so it waits at most one thread's start more than if all had started with the pool.
 *
 * A reader that cannot start (the store's file gone, the reader's own file missing while dist/
 * is rebuilt, no thread to be had) fails the queries waiting for it with why: at once when no
 * reader lives; else after GROW_RETRY_MS in which a reader given back serves them (#startFailed),
 * for the one that lives may be held by the very query that waits (a read inside a held
 * reader), so waiting for it longer could be for ever. The next query that finds every reader busy
 * tries again at once; after two failed starts in a row, with a reader alive, not before
 * GROW_RETRY_MS has passed since the last (the queries waiting meanwhile are answered by a
 * reader given back, or by that try, or fail with its error). With no reader alive every query
 * tries a start of its own (it has nothing else to wait for) and fails with why. A pool's first
 * start (init) that fails is tried again by the next query, not kept.
 */
class ReadPoolDriver implements Driver {
  readonly #data: ReadWorkerData;
  readonly #size: number;
  readonly #eager: number;
  #all: ReaderConnection[] = [];
  #idle: ReaderConnection[] = [];
  readonly #waiting: { resolve: (c: ReaderConnection) => void; reject: (e: unknown) => void }[] =
    [];
  #started: Promise<void> | undefined;
  /** A reader on its way (started on demand, not yet ready): one at a time. */
  #growing = false;
  /** Starts on demand failed in a row (0 once one starts), and when the last one failed. */
  #failures = 0;
  #failedAt = 0;
  /** The next try of a start held back (GROW_RETRY_MS), when queries wait for it. */
  #retry: ReturnType<typeof setTimeout> | undefined;
  #closed = false;
  /** The timers failing queries stranded by a failed start (#startFailed), cleared on close. */
  readonly #stranded = new Set<ReturnType<typeof setTimeout>>();

  readonly #workerFile: () => URL;

  constructor(
    data: ReadWorkerData,
    size: number,
    eager: number = size,
    file: () => URL = workerFile,
  ) {
    this.#data = data;
    this.#size = size;
    this.#eager = eager;
    this.#workerFile = file;
  }

  /** Worker threads started so far (those starting included). */
  started(): number {
    return this.#all.length;
  }

  init(): Promise<void> {
    // A failed first start is not kept: the next query (or job) tries again.
    this.#started ??= this.#open().catch((err: unknown) => {
      this.#started = undefined;
      throw err;
    });
    return this.#started;
  }

  /** The `eager` readers, started and ready (none left running if one fails). */
  async #open(): Promise<void> {
    const first: ReaderConnection[] = [];
    try {
      const file = this.#workerFile();
      for (let i = 0; i < this.#eager; i++) first.push(new ReaderConnection(file, this.#data));
      this.#all = [...first];
      await Promise.all(first.map((c) => c.ready()));
    } catch (err) {
      await Promise.all(first.map((c) => c.close().catch(() => {})));
      this.#all = [];
      throw err;
    }
    this.#idle.push(...first);
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    if (this.#closed) throw new NorError("E_STORE", "the store's readers are closed");
    const c = this.#idle.shift();
    if (c) return c;
    const leased = new Promise<ReaderConnection>((resolve, reject) =>
      this.#waiting.push({ resolve, reject }),
    );
    this.#growSoon();
    return leased;
  }

  /**
   * One more reader for the queries waiting, if there is room and none is on its way: now, or,
   * after two failed starts in a row with a reader alive, once GROW_RETRY_MS has passed.
   */
  #growSoon(): void {
    if (this.#closed || this.#growing || this.#all.length >= this.#size) return;
    if (this.#waiting.length === 0) return;
    const wait =
      this.#failures >= 2 && this.#all.length > 0
        ? Math.min(GROW_RETRY_MS, this.#failedAt + GROW_RETRY_MS - performance.now())
        : 0;
    if (wait <= 0) {
      this.#grow();
      return;
    }
    // Kept alive while queries wait for it (as a reader with a query in flight is); cleared
    // when the pool closes.
    this.#retry ??= setTimeout(() => {
      this.#retry = undefined;
      this.#growSoon();
    }, wait);
  }

  /** One more reader, started now; once ready it serves the first waiting query. */
  #grow(): void {
    let c: ReaderConnection;
    try {
      // Either may throw at once: the reader's file missing, no thread to be had.
      c = new ReaderConnection(this.#workerFile(), this.#data);
    } catch (err) {
      this.#startFailed(err);
      return;
    }
    this.#all.push(c);
    this.#growing = true;
    c.ready().then(
      () => {
        this.#growing = false;
        this.#failures = 0;
        if (this.#closed) return;
        void this.releaseConnection(c);
        // Queries still waiting, and room for another reader: the next one on its way.
        this.#growSoon();
      },
      async (err: unknown) => {
        this.#growing = false;
        this.#all = this.#all.filter((x) => x !== c);
        // Said before the thread is let go: a query that comes meanwhile waits for a new try.
        if (!this.#closed) this.#startFailed(err);
        await c.close().catch(() => {});
      },
    );
  }

  /**
   * A start failed, and is counted. With no reader alive, every query waiting fails with why at
   * once. With one alive, they wait for it up to GROW_RETRY_MS (a reader merely busy serves them
   * when given back), then those still waiting fail with why: the reader may be held by one of
   * them, so waiting for it longer could be for ever.
   */
  #startFailed(err: unknown): void {
    this.#failures++;
    this.#failedAt = performance.now();
    if (this.#all.length === 0) {
      for (const w of this.#waiting.splice(0)) w.reject(err);
      return;
    }
    const stranded = new Set(this.#waiting);
    const timer = setTimeout(() => {
      this.#stranded.delete(timer);
      const still = this.#waiting.filter((w) => stranded.has(w));
      if (still.length === 0) return;
      for (const w of still) this.#waiting.splice(this.#waiting.indexOf(w), 1);
      // The failure said now: the next tries held back from here (GROW_RETRY_MS).
      this.#failedAt = performance.now();
      for (const w of still) w.reject(err);
    }, GROW_RETRY_MS);
    this.#stranded.add(timer);
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const c = connection as ReaderConnection;
    const next = this.#waiting.shift();
    if (next) next.resolve(c);
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
    this.#closed = true;
    if (this.#retry !== undefined) clearTimeout(this.#retry);
    this.#retry = undefined;
    for (const t of this.#stranded) clearTimeout(t);
    this.#stranded.clear();
    const err = new NorError("E_STORE", "the store's readers are closed");
    for (const w of this.#waiting.splice(0)) w.reject(err);
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
  /** Fails the start under way (a no-op once it is ready or failed): close() during a restart. */
  #failStart: (err: unknown) => void = () => {};

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
      this.#failStart = reject;
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
    if (this.#closing) throw new NorError("E_STORE", "the store's readers are closed");
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
    // A query waiting for this reader's (re)start hears it too: its exit, closing, says nothing.
    this.#failStart(err);
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
