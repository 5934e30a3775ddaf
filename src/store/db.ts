import { randomBytes } from "node:crypto";
import {
  accessSync,
  constants,
  copyFileSync,
  linkSync,
  lstatSync,
  readdirSync,
  readlinkSync,
  rmSync,
  statSync,
} from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type SqliteDatabase from "better-sqlite3";
import type {
  DatabaseConnection,
  DialectAdapter,
  Driver,
  MigrationProvider,
  MigrationResult,
  QueryResult,
} from "kysely";
import { requireCjs } from "../cjs.js";
import { NorError } from "../errors.js";
import { LANE_LEASE_MS } from "../policy/constants.js";
import { ensureDataDir, refuseNotADirectory, storeFileState, why } from "./data-dir.js";
import { storeWriteRefused } from "./disk-full.js";
import { HolderLiveness, KEEPALIVE_SQL, registerLiveness } from "./holder-liveness.js";
import { CompiledQuery, Kysely, Migrator, SqliteAdapter, SqliteDialect, sql } from "./kysely.js";
import { migrationProvider, migrations } from "./migrations/index.js";
import { POSTGRES_SNAPSHOT } from "./migrations/postgres-snapshot.js";
import { SQLITE_SNAPSHOT } from "./migrations/sqlite-snapshot.js";
import { noNul } from "./no-nul.js";
import { CurrentSchemaPostgresDialect } from "./pg-current-schema.js";
import { namedStatements } from "./pg-named.js";
import type { Database } from "./schema/index.js";
import { registerStore, SqliteDirect } from "./sqlite-direct.js";
import { StatementCache } from "./statement-cache.js";

export { ensureDataDir } from "./data-dir.js";

export type Db = Kysely<Database>;

export type StoreLocation = { kind: "sqlite"; dir: string } | { kind: "postgres"; url: string };

export interface OpenOptions {
  /**
   * Default true. False for commands that only read (`nor log`): a missing SQLite store is an
   * error ("no store at DIR/nor.db") instead of an empty one created as a side effect.
   */
  create?: boolean;
  /**
   * The command only reads the store (`nor log`, `nor status`, `nor archive`…): a SQLite store it
   * cannot open because this user may not make SQLite's files beside it (a read-only data
   * directory) is said as that, not as a store nor must write (cannotReadBeside). And it never
   * changes the store's schema: a store an earlier version made (migrations pending) is refused
   * (exit 2, PendingMigrations), not upgraded, so an older nor can still read it (a restored
   * backup looked at with a newer nor). A store with nothing pending opens as before, its
   * migrations read and no lock taken.
   */
  readsOnly?: boolean;
  /**
   * SQLite's page cache in MiB (default: better-sqlite3's build of SQLite, 16,000 KiB; SQLite's
   * own is 2 MiB, what a night opens with: commands/night.ts NIGHT_STORE_CACHE_MIB). Loading a
   * store in bulk (the web benchmark) keeps the indexes it fills in memory with a larger one.
   */
  cacheMiB?: number;
  /**
   * Said once, before migrations run on a store made by an earlier version (never for a store
   * being made): where it is and which migrations, so a command that may sit quiet while one
   * rewrites a large table says why (018 rewrites the records table).
   */
  onUpgrade?: (upgrade: StoreUpgrade) => void;
  /**
   * SQLite: said when a write finds the store's write lock held by another process past the
   * busy wait (one frozen in the middle of a write: a SIGSTOP, a suspended machine), and again
   * each minute it still waits: what it waits on, and for how long at most (STORE_LOCK_WAIT_MS).
   */
  onLockWait?: (note: string) => void;
  /** SQLite: how long a write waits in all for another process's write lock (tests shorten). */
  lockWaitMs?: number;
  /**
   * Default true: a new store is made at once as its migrations would leave it (SQLite:
   * makeFromSnapshot; PostgreSQL, a schema with no relation: makePostgresFromSnapshot). False:
   * by running every migration, one after another, as an upgrade runs those pending (tests
   * compare the two).
   */
  bySnapshot?: boolean;
}

/** A store about to be upgraded: where, and the migrations to run, in order. */
export interface StoreUpgrade {
  store: string;
  migrations: readonly string[];
}

export interface Store {
  db: Db;
  dialect: "sqlite" | "postgres";
  close(): Promise<void>;
}

/**
 * How long a write on a SQLite store waits for the write lock before it says so (onLockWait): a
 * writer's transaction is short, and one held longer is worth a word. Also the busy wait of the
 * store's connections while it opens, and of its read-only ones.
 */
const BUSY_TIMEOUT_MS = 5000;
/**
 * The busy wait of the store's own connection once open: one try at the write lock. SQLite's
 * busy handler sleeps on the calling thread, the event loop's, so a longer one stopped the whole
 * process (the web console, timers, other awaits) for as long as another process held the lock;
 * a statement that finds it held past this is tried again after a pause in which the process's
 * other work runs (waitForLock), up to STORE_LOCK_WAIT_MS in all.
 */
const LOCK_TRY_MS = 50;

/**
 * How long, in all, a write on a SQLite store waits for the write lock another process holds
 * before the command gives up (E_STORE, exit 1: a condition of the moment). A writer's
 * transaction is short; one held longer is a process frozen in the middle of it (SIGSTOP, a
 * suspended machine), which every other process of the store waits for alike. PostgreSQL ends
 * such a transaction after 60 s (idle_in_transaction_session_timeout); SQLite cannot end
 * another process's, so this waits longer than that before it gives up.
 */
export const STORE_LOCK_WAIT_MS = 5 * 60_000;
/**
 * Between two tries at a write lock held by another process: this process's own work runs.
 * LOCK_FIRST_PAUSE_MS for the first BUSY_TIMEOUT_MS (the lock of a writer at work, let go soon:
 * taken about as soon as SQLite's own busy handler would), LOCK_RETRY_PAUSE_MS after.
 */
const LOCK_RETRY_PAUSE_MS = 250;
const LOCK_FIRST_PAUSE_MS = 50;
/** How often a write still waiting for the lock says so again. */
const LOCK_NOTE_EVERY_MS = 60_000;

/**
 * How long an opener of a SQLite store waits for another process's migrations to finish (an
 * upgrade copies the request log once) before it gives up: polls of MIGRATION_POLL_MS.
 */
export const MIGRATION_WAIT_MS = 120_000;
const MIGRATION_POLL_MS = 50;

/**
 * Opens the store and runs pending migrations. SQLite lives at DIR/nor.db in WAL mode with
 * synchronous=FULL, so a `kill -9` never loses a committed row. Several processes may open one
 * store at once: the migrations run once, by one of them (PostgreSQL: kysely's advisory lock; SQLite:
 * the write lock, see migrateSqlite), and the others wait and find nothing left to do.
 */
export async function openStore(loc: StoreLocation, opts: OpenOptions = {}): Promise<Store> {
  const create = opts.create ?? true;
  let db: Db;
  let sqliteConn: SqliteDatabase.Database | undefined;
  let liveness: HolderLiveness | undefined;
  if (loc.kind === "sqlite") {
    const file = join(loc.dir, "nor.db");
    // A directory, or an empty file, where the store goes is refused by every command, and
    // nothing is written to it (data-dir.ts): SQLite would take an empty file for a new store.
    const state = storeFileState(file);
    // A mistyped --data is a configuration mistake (exit 2), never an empty store made by looking;
    // one that names a file is said as such, in the words a command that makes the store uses.
    if (!create && state === "absent") refuseNotADirectory(loc.dir);
    if (!create && state === "absent")
      throw new NorError(
        "E_CONFIG",
        `no store at ${file} (check --data; \`nor catalog import\` or \`nor night\` creates one)`,
      );
    // A command that may create the store writes to it: one it may not write is said now,
    // with its path, not as SQLite's "attempt to write a readonly database" later.
    if (create && state === "file") refuseReadOnly(file);
    // Made one part at a time, and writable by this user, or said why not (data-dir.ts).
    if (create) ensureDataDir(loc.dir);
    let sqlite: SqliteDatabase.Database;
    /** The connection once made, closed again when the store does not open after all. */
    let made: SqliteDatabase.Database | undefined;
    // Each driver is loaded only when its store is opened: a SQLite command never loads pg.
    const Sqlite = requireCjs("better-sqlite3") as typeof SqliteDatabase;
    try {
      if (create) removeStaleParts(linkTarget(file));
      if (create && state === "absent") makeStoreFile(Sqlite, file);
      sqlite = new Sqlite(file, { fileMustExist: true });
      made = sqlite;
      // First: switching a new file to WAL takes a lock another opener may hold for a moment.
      sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
      // Another program's database where the store goes is never made one: nothing is written
      // to it (not even its journal mode), and it is said so.
      refuseAnotherProgramsDatabase(sqlite, file);
      sqlite.pragma("journal_mode = WAL");
      sqlite.pragma("synchronous = FULL");
      sqlite.pragma("foreign_keys = ON");
      if (opts.cacheMiB !== undefined)
        sqlite.pragma(`cache_size = ${-Math.max(1, Math.floor(opts.cacheMiB * 1024))}`);
      // Open: from now on a write lock held by another process is waited for between tries,
      // off the thread (waitForLock).
      sqlite.pragma(`busy_timeout = ${LOCK_TRY_MS}`);
    } catch (cause) {
      if (made?.open) made.close();
      // Said as it is (a link to nothing, a part of the wrong kind): configuration, exit 2.
      if (cause instanceof NorError && cause.code === "E_CONFIG") throw cause;
      // A command that only reads, where SQLite may not make its shared-memory file beside the
      // store: said as that, with the ways round it.
      const unreadable = opts.readsOnly ? cannotReadBeside(file, cause) : undefined;
      if (unreadable !== undefined) throw unreadable;
      // A store there that would not open and that this process may not write (a read-only
      // mount: a store in WAL mode is opened by writing beside it) is said as such, exit 2, by a
      // command that only reads or logs into it (`nor discover`) as by one that may make it.
      // What SQLite said of the store comes first (a damaged one is damaged, whoever asks).
      const said = storeStateError(file, cause);
      if (said !== undefined) throw said;
      if (state === "file") refuseReadOnly(file);
      const why = cause instanceof Error ? `: ${cause.message}` : "";
      throw new NorError("E_STORE", `cannot open the store at ${file}${why}`, { cause });
    }
    // Each SQL text is compiled once and its statement reused (statement-cache.ts). No U+0000
    // is stored, on either dialect (no-nul.ts). The hot prepared statements run on the
    // connection straight when kysely would have run them at once (sqlite-direct.ts).
    const cache = new StatementCache(sqlite);
    // Reads while the connection is taken run on a read-only connection (sqlite-direct.ts).
    // It is opened by the file's name, when first wanted: only while the name still names the
    // file this store opened (a backup put back in its place since is another file).
    // A damaged or read-only store met by a statement after it opened is said as at its open,
    // with the path, on every way a statement runs (storeStateErrors, StoreDirect).
    const opened = statSync(file);
    const sameFile = () => {
      const now = statSync(file);
      return now.dev === opened.dev && now.ino === opened.ino;
    };
    const direct = new StoreDirect(file, sqlite, cache, () => {
      if (!sameFile()) throw new Error(`${file} is no longer the file this store opened`);
      const reader = new Sqlite(file, { readonly: true, fileMustExist: true });
      try {
        reader.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
        if (opts.cacheMiB !== undefined)
          reader.pragma(`cache_size = ${-Math.max(1, Math.floor(opts.cacheMiB * 1024))}`);
        if (!sameFile()) throw new Error(`${file} is no longer the file this store opened`);
        return new StoreDirect(file, reader, new StatementCache(reader));
      } catch (err) {
        reader.close();
        throw err;
      }
    });
    cache.onClose(() => direct.closeReads());
    const lockWait: LockWait = {
      inTransaction: () => sqlite.inTransaction,
      busyTimeout: () => Number(sqlite.pragma("busy_timeout", { simple: true })),
      ...(opts.onLockWait ? { note: opts.onLockWait } : {}),
      limitMs: opts.lockWaitMs ?? STORE_LOCK_WAIT_MS,
    };
    direct.lockWait = lockWait;
    db = new Kysely<Database>({
      dialect: noNul(new ImmediateSqliteDialect({ database: cache }, direct, file, lockWait)),
    });
    registerStore(db, direct);
    sqliteConn = sqlite;
  } else {
    const { default: pg } = await import("pg");
    const pool = namedStatements(
      heldLocksLetGo(survivingDrops(new pg.Pool({ connectionString: loc.url, max: 4 }))),
    );
    db = new Kysely<Database>({ dialect: noNul(new CurrentSchemaPostgresDialect({ pool })) });
    // P9, P10 across machines: the connection that says this process's lease holders live,
    // made at the first admission (holder-liveness.ts), ended with the store.
    liveness = new HolderLiveness(loc.url);
    registerLiveness(db, liveness);
  }
  const close = async () => {
    try {
      await liveness?.close();
    } finally {
      await db.destroy();
    }
  };
  // PostgreSQL: keep kysely's own migration tables in the schema the store lives in
  // (search_path). Without this the migrator finds another schema's tables and skips its own.
  const migrationTableSchema =
    loc.kind === "postgres" ? await currentSchema(db).catch(closeAndThrow(db, loc)) : undefined;
  // A command that must find the store there (`nor log`, `nor status`, `nor discover`…) is
  // refused on a PostgreSQL database that holds none, as on a --data without nor.db (exit 2),
  // never answered "nothing" from an empty store made by looking.
  if (loc.kind === "postgres" && !create) {
    const found = await hasMigrationTable(db, migrationTableSchema).catch(closeAndThrow(db, loc));
    if (!found) {
      await db.destroy().catch(() => {});
      throw new NorError(
        "E_CONFIG",
        `no store in the PostgreSQL database at ${redact(loc.url)}${migrationTableSchema ? ` (schema ${migrationTableSchema})` : ""}: check NOR_DATABASE_URL; \`nor catalog import\` or \`nor night\` creates one (with NOR_DATABASE_URL set, a --data directory's nor.db is not read)`,
      );
    }
  }
  // A command that only reads leaves the schema as it is: a store with migrations pending is
  // refused, before anything is written (no migrator, no lock, no table made).
  if (opts.readsOnly) {
    await refusePendingMigrations(db, loc, migrationTableSchema);
    return { db, dialect: loc.kind, close };
  }
  // An upgrade is said by the command that runs it, as its first migration starts (inside the
  // migrator's lock): a command that waited for another's upgrade finds nothing left and says
  // nothing. `toSay`: what was pending when looked at, a store being made left out.
  let toSay: readonly string[] = [];
  const saidBy: MigrationProvider = {
    getMigrations: async () => {
      const all = await migrationProvider.getMigrations();
      return Object.fromEntries(
        Object.entries(all).map(([name, m]) => [
          name,
          {
            ...m,
            up: async (on: Kysely<unknown>) => {
              const now = toSay.filter((n) => n >= name);
              toSay = [];
              if (now.length > 0) opts.onUpgrade?.({ store: storeAt, migrations: now });
              await m.up(on);
            },
          },
        ]),
      );
    },
  };
  const storeAt = loc.kind === "sqlite" ? join(loc.dir, "nor.db") : redact(loc.url);
  const migrator = new Migrator({
    db,
    provider: saidBy,
    ...(migrationTableSchema ? { migrationTableSchema } : {}),
  });
  let error: unknown;
  let results: MigrationResult[] | undefined;
  const upgrade = (names: readonly string[]) => {
    toSay = names;
  };
  if (sqliteConn) {
    ({ error, results } = await migrateSqlite(
      db,
      sqliteConn,
      migrator,
      upgrade,
      opts.bySnapshot ?? true,
    ));
  } else {
    // A store being made: its final schema at once, when the snapshot is this version's.
    if (
      (opts.bySnapshot ?? true) &&
      migrationTableSchema !== undefined &&
      (await postgresStoreIsNew(db, migrationTableSchema)) &&
      (await makePostgresFromSnapshot(db))
    )
      return { db, dialect: loc.kind, close };
    // Said as they run; a store being made (none run yet) is not being upgraded.
    if (opts.onUpgrade !== undefined) {
      const infos = await migrator.getMigrations().catch(() => []);
      const pending = infos.filter((m) => m.executedAt === undefined).map((m) => m.name);
      if (pending.length > 0 && pending.length < infos.length) upgrade(pending);
    }
    ({ error, results } = await migrator.migrateToLatest());
    // PostgreSQL: the migrator's table listing is kept to this store's schema
    // (pg-current-schema.ts); kysely's own listed every schema's tables, and a schema dropped
    // by someone else meanwhile failed it (3F000, 42P01, 42703). Should a race of that kind
    // still come, it says nothing about ours: retry, after a pause that doubles. So too when
    // the migrations' transaction lost a deadlock (40P01): a migration that drops or makes an
    // index locks its table, and a night still running an older version may hold one table
    // and want the next. PostgreSQL rolled the migrations back; run them again.
    for (let i = 0; i < MIGRATION_RACE_TRIES && error && isMigrationRace(error); i++) {
      await sleep(25 * 2 ** i);
      ({ error, results } = await migrator.migrateToLatest());
    }
  }
  if (error) {
    await db.destroy();
    const where =
      loc.kind === "sqlite" ? join(loc.dir, "nor.db") : `the store at ${redact(loc.url)}`;
    const state = storeStateError(where, error);
    if (state) throw state;
    const failed = results?.find((r) => r.status === "Error")?.migrationName ?? "unknown";
    const why = `store migration ${failed} failed on ${where}: ${String(error)}`;
    throw new NorError("E_STORE", why, { cause: error });
  }
  return { db, dialect: loc.kind, close };
}

/**
 * A pool whose connections the server may drop (a restart, a failover, `pg_terminate_backend`,
 * an idle timeout) without taking the process with them. node-postgres says a dropped
 * connection as an 'error' event, on the pool while the connection is idle and on the
 * connection itself while it is checked out between statements (a transaction kysely holds);
 * an 'error' event nobody listens to ends the process. Listened to here and let go: the pool
 * has already discarded an idle one, and a checked-out one fails the statement asked of it
 * next, which reaches its caller as any store error does (a 500 in the console, exit 1 in the
 * CLI). The next statement on a fresh connection works once the server is back.
 */
function survivingDrops<P extends import("pg").Pool>(pool: P): P {
  const dropped = () => {};
  pool.on("error", dropped);
  pool.on("connect", (client) => client.on("error", dropped));
  return pool;
}

/**
 * P9, P13: how long a session of the store's own pool (the night's, a command's) may sit inside
 * a transaction doing nothing before PostgreSQL ends it: a worker frozen (SIGSTOP, a long pause)
 * or cut off with a transaction open holds its row locks (a site's state, a lane) until then,
 * and every other machine's night waits on them. A lane's lease: by then the lane itself is
 * another worker's. The store's transactions wait on nothing but their own statements and the
 * archive's fsync.
 */
export const IDLE_IN_TRANSACTION_MS = LANE_LEASE_MS;

/**
 * Sessions of `pool` a frozen or vanished process leaves behind let go of their locks: an idle
 * transaction ends after IDLE_IN_TRANSACTION_MS, and the server probes a silent connection after
 * 30 s (three probes 10 s apart) instead of its default two hours, so a machine that lost power
 * or its network is noticed within a minute or so. Set on each connection as it opens, before
 * anything else runs on it (a client runs its queries in order); a server that refuses a setting
 * leaves it at its own.
 */
function heldLocksLetGo<P extends import("pg").Pool>(pool: P): P {
  pool.on("connect", (client) => {
    client
      .query(
        `set idle_in_transaction_session_timeout = ${IDLE_IN_TRANSACTION_MS}; ${KEEPALIVE_SQL}`,
      )
      .catch(() => {});
  });
  return pool;
}

/**
 * A pool of PostgreSQL connections of its own (no migrations: the store is opened first), for
 * reads that must not share connections with others: the web's public pages and its console
 * each have one (src/store/read-pool.ts), so the console's biggest read can hold at most its own
 * `max` connections. `name` is the connections' application_name (pg_stat_activity).
 */
export async function openPostgresPool(url: string, max: number, name: string): Promise<Db> {
  const { default: pg } = await import("pg");
  const pool = namedStatements(
    survivingDrops(new pg.Pool({ connectionString: url, max, application_name: name })),
  );
  const db = new Kysely<Database>({ dialect: noNul(new CurrentSchemaPostgresDialect({ pool })) });
  // Reached now, so a store that cannot be read is a startup error, not a failed page later.
  await sql`select 1`.execute(db).catch(closeAndThrow(db, { kind: "postgres", url }));
  return db;
}

/**
 * Makes a new SQLite store file at `file`, never seen empty: its first page is written under
 * another name beside it (in WAL mode, as every store is), which is then linked into place.
 * Another process opening the store meanwhile finds either no file or one with its first page,
 * so a file of 0 bytes is never one nor is making (storeFileState refuses one). Should another
 * opener's file be there first, it is the store, and this one goes.
 */
function makeStoreFile(Sqlite: typeof SqliteDatabase, file: string): void {
  // A nor.db that is a link to nothing (the store kept on a disk not mounted yet) is never made
  // anew where it points: a fresh store there would hold no person's marks, no owners' rules,
  // no validators, and would ask sites that asked to be left alone.
  const target = linkTarget(file);
  if (target !== file)
    throw new NorError(
      "E_CONFIG",
      `${file} is a symbolic link to ${target}, which does not exist (a disk not mounted yet?): nor does not make a new store there; mount it, or make the store there with --data ${dirname(target)}, or remove the link`,
    );
  const part = `${file}.new-${process.pid}-${randomBytes(4).toString("hex")}`;
  try {
    const first = new Sqlite(part);
    try {
      first.pragma("journal_mode = WAL");
    } finally {
      first.close();
    }
    try {
      linkSync(part, file);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "EEXIST") return;
      // A file system without hard links: copied in, never over a file already there.
      if (!NO_HARD_LINKS.has(code ?? "")) throw err;
      try {
        copyFileSync(part, file, constants.COPYFILE_EXCL);
      } catch (copyErr) {
        if ((copyErr as NodeJS.ErrnoException).code !== "EEXIST") throw copyErr;
      }
    }
  } finally {
    for (const end of ["", "-wal", "-shm", "-journal"]) rmSync(part + end, { force: true });
  }
}

/**
 * Throws E_CONFIG (closing `sqlite`) when the database at `file` holds tables and none is the
 * migrations' record every nor store has from its first statement on (kysely_migration): a
 * database of another program put where the store goes (a mistyped --data, a file of the same
 * name), which migrating would change. A new store holds no table yet.
 */
function refuseAnotherProgramsDatabase(sqlite: SqliteDatabase.Database, file: string): void {
  const tables = (
    sqlite
      .prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%'")
      .pluck()
      .all() as string[]
  ).sort();
  if (tables.length === 0 || tables.includes("kysely_migration")) return;
  sqlite.close();
  const named = tables.slice(0, 5).join(", ") + (tables.length > 5 ? ", …" : "");
  throw new NorError(
    "E_CONFIG",
    `${file} is a SQLite database of another program (its tables: ${named}), not a nor store: nothing was changed in it; give --data nor's own data directory`,
  );
}

/** What link(2) says on a file system that has no hard links (FAT, some FUSE and SMB mounts). */
const NO_HARD_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS"]);

/** Where `file` leads through symbolic links (a bounded number of them), or `file` itself. */
function linkTarget(file: string): string {
  let p = file;
  for (let i = 0; i < 40; i++) {
    let st: ReturnType<typeof lstatSync>;
    try {
      st = lstatSync(p);
    } catch {
      return p;
    }
    if (!st.isSymbolicLink()) return p;
    p = resolve(dirname(p), readlinkSync(p));
  }
  return p;
}

/**
 * Second names of the store (`nor.db.new-PID-…`, the name it was made under before it was
 * linked into place) that a maker killed between the link and their removal left: removed,
 * as each is the same file as the store (same inode), whoever made it and whatever became of
 * them. A part never linked (its maker killed earlier, or still at work, maybe in another pid
 * namespace on a shared volume) is not the store and is left alone.
 */
function removeStaleParts(file: string): void {
  const dir = dirname(file);
  const prefix = `${basename(file)}.new-`;
  let store: ReturnType<typeof statSync>;
  let names: string[];
  try {
    store = statSync(file);
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const path = join(dir, name);
    try {
      const st = lstatSync(path);
      if (st.isFile() && st.ino === store.ino && st.dev === store.dev) rmSync(path);
    } catch {
      // Gone meanwhile (its maker removed it): nothing to do.
    }
  }
}

/**
 * `--data DIR` (default ./data), or NOR_DATABASE_URL=postgres://… for PostgreSQL. Any other
 * NOR_DATABASE_URL (mysql://…, a bare path) is refused, never silently read as "use SQLite".
 */
export function storeLocationFromOptions(opts: { data?: string }): StoreLocation {
  // An empty --data (an unset shell variable) names no directory; never the current one.
  if (opts.data !== undefined && opts.data.trim() === "")
    throw new NorError("E_CONFIG", "--data needs a directory, not an empty value");
  const url = process.env["NOR_DATABASE_URL"];
  if (url !== undefined && url !== "") {
    if (/^postgres(?:ql)?:\/\//i.test(url)) return { kind: "postgres", url };
    // Only the scheme is echoed: the rest may hold a password.
    const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1];
    throw new NorError(
      "E_CONFIG",
      `NOR_DATABASE_URL must be a postgres:// or postgresql:// URL, not ${scheme ? `a ${scheme}: one` : "a value without a scheme"}; unset it to use the SQLite store in --data`,
    );
  }
  return { kind: "sqlite", dir: opts.data ?? "data" };
}

/**
 * SQLite's migrations, run by one opener at a time. kysely's SQLite adapter takes no lock, so
 * two processes opening a new (or older) store together would both run them: the second failed
 * on kysely_migration's key, and a migration that rebuilds a table (006) could run twice over a
 * half-done first run. Here the pending migrations run in one transaction that holds the write
 * lock from its start (`begin immediate`, see ImmediateSqliteDialect), and kysely reads which
 * are pending inside it: whoever comes second waits for the lock, then finds none. The wait is
 * polled without blocking the thread (busy_timeout 0 meanwhile: better-sqlite3's busy handler
 * sleeps on the event loop's thread, which would starve a holder in the same process) and
 * bounded by MIGRATION_WAIT_MS. A store that needs nothing is only read: no write lock is
 * taken to open it.
 */
async function migrateSqlite(
  db: Db,
  conn: SqliteDatabase.Database,
  migrator: InstanceType<typeof Migrator>,
  upgrade: (names: readonly string[]) => void,
  bySnapshot: boolean,
): Promise<{ error?: unknown; results?: MigrationResult[] }> {
  let pending: { names: string[]; fresh: boolean };
  try {
    pending = await sqliteMigrationsPending(db);
  } catch (error) {
    // A damaged store can fail here, before the migrator: openStore says so with its path.
    return { error };
  }
  if (pending.names.length === 0) return {};
  if (!pending.fresh) upgrade(pending.names);
  conn.pragma("busy_timeout = 0");
  try {
    // A store being made: its final schema at once, when the snapshot is this version's.
    if (pending.fresh && bySnapshot && makeFromSnapshot(conn)) return {};
    for (let waited = 0; ; waited += MIGRATION_POLL_MS) {
      const r = await migrator.migrateToLatest();
      if (!r.error || !isBusy(r.error) || waited >= MIGRATION_WAIT_MS) return r;
      await sleep(MIGRATION_POLL_MS);
    }
  } finally {
    conn.pragma(`busy_timeout = ${LOCK_TRY_MS}`);
  }
}

/** Whether a snapshot lists exactly this version's migrations, in their order (SQLite's, PostgreSQL's). */
function ofTheseMigrations(snapshot: { migrations: readonly string[] }): boolean {
  const names = Object.keys(migrations);
  return (
    snapshot.migrations.length === names.length &&
    snapshot.migrations.every((n, i) => n === names[i])
  );
}

/**
 * Makes a new SQLite store (one with no table at all) as every migration would, in a fraction
 * of their time: the schema they leave (SQLITE_SNAPSHOT, checked against them by
 * test/store/sqlite-snapshot.test.ts) and kysely's record of each as run, in one transaction
 * that holds the write lock from its start. Nothing of it is seen until its commit: a process
 * killed before leaves a store with no table, made again by the next opener. True when made;
 * false, having changed nothing, when it was not: the snapshot is not of this version's
 * migrations, the store is not empty (another opener made it first, or a making by migrations
 * was cut short), another process holds the write lock, or a statement failed (a full disk):
 * the migrator then runs as before, waits its turn, and says what it finds.
 * `afterStatement`: tests look at the store's files in the middle of the making.
 */
export function makeFromSnapshot(
  conn: SqliteDatabase.Database,
  afterStatement?: (i: number) => void,
): boolean {
  const snap = SQLITE_SNAPSHOT;
  const names = Object.keys(migrations);
  if (!ofTheseMigrations(snap)) return false;
  try {
    conn.exec("begin immediate");
  } catch {
    return false;
  }
  try {
    const tables = conn.prepare("select count(*) from sqlite_master").pluck().get();
    if (Number(tables) !== 0) {
      conn.exec("rollback");
      return false;
    }
    snap.statements.forEach((statement, i) => {
      conn.exec(statement);
      afterStatement?.(i);
    });
    const ran = conn.prepare("insert into kysely_migration (name, timestamp) values (?, ?)");
    for (const name of names) ran.run(name, new Date().toISOString());
    conn.exec("commit");
    return true;
  } catch {
    try {
      if (conn.inTransaction) conn.exec("rollback");
    } catch {
      // The migrator, next, meets what failed here and says it.
    }
    return false;
  }
}

/**
 * The lock kysely's PostgreSQL migrator takes while it migrates (its PostgresAdapter's LOCK_ID,
 * a session's advisory lock): one for the whole database, whichever schema a store is in.
 */
const KYSELY_MIGRATION_LOCK_ID = "3853314791062309107";
/** The SQLSTATE of makePostgresFromSnapshot's own refusal: the schema holds a relation already. */
const SCHEMA_NOT_EMPTY = "NR001";

/**
 * Whether the PostgreSQL store in `schema` has run no migration (postgresMigrationsPending's
 * `fresh`): one being made, or a schema with nothing in it. False when that cannot be read
 * (the migrator, next, meets what failed and says it).
 */
async function postgresStoreIsNew(db: Db, schema: string): Promise<boolean> {
  try {
    return (await postgresMigrationsPending(db, schema)).fresh;
  } catch {
    return false;
  }
}

/**
 * The one script that makes a new PostgreSQL store as every migration would, in the schema
 * its connection's search_path names (current_schema()), or undefined when the snapshot is not
 * of this version's migrations: in one transaction, kysely's migration lock taken first (the
 * same the migrator takes, for the whole database), then, should that schema hold any relation
 * already (another opener made the store first, a making by migrations was cut short, or the
 * schema is another program's), a refusal (SQLSTATE NR001) that ends it with nothing done;
 * else the schema the migrations leave (POSTGRES_SNAPSHOT, checked against them by
 * test/store/postgres-snapshot.test.ts) and kysely's record of each as run, then the commit.
 * The test stores' factory sends it too (test/store/stores.ts).
 */
export function postgresSnapshotScript(
  opts: {
    snapshot?: { migrations: readonly string[]; statements: readonly string[] };
    /** When the migrations are recorded as run (kysely_migration's timestamp). */
    at?: string;
    /**
     * Default true. False: no lock taken, for a schema no other opener can know of yet (the
     * test stores', made and filled in one script): several made at once do not wait on each
     * other for the one lock of the database.
     */
    lock?: boolean;
  } = {},
): string | undefined {
  const snapshot = opts.snapshot ?? POSTGRES_SNAPSHOT;
  const at = opts.at ?? new Date().toISOString();
  const names = Object.keys(migrations);
  if (!ofTheseMigrations(snapshot)) return undefined;
  const lit = (v: string) => `'${v.replaceAll("'", "''")}'`;
  return [
    "begin",
    ...(opts.lock === false
      ? []
      : [
          `select set_config('lock_timeout', '3600000', true), pg_advisory_xact_lock(${KYSELY_MIGRATION_LOCK_ID})`,
        ]),
    `do $nor$ begin if exists (select 1 from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace where n.nspname = current_schema()) then raise exception 'the schema holds a relation already' using errcode = '${SCHEMA_NOT_EMPTY}'; end if; end $nor$`,
    ...snapshot.statements,
    `insert into kysely_migration (name, timestamp) values ${names.map((n) => `(${lit(n)}, ${lit(at)})`).join(", ")}`,
    "commit",
  ].join(";\n");
}

/**
 * Makes a new PostgreSQL store (a schema with no relation at all) as every migration would, in
 * a fraction of the server's work: no table altered, no index made and dropped again
 * (postgresSnapshotScript), in one round trip on one connection. Nothing of it is seen until
 * its commit: a connection cut before leaves the schema as it was. True when made; false,
 * having changed nothing, when it was not: the snapshot is not of this version's migrations,
 * the schema holds a relation (another opener made the store while this one waited for the
 * lock, or a making by migrations was cut short), or a statement failed: the migrator then runs
 * as before, and says what it finds. `snapshot`: tests make one fail part way.
 */
export async function makePostgresFromSnapshot(
  db: Db,
  snapshot?: { migrations: readonly string[]; statements: readonly string[] },
): Promise<boolean> {
  const script = postgresSnapshotScript(snapshot ? { snapshot } : {});
  if (script === undefined) return false;
  try {
    return await db.connection().execute(async (conn) => {
      try {
        await sql.raw(script).execute(conn);
        return true;
      } catch {
        // A statement of it failed (the schema not empty among them): the transaction is
        // aborted, and ended here, on its own connection.
        await sql.raw("rollback").execute(conn);
        return false;
      }
    });
  } catch {
    // The connection itself failed (its rollback, or the server gone): the migrator, next,
    // meets what failed here and says it.
    return false;
  }
}

/**
 * The migrations kysely_migration does not list yet, and whether it lists none (a store being
 * made). One run that this version does not
 * know is thrown as NewerStore here, before the migrator would take the write lock for it: a
 * newer version's store is left as it is, read-only or not.
 */
async function sqliteMigrationsPending(db: Db): Promise<{ names: string[]; fresh: boolean }> {
  const table = await sql<{ name: string }>`select name from sqlite_master
    where type = 'table' and name = 'kysely_migration'`.execute(db);
  if (table.rows.length === 0) return { names: Object.keys(migrations), fresh: true };
  const ran = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
  const done = new Set(ran.rows.map((r) => r.name));
  const unknown = [...done].sort().find((n) => !Object.hasOwn(migrations, n));
  if (unknown !== undefined) throw new NewerStore(unknown);
  return { names: Object.keys(migrations).filter((n) => !done.has(n)), fresh: done.size === 0 };
}

/**
 * The migrations kysely_migration in `schema` does not list yet, and whether it lists none
 * (PostgreSQL; read as sqliteMigrationsPending reads SQLite's, nothing written, no lock). One
 * run that this version does not know is thrown as NewerStore.
 */
async function postgresMigrationsPending(
  db: Db,
  schema: string | undefined,
): Promise<{ names: string[]; fresh: boolean }> {
  const none = { names: Object.keys(migrations), fresh: true };
  if (schema === undefined) return none;
  // One statement: a store that has no table of migrations (undefined_table) has run none.
  const ran = await sql<{ name: string }>`select name from ${sql.id(schema, "kysely_migration")}`
    .execute(db)
    .catch((err: unknown) => {
      if ((err as { code?: unknown } | null)?.code === "42P01") return undefined;
      throw err;
    });
  if (ran === undefined) return none;
  const done = new Set(ran.rows.map((r) => r.name));
  const unknown = [...done].sort().find((n) => !Object.hasOwn(migrations, n));
  if (unknown !== undefined) throw new NewerStore(unknown);
  return { names: Object.keys(migrations).filter((n) => !done.has(n)), fresh: done.size === 0 };
}

/**
 * For a command that only reads (OpenOptions.readsOnly): throws, closing `db`, when the store
 * is not at this version's last migration: one an earlier version made (PendingMigrations, exit
 * 2), one a newer version migrated, one no migration has run on yet (a store whose making was
 * cut short: no store to read), or one whose migrations cannot be read (damaged: exit 1).
 * Returns, having written nothing, when nothing is pending.
 */
async function refusePendingMigrations(
  db: Db,
  loc: StoreLocation,
  schema: string | undefined,
): Promise<void> {
  const store = loc.kind === "sqlite" ? join(loc.dir, "nor.db") : redact(loc.url);
  let pending: { names: string[]; fresh: boolean };
  try {
    pending =
      loc.kind === "sqlite"
        ? await sqliteMigrationsPending(db)
        : await postgresMigrationsPending(db, schema);
  } catch (error) {
    await db.destroy().catch(() => {});
    const where = loc.kind === "sqlite" ? store : `the store at ${store}`;
    const state = storeStateError(where, error);
    if (state) throw state;
    throw new NorError("E_STORE", `cannot read the migrations of ${where}: ${String(error)}`, {
      cause: error,
    });
  }
  if (pending.names.length === 0) return;
  await db.destroy().catch(() => {});
  if (pending.fresh)
    throw new NorError(
      "E_CONFIG",
      `no store at ${store} yet (none of its migrations has run: one being made, or whose making was cut short): \`nor catalog import\` or \`nor night\` makes one; this command only reads, and changed nothing`,
    );
  throw new PendingMigrations(store, pending.names);
}

/**
 * A store an earlier version made, refused by a command that only reads (exit 2): said with
 * where it is, the migrations pending, and what to do. Nothing was changed in it.
 */
export class PendingMigrations extends NorError {
  override name = "PendingMigrations";
  readonly store: string;
  readonly migrations: readonly string[];
  constructor(store: string, names: readonly string[]) {
    const n = names.length;
    super(
      "E_CONFIG",
      `${store} was made by an earlier version of nor: ${n === 1 ? "1 migration is" : `${n} migrations are`} pending (${names.join(", ")}); this command only reads, so it changed nothing and an older nor can still read the store. To read it with this version, back it up first (docs/operations.md, "Backups"), then start nor on it as before (docs/operations.md, "Upgrading"): a command that writes (\`nor start\`, \`nor night\`, \`nor serve\`, \`nor catalog import\`) upgrades it, after which an older nor cannot read it. Or read it with the version of nor that made it`,
    );
    this.store = store;
    this.migrations = names;
  }
}

/** A migration the store has run that this version of nor does not have. */
class NewerStore extends Error {
  readonly migration: string;
  constructor(migration: string) {
    super(`the store has run migration ${migration}, unknown to this version`);
    this.migration = migration;
  }
}

/**
 * The migration a newer version ran, when `err` says the store has one: NewerStore (SQLite),
 * or kysely's own words for it (PostgreSQL, where kysely's migrator reads the table).
 */
function newerMigration(err: unknown): string | undefined {
  if (err instanceof NewerStore) return err.migration;
  const said = err instanceof Error ? err.message : "";
  return /^corrupted migrations: previously executed migration (.+) is missing$/.exec(said)?.[1];
}

/**
 * A store SQLite finds damaged, or may not write, said with its path (storeStateError): at its
 * open, or by any statement run on it later (a damaged page is met only when a statement reads
 * it; a write is refused only when one is tried).
 */
class StoreStateError extends NorError {
  override name = "StoreStateError";
}

/** A store SQLite finds damaged (SQLITE_CORRUPT…, SQLITE_NOTADB): storeDamagedError. */
class StoreDamaged extends StoreStateError {
  override name = "StoreDamaged";
}

/**
 * `err` said as a damaged store at `where` (`DATA/nor.db is damaged (SQLite: …): restore it
 * from a backup …`, E_STORE, exit 1) when SQLite found the store damaged (SQLITE_CORRUPT…,
 * SQLITE_NOTADB): by the store's own connection or by any other reader of the file (the web's
 * worker threads, read-pool.ts). Undefined for any other error; one already said so is given
 * back as it is.
 */
export function storeDamagedError(where: string, err: unknown): NorError | undefined {
  if (err instanceof StoreDamaged) return err;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return undefined;
  if (!code.startsWith("SQLITE_CORRUPT") && code !== "SQLITE_NOTADB") return undefined;
  const said = err instanceof Error ? err.message : code;
  // Exit 1, as any store that cannot be opened (test/store/review-open.test.ts).
  return new StoreDamaged(
    "E_STORE",
    `${where} is damaged (SQLite: ${said}): restore it from a backup (docs/operations.md, "Backups"); \`sqlite3 ${where} 'PRAGMA quick_check'\` lists what is damaged`,
    { cause: err },
  );
}

/**
 * The damaged store `err` says, or an error it was caused by (a few causes deep), as
 * storeDamagedError words it; undefined when it says none.
 */
export function storeDamageOf(err: unknown): NorError | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 8 && e instanceof Error; depth++, e = e.cause)
    if (e instanceof StoreDamaged) return e;
  return undefined;
}

/**
 * What the store's own state keeps any command from using it, said with where it is (`where`:
 * the SQLite file, or "the store at URL"): one a newer nor migrated, one SQLite finds damaged,
 * one it may not write. A newer or a read-only store waits for a person (E_CONFIG, exit 2): a
 * restart would only meet it again. A damaged one exits 1, as any store that cannot be opened.
 * Undefined for any other error; one already said so is given back as it is.
 */
function storeStateError(where: string, err: unknown): NorError | undefined {
  if (err instanceof StoreStateError) return err;
  const newer = newerMigration(err);
  if (newer !== undefined)
    return new NorError(
      "E_CONFIG",
      `${where} was migrated by a newer version of nor (migration ${newer} unknown here): upgrade nor, or restore a backup`,
      { cause: err },
    );
  const damaged = storeDamagedError(where, err);
  if (damaged !== undefined) return damaged;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return undefined;
  const said = err instanceof Error ? err.message : code;
  // A write the file system refused (a full disk, a file-size limit): said with the file it
  // could not write, exit 2 as a night stops for a full disk (disk-full.ts), never a bare "disk
  // I/O error" that names nothing.
  const refused = storeWriteRefused(err);
  if (refused !== undefined)
    return new StoreStateError(
      "E_CONFIG",
      refused === "full"
        ? `${where} could not be written: its disk is full (SQLite: ${said}); make room, then run the command again`
        : `${where} could not be written (SQLite: ${said}): the file system refused the write, as it does past a file-size limit (ulimit -f) or on a full or failing disk; raise the limit or make room, then run the command again`,
      { cause: err },
    );
  // A file moved or put in the store's place while open (a backup restored under a running
  // nor) is no read-only store: its error stays SQLite's own.
  if (code.startsWith("SQLITE_READONLY") && code !== "SQLITE_READONLY_DBMOVED")
    return new StoreStateError(
      "E_CONFIG",
      `${where} is read-only (SQLite: ${said}): nor writes to its store; make the file and its directory writable for this user, or choose another --data`,
      { cause: err },
    );
  return undefined;
}

/**
 * Refuses a store file this process may not write (a read-only mount, a file of another user's),
 * as storeStateError words it, or may not even read (`chmod 000`, another user's file not
 * readable by others): said as unreadable, not as read-only, for making it writable would not
 * do. An access(2) call or two, and none for a store not made yet.
 */
function refuseReadOnly(file: string): void {
  try {
    accessSync(file, constants.R_OK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return;
    throw new NorError(
      "E_CONFIG",
      `${file} cannot be read by this user (${code}): nor reads and writes its store; make the file readable and writable for this user, or choose another --data`,
      { cause: err },
    );
  }
  try {
    accessSync(file, constants.W_OK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return;
    const why =
      code === "EROFS" ? "on a read-only file system" : `not writable by this user: ${code}`;
    throw new NorError(
      "E_CONFIG",
      `${file} is read-only (${why}): nor writes to its store; make the file and its directory writable for this user, or choose another --data`,
      { cause: err },
    );
  }
}

/**
 * Why a command that only reads cannot open the store at `file`, when the reason is the
 * directory it is in: a store in WAL mode (every nor store) is read beside its shared-memory
 * file (`nor.db-shm`), which SQLite makes when no other process has the store open, and this
 * user may not make files in that directory (a data directory of another user's, a read-only
 * mount). SQLite says SQLITE_READONLY_DIRECTORY (or SQLITE_CANTOPEN); undefined for anything
 * else, and when the directory may be written after all.
 */
function cannotReadBeside(file: string, err: unknown): NorError | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return undefined;
  if (!code.startsWith("SQLITE_READONLY") && !code.startsWith("SQLITE_CANTOPEN")) return undefined;
  const dir = dirname(file);
  try {
    // A store this user may not read at all is said as that (refuseReadOnly).
    accessSync(file, constants.R_OK);
  } catch {
    return undefined;
  }
  try {
    accessSync(dir, constants.W_OK);
    return undefined;
  } catch (dirErr) {
    const rofs = (dirErr as NodeJS.ErrnoException).code === "EROFS";
    return new NorError(
      "E_CONFIG",
      `${file} cannot be read here: SQLite reads a nor store beside its shared-memory file (nor.db-shm), which it makes there when no other process has the store open, and ${dir} is ${
        rofs
          ? "on a read-only file system; read a copy of the store"
          : `not writable by this user (${why(dirErr)}); run the command as the user nor runs as, or while \`nor serve\` or a night has the store open, or on a copy of the store`
      } in a directory you may write in (docs/operations.md, "Backups")`,
      { cause: err },
    );
  }
}

/** SQLITE_BUSY and its extended codes: another connection holds the lock. */
function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("SQLITE_BUSY");
}

/** Tries after a race (the catalog's, or a lost deadlock): pauses of 25 ms doubling, about 1.6 s in all. */
const MIGRATION_RACE_TRIES = 6;

function isMigrationRace(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === "3F000" || code === "42P01" || code === "42703" || code === "40P01";
}

/** Whether kysely's migration table (every store has one) is in `schema` (PostgreSQL). */
async function hasMigrationTable(db: Db, schema: string | undefined): Promise<boolean> {
  if (schema === undefined) return false;
  const r = await sql<{ found: boolean }>`select exists (select 1 from information_schema.tables
    where table_schema = ${schema} and table_name = 'kysely_migration') as found`.execute(db);
  return r.rows[0]?.found === true;
}

async function currentSchema(db: Db): Promise<string | undefined> {
  const r = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db);
  return r.rows[0]?.schema ?? undefined;
}

function closeAndThrow(db: Db, loc: StoreLocation): (cause: unknown) => Promise<never> {
  return async (cause) => {
    await db.destroy().catch(() => {});
    // The driver's own parser refused the URL ("Invalid URL"): a configuration mistake, said
    // without the URL, which may hold a password. (Its Unix-socket forms, which WHATWG's URL
    // parser refuses, it reads: it alone decides.)
    if (loc.kind === "postgres" && (cause as { code?: unknown } | null)?.code === "ERR_INVALID_URL")
      throw new NorError(
        "E_CONFIG",
        "NOR_DATABASE_URL does not parse as a URL (postgres://user@host:port/database); check its host, port and escaping",
        { cause },
      );
    const where = loc.kind === "postgres" ? redact(loc.url) : loc.dir;
    throw new NorError("E_STORE", `cannot reach the store at ${where}: ${String(cause)}`, {
      cause,
    });
  };
}

/** The URL as said in a message: its password, in the user-info or the query, as `***`. */
function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    for (const key of [...u.searchParams.keys()])
      if (/^(password|passwd|pass|pwd|sslpassword)$/i.test(key)) u.searchParams.set(key, "***");
    return u.toString();
  } catch {
    return "the NOR_DATABASE_URL given";
  }
}

/**
 * SQLite transactions that take the write lock when they begin (`BEGIN IMMEDIATE`). Several
 * processes share one store (`nor night` workers, `nor discover`): a deferred transaction that
 * reads and then writes fails at once with "database is locked" when another process wrote in
 * between, where an immediate one waits its turn (busy_timeout). Its adapter says what is true
 * of SQLite, that DDL is transactional, so kysely's migrator runs the pending migrations in one
 * such transaction (migrateSqlite). Its connection says a damaged or read-only store with the
 * store's path (`file`), as openStore does (storeStateErrors).
 */
class ImmediateSqliteDialect extends SqliteDialect {
  readonly #direct: SqliteDirect;
  readonly #file: string;
  readonly #lockWait: LockWait;

  constructor(
    config: ConstructorParameters<typeof SqliteDialect>[0],
    direct: SqliteDirect,
    file: string,
    lockWait: LockWait,
  ) {
    super(config);
    this.#direct = direct;
    this.#file = file;
    this.#lockWait = lockWait;
  }

  override createAdapter(): DialectAdapter {
    return new TransactionalDdlSqliteAdapter();
  }

  override createDriver(): Driver {
    const driver = super.createDriver();
    driver.beginTransaction = async (connection: DatabaseConnection) => {
      await connection.executeQuery(CompiledQuery.raw("begin immediate"));
    };
    // SQLite rolls a transaction back itself when a write in it fails (a full disk, a
    // file-size limit: SQLITE_FULL, SQLITE_IOERR): the rollback kysely then asks finds none,
    // and its "cannot rollback - no transaction is active" would be thrown in place of the
    // write's own error, which says what happened and to which file.
    const rollback = driver.rollbackTransaction.bind(driver);
    driver.rollbackTransaction = async (connection: DatabaseConnection) => {
      try {
        await rollback(connection);
      } catch (err) {
        if (!noTransactionActive(err)) throw err;
      }
    };
    const acquire = driver.acquireConnection.bind(driver);
    const file = this.#file;
    const lockWait = this.#lockWait;
    driver.acquireConnection = async () => storeStateErrors(await acquire(), file, lockWait);
    return this.#direct.count(driver);
  }
}

/** How a SQLite store's writes wait for another process's write lock (waitForLock). */
interface LockWait {
  /** Whether the store's connection is inside a transaction (then a busy statement fails). */
  inTransaction(): boolean;
  /**
   * The connection's busy wait now, ms: 0 while migrations poll for the lock themselves
   * (migrateSqlite), whose statements then fail at once as they expect.
   */
  busyTimeout(): number;
  note?: (text: string) => void;
  limitMs: number;
  /**
   * The wait under way on this connection, shared by the statements that take it up one after
   * another (kysely runs one at a time): since when its tries have failed, when the last one
   * did, and when it was last said. A statement queued behind one that gave up (the writes of a
   * group commit's batch run again one by one, a console write behind another) goes on with
   * that wait, so the bound holds for all of them, not for each anew. A try that gets through
   * ends it; so does a pause of LOCK_WAIT_GAP_MS with no try failing.
   */
  episode?: { since: number; last: number; noted: number } | undefined;
}

/** The errors of waits for the write lock given up (waitForLock). */
const gaveUp = new WeakSet<object>();

/**
 * Whether `err` is a write's giving up on the store's write lock, held by another process past
 * the wait's bound: nothing of the statement was done, and another try now only meets it again.
 */
export function lockWaitGivenUp(err: unknown): boolean {
  return typeof err === "object" && err !== null && gaveUp.has(err);
}

/** A failed try this long after the last one begins a wait of its own (waitForLock). */
const LOCK_WAIT_GAP_MS = 1000;

/**
 * A statement other than a read ran on the store's connection: the write lock was to be had,
 * so the wait under way, if any, is over (LockWait.episode). A read proves nothing of the lock.
 */
function gotThrough(w: LockWait, text: string): void {
  if (w.episode !== undefined && !/^\s*select\b/i.test(text)) w.episode = undefined;
}

/**
 * A statement that found the write lock held past its try (the connection's busy wait,
 * LOCK_TRY_MS) tried again, with pauses in which this process's other work runs, until it gets
 * the lock or STORE_LOCK_WAIT_MS (`limitMs`) has passed since it began waiting; a wait past
 * BUSY_TIMEOUT_MS is said (`note`), then again each minute, with what it waits on. Given up, it
 * fails as the store's error (E_STORE, exit 1), saying why. Only a statement outside a
 * transaction is tried again (a `begin immediate`, or a write that is its own transaction):
 * SQLite did nothing of it. Each try holds the thread for LOCK_TRY_MS at most.
 */
async function waitForLock<R>(
  run: () => Promise<QueryResult<R>>,
  file: string,
  w: LockWait,
  first: unknown,
  busyMs: number,
): Promise<QueryResult<R>> {
  // The first try has passed already (SQLite's busy wait, on this thread). A wait that another
  // statement of this connection was in, its last try failing just now, goes on.
  const now = performance.now();
  const going = w.episode;
  const ep =
    going !== undefined && now - going.last <= LOCK_WAIT_GAP_MS + busyMs
      ? going
      : { since: now - busyMs, last: now, noted: Number.NEGATIVE_INFINITY };
  ep.last = now;
  w.episode = ep;
  const began = ep.since;
  let last = first;
  for (;;) {
    const waited = performance.now() - began;
    if (waited >= w.limitMs) {
      const given = new NorError(
        "E_STORE",
        `the store at ${file} stayed locked by another process for ${Math.round(waited / 1000)} s (one stopped or frozen in the middle of a write, e.g. by SIGSTOP, or a suspended machine); this process gives up (exit 1): run it again once that process has gone on or ended`,
        { cause: last },
      );
      gaveUp.add(given);
      throw given;
    }
    const long = waited >= BUSY_TIMEOUT_MS;
    if (
      long &&
      (ep.noted === Number.NEGATIVE_INFINITY || waited - ep.noted >= LOCK_NOTE_EVERY_MS)
    ) {
      ep.noted = waited;
      w.note?.(
        `waiting for the store's write lock at ${file}, held by another process for ${Math.round(waited / 1000)} s now (one stopped or frozen in the middle of a write?); waiting up to ${Math.round(w.limitMs / 1000)} s in all`,
      );
    }
    const pause = long ? LOCK_RETRY_PAUSE_MS : LOCK_FIRST_PAUSE_MS;
    // Real time, not a Clock's: the lock is another process's, let go in real time, each try
    // holds the thread for SQLite's own busy wait (LOCK_TRY_MS) in real time, and the bound is
    // counted on the monotonic clock above; a simulated clock's pause between them would not
    // shorten the wait, only unpair it from its bound. openStore is given no clock; tests
    // shorten the bound (OpenOptions.lockWaitMs) and hold the lock from a process of their own.
    await new Promise<void>((r) => setTimeout(r, pause));
    let out: QueryResult<R>;
    try {
      out = await run();
    } catch (err) {
      ep.last = performance.now();
      if (!isBusy(err) || w.inTransaction()) throw storeStateError(file, err) ?? err;
      last = err;
      continue;
    }
    // Got through: the wait is over, for the statements after this one too.
    if (w.episode === ep) w.episode = undefined;
    return out;
  }
}

/** SQLite's answer to a rollback when the transaction was already rolled back. */
function noTransactionActive(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  return (
    e?.code === "SQLITE_ERROR" &&
    typeof e.message === "string" &&
    e.message.includes("no transaction is active")
  );
}

const sayingState = new WeakSet<DatabaseConnection>();

/**
 * The connection, its executeQuery and streamQuery now throwing a damaged store (SQLITE_CORRUPT,
 * SQLITE_NOTADB) or a read-only one (SQLITE_READONLY) as storeStateError words it, with `file`,
 * wherever the statement was asked from: a page is found damaged only when a statement reads
 * it, and a write refused only when one is tried, long after the store opened (`nor mark`, `nor
 * site` and every other command alike). Any other error is thrown as it was. Patched on the
 * instance, once (the driver hands its one connection out again), as no-nul.ts does. kysely's
 * SQLite connection runs a statement synchronously and throws its error at once, so no promise
 * is added to a statement that succeeds.
 */
function storeStateErrors(
  conn: DatabaseConnection,
  file: string,
  lockWait?: LockWait,
): DatabaseConnection {
  if (sayingState.has(conn)) return conn;
  const execute = conn.executeQuery.bind(conn);
  const stream = conn.streamQuery.bind(conn);
  conn.executeQuery = <R>(q: CompiledQuery): Promise<QueryResult<R>> => {
    try {
      const out = execute<R>(q);
      if (lockWait !== undefined) gotThrough(lockWait, q.sql);
      return out;
    } catch (err) {
      // The write lock held by another process past the busy wait: a statement that begins a
      // transaction, or one that is a transaction of its own, did nothing and is tried again.
      if (lockWait !== undefined && isBusy(err) && !lockWait.inTransaction()) {
        const busyMs = lockWait.busyTimeout();
        if (busyMs > 0) return waitForLock(() => execute<R>(q), file, lockWait, err, busyMs);
      }
      throw storeStateError(file, err) ?? err;
    }
  };
  conn.streamQuery = <R>(q: CompiledQuery, chunkSize?: number) =>
    statedStream(stream<R>(q, chunkSize), file);
  sayingState.add(conn);
  return conn;
}

async function* statedStream<R>(
  rows: AsyncIterableIterator<QueryResult<R>>,
  file: string,
): AsyncIterableIterator<QueryResult<R>> {
  try {
    yield* rows;
  } catch (err) {
    throw storeStateError(file, err) ?? err;
  }
}

/**
 * The store's hot statements run on its connection straight (sqlite-direct.ts), saying a
 * damaged or read-only store as storeStateErrors does for those kysely runs.
 */
class StoreDirect extends SqliteDirect {
  readonly #file: string;
  /** The store's own connection's lock wait (none: a read-only connection). */
  lockWait: LockWait | undefined;

  constructor(file: string, ...rest: ConstructorParameters<typeof SqliteDirect>) {
    super(...rest);
    this.#file = file;
  }

  override execute<R>(sql: string, values: readonly unknown[]): QueryResult<R> {
    try {
      const out = super.execute<R>(sql, values);
      if (this.lockWait !== undefined) gotThrough(this.lockWait, sql);
      return out;
    } catch (err) {
      throw storeStateError(this.#file, err) ?? err;
    }
  }
}

class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}
