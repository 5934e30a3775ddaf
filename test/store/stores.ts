import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Sqlite from "better-sqlite3";
import { Kysely, Migrator, SqliteDialect, sql } from "kysely";
import pg from "pg";
import { afterAll } from "vitest";
import type { StoreLocation } from "../../src/store/db.js";
import { migrationProvider } from "../../src/store/migrations/index.js";
import { CurrentSchemaPostgresDialect } from "../../src/store/pg-current-schema.js";

/** Where a contract test gets fresh, isolated stores, and how it cleans them all up. */
export interface StoreFactory {
  name: string;
  fresh(): Promise<StoreLocation>;
  cleanup(): Promise<void>;
}

/** SQLite: one temp directory per store. */
export function sqliteFactory(): StoreFactory {
  const dirs: string[] = [];
  return {
    name: "sqlite",
    fresh: async () => {
      const dir = mkdtempSync(join(tmpdir(), "nor-store-"));
      dirs.push(dir);
      return { kind: "sqlite", dir };
    },
    cleanup: async () => {
      for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
    },
  };
}

/** NOR_TEST_POSTGRES_URL, when set (postgres://postgres@127.0.0.1:5432/test here). */
export const postgresUrl = process.env["NOR_TEST_POSTGRES_URL"];

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
  return {
    name: "postgres",
    fresh: async () => {
      const schema = `nor_test_${process.pid}_${Date.now().toString(36)}_${schemas.length}`;
      await admin((c) => c.query(`create schema "${schema}"`));
      schemas.push(schema);
      return { kind: "postgres", url: withSearchPath(baseUrl, schema) };
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
