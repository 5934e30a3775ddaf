import { constants, copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Sqlite from "better-sqlite3";
import { Kysely, Migrator, SqliteDialect, sql } from "kysely";
import pg from "pg";
import { afterAll } from "vitest";
import { openStore, postgresSnapshotScript, type StoreLocation } from "../../src/store/db.js";
import { migrationProvider } from "../../src/store/migrations/index.js";
import { CurrentSchemaPostgresDialect } from "../../src/store/pg-current-schema.js";

/** Where a contract test gets fresh, isolated stores, and how it cleans them all up. */
export interface StoreFactory {
  name: string;
  /** A place with no store yet: openStore makes one there (runs every migration). */
  fresh(): Promise<StoreLocation>;
  /**
   * A place holding a store as openStore makes one (every migration run, nothing else in it),
   * isolated as fresh()'s: for a test whose first step is openStore(loc) with no options, which
   * then finds nothing to migrate. SQLite: a copy of one store this process made once by
   * openStore, so the suite does not make each store again (since a new store is made from
   * the migrations' snapshot, about 6 ms of CPU a store; by the migrations, 30–45 ms). PostgreSQL: a fresh schema made from the migrations' snapshot, as fresh() and
   * openStore would. A test about making or upgrading a store uses fresh().
   */
  migrated(): Promise<StoreLocation>;
  cleanup(): Promise<void>;
}

/**
 * Removed when the process ends: the templates below, made once per process. Under the run's
 * own directory (test/global-tmp.ts), which goes with the run: vitest ends its workers with
 * SIGTERM, which the `exit` hook does not see.
 */
const templateDirs: string[] = [];
let exitHooked = false;
export function tempDirOfProcess(prefix: string): string {
  const dir = mkdtempSync(join(process.env["NOR_TEST_RUN_TMP"] ?? tmpdir(), prefix));
  templateDirs.push(dir);
  if (!exitHooked) {
    exitHooked = true;
    process.once("exit", () => {
      for (const d of templateDirs) rmSync(d, { recursive: true, force: true });
    });
  }
  return dir;
}

/** nor.db as openStore makes it, closed (its WAL checkpointed into it and removed). */
let sqliteTemplate: Promise<string> | undefined;
export function sqliteTemplateFile(): Promise<string> {
  sqliteTemplate ??= (async () => {
    const dir = tempDirOfProcess("nor-store-template-");
    const store = await openStore({ kind: "sqlite", dir });
    await store.close();
    const file = join(dir, "nor.db");
    // A clean close leaves the store whole in nor.db; anything beside it would be missed.
    for (const part of ["-wal", "-shm", "-journal"])
      if (existsSync(`${file}${part}`)) throw new Error(`${file}${part} left after close`);
    return file;
  })();
  return sqliteTemplate;
}

/**
 * Puts in `dir` (a directory with no store) a store as openStore makes one there: see
 * StoreFactory.migrated().
 */
export async function migratedSqliteIn(dir: string): Promise<void> {
  copyFileSync(await sqliteTemplateFile(), join(dir, "nor.db"), constants.COPYFILE_EXCL);
}

/** SQLite: one temp directory per store. */
export function sqliteFactory(): StoreFactory {
  const dirs: string[] = [];
  const fresh = async (): Promise<StoreLocation> => {
    const dir = mkdtempSync(join(tmpdir(), "nor-store-"));
    dirs.push(dir);
    return { kind: "sqlite", dir };
  };
  return {
    name: "sqlite",
    fresh,
    migrated: async () => {
      const loc = await fresh();
      if (loc.kind === "sqlite") await migratedSqliteIn(loc.dir);
      return loc;
    },
    cleanup: async () => {
      for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
    },
  };
}

/** NOR_TEST_POSTGRES_URL, when set (postgres://postgres@127.0.0.1:5432/test here). */
export const postgresUrl = process.env["NOR_TEST_POSTGRES_URL"];

/** Stands for the store's schema in a recorded migration (a name no schema has). */
const SCHEMA_MARK = "\u0000schema\u0000";

/** Per server URL: openStore's migration of a fresh schema, as one script (see migrated()). */
const migrationScripts = new Map<string, Promise<string | undefined>>();

/**
 * Runs `open` (openStore on a fresh `schema`, then its close) and returns, as one script,
 * every statement its connections sent that changes the schema, in order: the migrator's own
 * tables and lock row, then the migrations (their parameters written in as literals).
 * Statements that only read (kysely's introspection, the migrator's listing and advisory lock)
 * and the transaction's begin and commit are left out: the script runs in a transaction of its
 * own. Only this schema's connections (search_path in their options) are recorded.
 */
async function recordMigration(schema: string, open: () => Promise<void>): Promise<string> {
  const sent: string[] = [];
  recorders.set(`search_path=${schema} `, sent);
  if (recorders.size === 1) proto.query = recordingQuery;
  try {
    await open();
  } finally {
    recorders.delete(`search_path=${schema} `);
    if (recorders.size === 0) proto.query = originalQuery;
  }
  const first = sent.findIndex((q) =>
    /^create table if not exists "[^"]+"\."kysely_migration"/.test(q),
  );
  if (first === -1) throw new Error("recordMigration: no kysely_migration table made");
  const script = sent
    .slice(first)
    .filter((q) => !/^\s*(select|with|begin|commit|rollback)\b/i.test(q))
    .map((q) => q.split(`"${schema}"`).join(`"${SCHEMA_MARK}"`));
  for (const q of script)
    if (q.includes(schema)) throw new Error(`recordMigration: the schema named unquoted: ${q}`);
  return script.join(";\n");
}

/** The statements being recorded, by the `search_path=…` their connections' options hold. */
const recorders = new Map<string, string[]>();
type Query = (this: pg.Client, ...args: unknown[]) => unknown;
const proto = pg.Client.prototype as unknown as { query: Query };
const originalQuery = proto.query;
/** pg's Client#query, recording what a connection of a recorded schema sends. */
const recordingQuery: Query = function (this: pg.Client, ...args: unknown[]) {
  const options = (this as unknown as { connectionParameters?: { options?: string } })
    .connectionParameters?.options;
  const [text, values] = args;
  if (options && typeof text === "string")
    for (const [mine, sent] of recorders)
      if (`${options} `.includes(mine))
        sent.push(inlined(text, Array.isArray(values) ? values : []));
  return originalQuery.apply(this, args);
};

/** `text` with its $n parameters written in as SQL literals. */
function inlined(text: string, values: readonly unknown[]): string {
  if (values.length === 0) return text;
  return text.replace(/\$(\d+)/g, (_, n: string) => {
    const v = values[Number(n) - 1];
    if (typeof v === "number" && Number.isFinite(v)) return String(v);
    if (typeof v === "string") return pg.Client.prototype.escapeLiteral(v);
    if (v === null) return "null";
    throw new Error(`recordMigration: a parameter not written in: ${typeof v}`);
  });
}

/**
 * PostgreSQL: one fresh schema per store, reached through the pool's connection options
 * (`-c search_path=…`), dropped afterwards, so parallel test files never share a table.
 */
export function postgresFactory(baseUrl: string): StoreFactory {
  const schemas: string[] = [];
  const admin = async <T>(fn: (c: pg.Client) => Promise<T>): Promise<T> => {
    const c = new pg.Client({ connectionString: baseUrl });
    await c.connect();
    try {
      return await fn(c);
    } finally {
      await c.end();
    }
  };
  const name = () => `nor_test_${process.pid}_${Date.now().toString(36)}_${schemas.length}`;
  return {
    name: "postgres",
    fresh: async () => {
      const schema = name();
      await admin((c) => c.query(`create schema "${schema}"`));
      schemas.push(schema);
      return { kind: "postgres", url: withSearchPath(baseUrl, schema) };
    },
    // The schema made as openStore makes a new one: the migrations' snapshot sent as one
    // script (postgresSnapshotScript, one round trip, one transaction), which makes the same
    // tables, columns and indexes in the same order as the migrations would
    // (test/store/postgres-snapshot.test.ts compares them). Only while the snapshot is not this
    // version's (a migration added, the snapshot not written again): the process's first is a
    // fresh schema migrated by openStore, every statement it sends recorded, and the others
    // those statements sent again, in their order, in a new schema (one round trip, one
    // transaction; test/store/pg-test-store-clone.test.ts compares them). A schema restored
    // from pg_dump's copy of one was tried and is not the same store to the planner (its
    // indexes made in another order, a tie between two broken the other way:
    // console-log.test.ts's plan).
    migrated: async () => {
      const schema = name();
      schemas.push(schema);
      const loc: StoreLocation = { kind: "postgres", url: withSearchPath(baseUrl, schema) };
      // No lock: no other opener knows of this schema, and the tests' stores made at once in
      // other workers need not wait on each other for the database's one migration lock.
      const script = postgresSnapshotScript({ lock: false });
      if (script !== undefined) {
        const c = new pg.Client({ connectionString: loc.url });
        await c.connect();
        try {
          await c.query(`create schema "${schema}";\n${script}`);
        } finally {
          await c.end();
        }
        return loc;
      }
      const recorded = await migrationScripts.get(baseUrl);
      if (recorded !== undefined) {
        await admin((c) =>
          c.query(
            `begin; create schema "${schema}"; set local search_path to "${schema}";\n${recorded.split(SCHEMA_MARK).join(schema)};\ncommit`,
          ),
        );
        return loc;
      }
      const made = (async () => {
        await admin((c) => c.query(`create schema "${schema}"`));
        return recordMigration(schema, async () => (await openStore(loc)).close());
      })();
      // Another store asked for meanwhile waits for this one's script (none if it failed: then
      // it is migrated by openStore, and recorded, itself).
      migrationScripts.set(
        baseUrl,
        made.catch(() => {
          migrationScripts.delete(baseUrl);
          return undefined;
        }),
      );
      await made;
      return loc;
    },
    cleanup: async () => {
      const all = schemas.splice(0);
      if (all.length === 0) return;
      await admin(async (c) => {
        for (const s of all) await c.query(`drop schema if exists "${s}" cascade`);
      });
    },
  };
}

/**
 * The stores a contract test runs over: SQLite, and PostgreSQL when NOR_TEST_POSTGRES_URL is
 * set; every store made is removed once the file's tests are done.
 */
export function storeFactories(): StoreFactory[] {
  const factories: StoreFactory[] = [sqliteFactory()];
  if (postgresUrl) factories.push(postgresFactory(postgresUrl));
  afterAll(async () => {
    for (const f of factories) await f.cleanup();
  });
  return factories;
}

/** A connection string whose every connection starts with `search_path` set to `schema`. */
export function withSearchPath(url: string, schema: string): string {
  const sep = url.includes("?") ? "&" : "?";
  // No parallel query: a parallel worker was seen resolving a name outside this schema (42703)
  // while other test files migrate their own schemas at the same time.
  return `${url}${sep}options=${encodeURIComponent(`-c search_path=${schema} -c max_parallel_workers_per_gather=0`)}`;
}

/**
 * A bare kysely over the store at `loc` (no migrations run, no statement cache), as an older
 * version would have opened it; the PostgreSQL one keeps to the store's schema.
 */
export function rawStore(loc: StoreLocation): Kysely<unknown> {
  return loc.kind === "sqlite"
    ? new Kysely<unknown>({
        dialect: new SqliteDialect({ database: new Sqlite(join(loc.dir, "nor.db")) }),
      })
    : new Kysely<unknown>({
        dialect: new CurrentSchemaPostgresDialect({
          pool: new pg.Pool({ connectionString: loc.url, max: 1 }),
        }),
      });
}

/**
 * The store at `loc` as an older version left it: migrated up to `migration` and no further,
 * then `fill` run on it.
 */
export async function leftAt(
  loc: StoreLocation,
  migration: string,
  fill: (db: Kysely<unknown>) => Promise<void>,
): Promise<void> {
  const db = rawStore(loc);
  try {
    const schema =
      loc.kind === "postgres"
        ? (await sql<{ s: string }>`select current_schema() as s`.execute(db)).rows[0]?.s
        : undefined;
    const { error } = await new Migrator({
      db,
      provider: migrationProvider,
      ...(schema ? { migrationTableSchema: schema } : {}),
    }).migrateTo(migration);
    if (error) throw error;
    await fill(db);
  } finally {
    await db.destroy();
  }
}
