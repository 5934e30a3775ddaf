/**
 * A new PostgreSQL store is made from a snapshot of the schema its migrations leave
 * (src/store/migrations/postgres-snapshot.ts, makePostgresFromSnapshot in src/store/db.ts), in
 * one transaction sent as one script, not by running every migration: it must be the very store
 * they make, in whatever schema the store's search_path names, and a making cut short must leave
 * nothing made. As test/store/sqlite-snapshot.test.ts for SQLite.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Kysely, type Migration, Migrator, sql } from "kysely";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import {
  type Db,
  makePostgresFromSnapshot,
  openStore,
  postgresSnapshotScript,
  type StoreLocation,
} from "../../src/store/db.js";
import { migrations } from "../../src/store/migrations/index.js";
import { POSTGRES_SNAPSHOT } from "../../src/store/migrations/postgres-snapshot.js";
import { CurrentSchemaPostgresDialect } from "../../src/store/pg-current-schema.js";
import { waiting } from "./pg-locks.js";
import {
  clientOf,
  describePostgresSchema,
  type PostgresSnapshot,
  postgresSnapshotOf,
  schemaOf,
} from "./postgres-description.js";
import { postgresFactory, postgresUrl, rawStore } from "./stores.js";

const factory = postgresUrl ? postgresFactory(postgresUrl) : undefined;
afterAll(async () => {
  await factory?.cleanup();
});
const fresh = () => (factory as NonNullable<typeof factory>).fresh();
const REGENERATE =
  "NOR_WRITE_POSTGRES_SNAPSHOT=1 NOR_TEST_POSTGRES_URL=postgres://… npx vitest run test/store/postgres-snapshot.test.ts";

/** Runs `fn` with a client of the server, the store at `loc`'s schema its search_path. */
async function on<T>(loc: StoreLocation, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  if (loc.kind !== "postgres") throw new Error("not a PostgreSQL store");
  const c = await clientOf(loc.url);
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

const described = (loc: StoreLocation) => on(loc, (c) => describePostgresSchema(c, schemaOf(loc)));

/** A new schema migrated by openStore, every migration run one by one. */
async function byMigrations(): Promise<StoreLocation> {
  const loc = await fresh();
  await (await openStore(loc, { bySnapshot: false })).close();
  return loc;
}

/** The description of a store every migration made (one a file: the server's work is dear). */
let referenceOnce: Promise<unknown> | undefined;
function reference(): Promise<unknown> {
  referenceOnce ??= byMigrations().then(described);
  return referenceOnce;
}

/**
 * Whether the store's records table is the one it was made as: a migration that adds a stored
 * generated column (018) writes the table anew (a new file, its relfilenode no longer its oid),
 * which a store made from the snapshot never does.
 */
async function recordsNeverRewritten(loc: StoreLocation): Promise<boolean> {
  return on(loc, async (c) => {
    const r = await c.query(
      `select relfilenode = oid as same from pg_class
       where relname = 'records' and relnamespace = (select oid from pg_namespace where nspname = $1)`,
      [schemaOf(loc)],
    );
    return r.rows[0]?.same === true;
  });
}

async function relationCount(loc: StoreLocation): Promise<number> {
  return on(loc, async (c) => {
    const r = await c.query(
      `select count(*)::int as n from pg_class
       where relnamespace = (select oid from pg_namespace where nspname = $1)`,
      [schemaOf(loc)],
    );
    return r.rows[0]?.n as number;
  });
}

/** A key of an advisory lock this test alone takes (under 2^32: pg_locks' objid alone). */
function testLockKey(): string {
  return String(3_000_000_000 + Math.floor(Math.random() * 1_000_000_000));
}

/** The backend of a pool of one connection (rawStore's), kept idle in it for the next. */
async function backendOf(db: Kysely<unknown>): Promise<number> {
  return (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db)).rows[0]
    ?.pid as number;
}

/** The snapshot with `statement` put in at `at`. */
function withStatement(at: number, statement: string): PostgresSnapshot {
  const statements = [...POSTGRES_SNAPSHOT.statements];
  statements.splice(at, 0, statement);
  return { migrations: [...POSTGRES_SNAPSHOT.migrations], statements };
}

const asDb = (db: Kysely<unknown>) => db as unknown as Db;

/** rawStore's, a pool of one connection that the server may end (its error listened to). */
function droppable(loc: StoreLocation): Kysely<unknown> {
  if (loc.kind !== "postgres") throw new Error("not a PostgreSQL store");
  const pool = new pg.Pool({ connectionString: loc.url, max: 1 });
  pool.on("error", () => {});
  pool.on("connect", (client) => client.on("error", () => {}));
  return new Kysely<unknown>({ dialect: new CurrentSchemaPostgresDialect({ pool }) });
}

describe.skipIf(!factory)("a new PostgreSQL store made from the migrations' snapshot (P27)", () => {
  it("P27: the snapshot is of this version's migrations, as they leave a new store", async () => {
    const loc = await byMigrations();
    const want = await on(loc, (c) => postgresSnapshotOf(c, schemaOf(loc)));
    const file = join(import.meta.dirname, "../../src/store/migrations/postgres-snapshot.ts");
    if (process.env["NOR_WRITE_POSTGRES_SNAPSHOT"] === "1")
      writeFileSync(
        file,
        `/**\n * The schema every migration leaves a new PostgreSQL store with, for makePostgresFromSnapshot\n * (db.ts). Written by test/store/postgres-snapshot.test.ts (NOR_WRITE_POSTGRES_SNAPSHOT=1\n * NOR_TEST_POSTGRES_URL=… npx vitest run test/store/postgres-snapshot.test.ts, then \`npx biome\n * check --write\` it) after a migration is added; that test checks it, and db.ts uses it only\n * while it lists this version's migrations. Its statements name no schema: they make the store\n * in the one its connection's search_path names.\n */\nexport const POSTGRES_SNAPSHOT: { migrations: readonly string[]; statements: readonly string[] } = ${JSON.stringify(want, null, 2)};\n`,
      );
    const held = {
      migrations: [...POSTGRES_SNAPSHOT.migrations],
      statements: [...POSTGRES_SNAPSHOT.statements],
    };
    if (process.env["NOR_WRITE_POSTGRES_SNAPSHOT"] === "1")
      expect(
        held,
        "src/store/migrations/postgres-snapshot.ts written anew: `npx biome check --write` it, then run test/store/postgres-snapshot.test.ts again (without NOR_WRITE_POSTGRES_SNAPSHOT; this run's other tests still used the old snapshot)",
      ).toEqual(want);
    expect(
      held,
      `src/store/migrations/postgres-snapshot.ts is not what the migrations make: write it again (${REGENERATE})`,
    ).toEqual(want);
    expect(want.migrations).toEqual(Object.keys(migrations));
  });

  it("P27: a new store made by openStore is the store every migration run one by one makes: relations in their order, columns, constraints, indexes, sequences, rows, migrations run", async () => {
    const want = await reference();
    const loc = await fresh();
    await (await openStore(loc)).close();
    expect(await described(loc)).toEqual(want);
    // The comparison sees something: the store's tables and indexes are there.
    expect(JSON.stringify(want)).toContain("records_source_instant");
    // Made from the snapshot, not by the migrations: no table written anew.
    expect(
      await recordsNeverRewritten(loc),
      `made by the migrations, not the snapshot: is it this version's? (${REGENERATE})`,
    ).toBe(true);
    // And it opens again with nothing to migrate.
    const said: unknown[] = [];
    await (await openStore(loc, { onUpgrade: (u) => said.push(u) })).close();
    expect(said).toEqual([]);
    expect(await described(loc)).toEqual(want);
  });

  it("P27: the snapshot's script is refused as a whole on a schema that holds any relation, and is no snapshot when it is not this version's", async () => {
    expect(
      postgresSnapshotScript({ snapshot: { migrations: ["001-log"], statements: [] } }),
    ).toBeUndefined();
    const loc = await fresh();
    await on(loc, (c) => c.query("create table someone_elses (a int)"));
    const db = rawStore(loc);
    try {
      expect(await makePostgresFromSnapshot(asDb(db))).toBe(false);
    } finally {
      await db.destroy();
    }
    expect(await relationCount(loc)).toBe(1);
  });

  it("P27: a making cut off in the middle (its connection ended) or failing part way leaves the schema as it was, and the next opener makes the store whole", async () => {
    const want = await reference();
    const half = Math.floor(POSTGRES_SNAPSHOT.statements.length / 2);
    // Cut off: half the statements run, then it waits on a lock the test holds, and its
    // backend is ended there. Nothing of it is seen meanwhile, nor after.
    {
      const loc = await fresh();
      const key = testLockKey();
      const admin = new pg.Client({ connectionString: postgresUrl });
      await admin.connect();
      const db = droppable(loc);
      try {
        await admin.query(`select pg_advisory_lock(${key})`);
        const pid = await backendOf(db);
        const making = makePostgresFromSnapshot(
          asDb(db),
          withStatement(half, `select pg_advisory_xact_lock(${key})`),
        );
        await waiting(admin, [pid], key);
        expect(await relationCount(loc)).toBe(0);
        await admin.query("select pg_terminate_backend($1)", [pid]);
        expect(await making).toBe(false);
      } finally {
        // The lock let go first: a making still waiting on it ends, and the pool with it.
        await admin.end();
        await db.destroy().catch(() => {});
      }
      expect(await relationCount(loc)).toBe(0);
      // A command that only reads finds no store yet; one that writes makes it whole.
      await expect(openStore(loc, { readsOnly: true })).rejects.toThrow(/no store at .* yet/);
      await (await openStore(loc)).close();
      expect(await described(loc)).toEqual(want);
    }
    // Failing: a statement refused half way.
    {
      const loc = await fresh();
      const db = rawStore(loc);
      try {
        expect(await makePostgresFromSnapshot(asDb(db), withStatement(half, "select 1/0"))).toBe(
          false,
        );
        // Its connection is usable again (rolled back), for the migrator after it.
        expect((await sql<{ n: number }>`select 1 as n`.execute(db)).rows).toEqual([{ n: 1 }]);
      } finally {
        await db.destroy();
      }
      expect(await relationCount(loc)).toBe(0);
      await (await openStore(loc)).close();
      expect(await described(loc)).toEqual(want);
      expect(await recordsNeverRewritten(loc)).toBe(true);
    }
  });

  it("P27: two makers of one new schema at once: one makes it, the other, having waited for kysely's migration lock, finds it made and changes nothing", async () => {
    const want = await reference();
    const loc = await fresh();
    const key = testLockKey();
    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    const a = rawStore(loc);
    const b = rawStore(loc);
    try {
      await admin.query(`select pg_advisory_lock(${key})`);
      const pids = [await backendOf(a), await backendOf(b)];
      // Each waits, once it holds kysely's lock, on the test's: the first there holds kysely's,
      // the other waits for it.
      const snap = withStatement(0, `select pg_advisory_xact_lock(${key})`);
      const made = Promise.all([
        makePostgresFromSnapshot(asDb(a), snap),
        makePostgresFromSnapshot(asDb(b), snap),
      ]);
      await waiting(admin, pids, key);
      expect(await relationCount(loc)).toBe(0);
      await admin.query(`select pg_advisory_unlock(${key})`);
      expect((await made).sort()).toEqual([false, true]);
    } finally {
      await admin.end();
      await a.destroy();
      await b.destroy();
    }
    const said: unknown[] = [];
    await (await openStore(loc, { onUpgrade: (u) => said.push(u) })).close();
    expect(said).toEqual([]);
    expect(await described(loc)).toEqual(want);
  });

  it("P27: an opener by the migrations (an older nor's way) that meets a making by the snapshot not yet committed waits for it, then opens the store it made", async () => {
    const want = await reference();
    const loc = await fresh();
    if (loc.kind !== "postgres") throw new Error("not a PostgreSQL store");
    const key = testLockKey();
    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    const maker = rawStore(loc);
    const app = `nor-snapshot-race-${key}`;
    const migrating = `${loc.url}&application_name=${app}`;
    try {
      await admin.query(`select pg_advisory_lock(${key})`);
      const pid = await backendOf(maker);
      // The making has made every relation and waits, before its commit, on the test's lock.
      const snap = withStatement(
        POSTGRES_SNAPSHOT.statements.length,
        `select pg_advisory_xact_lock(${key})`,
      );
      const made = makePostgresFromSnapshot(asDb(maker), snap);
      await waiting(admin, [pid], key);
      // The migrator makes its tables (if not there, which it cannot see yet) before its lock.
      const opened = openStore({ kind: "postgres", url: migrating }, { bySnapshot: false });
      let waited = false;
      for (let i = 0; i < 1000; i++) {
        const r = await admin.query(
          `select count(*)::int as n from pg_stat_activity
           where application_name = $1 and wait_event_type = 'Lock'`,
          [app],
        );
        if ((r.rows[0]?.n as number) > 0) {
          waited = true;
          break;
        }
        await new Promise((done) => setTimeout(done, 10));
      }
      expect(waited, "the opener by the migrations came to wait for the making").toBe(true);
      await admin.query(`select pg_advisory_unlock(${key})`);
      expect(await made).toBe(true);
      await (await opened).close();
    } finally {
      await admin.end();
      await maker.destroy();
    }
    expect(await described(loc)).toEqual(want);
  });

  it("P27: openers of one new schema at once, two by the snapshot and one by the migrations, all open it and end with the one store every migration makes", async () => {
    const want = await reference();
    for (let round = 0; round < 3; round++) {
      const loc = await fresh();
      const stores = await Promise.all([
        openStore(loc),
        openStore(loc, { bySnapshot: false }),
        openStore(loc),
      ]);
      for (const s of stores) await s.close();
      expect(await described(loc)).toEqual(want);
    }
  });

  it("P27: the snapshot written from a store remakes that store, what a later migration made and wrote included (rows, a sequence moved on, a column, an index, a key added later)", async () => {
    const loc = await byMigrations();
    await on(loc, (c) =>
      c.query(`insert into leads (government_id, records, url, why, position, first_seen_at)
          values ('g', 'minutes', 'https://example.org/', 'why', 1, 'x');
        insert into catalog_stamp (id, digest, stamped_at) values (1, null, 'it''s');
        alter table source_moves add column later text not null default 'x';
        create index source_moves_later on source_moves (later) where later <> 'x';
        alter table validators add constraint validators_etag unique (etag);
        insert into kysely_migration (name, timestamp) values ('999-later', '2026-12-07T00:00:00.000Z')`),
    );
    const snap = await on(loc, (c) => postgresSnapshotOf(c, schemaOf(loc)));
    expect(snap.migrations).toContain("999-later");
    expect(snap.statements.join("\n")).toContain("setval");
    const again = await fresh();
    const script = postgresSnapshotScript({
      snapshot: { migrations: Object.keys(migrations), statements: snap.statements },
      at: "2026-12-07T00:00:00.000Z",
    });
    if (script === undefined) throw new Error("no script");
    await on(again, (c) =>
      c.query(
        `${script};\ninsert into kysely_migration (name, timestamp) values ('999-later', 'x')`,
      ),
    );
    expect(await described(again)).toEqual(await described(loc));
  });

  it("P27: a store made from the snapshot takes a later migration as one made by the migrations does", async () => {
    const later: Record<string, Migration> = {
      ...migrations,
      "999-later": {
        up: async (db) => {
          await sql`alter table records add column later integer not null default 0`.execute(db);
          await sql`create index records_later on records (later, source_id)`.execute(db);
          await sql`insert into catalog_stamp (id, digest, stamped_at) values (1, 'd', 'x')`.execute(
            db,
          );
        },
      },
    };
    const upgraded = async (loc: StoreLocation) => {
      const db = rawStore(loc);
      try {
        const { error } = await new Migrator({
          db,
          provider: { getMigrations: async () => later },
          migrationTableSchema: schemaOf(loc),
        }).migrateToLatest();
        if (error) throw error;
      } finally {
        await db.destroy();
      }
      return described(loc);
    };
    const bySnapshot = await fresh();
    await (await openStore(bySnapshot)).close();
    expect(await recordsNeverRewritten(bySnapshot)).toBe(true);
    expect(await upgraded(bySnapshot)).toEqual(await upgraded(await byMigrations()));
  });

  it("P27: a schema whose making by migrations was cut short (kysely's tables, no migration run) is made by the migrations, as before", async () => {
    const want = await reference();
    const loc = await fresh();
    await on(loc, (c) =>
      c.query(`create table "kysely_migration" ("name" varchar(255) not null primary key, "timestamp" varchar(255) not null);
        create table "kysely_migration_lock" ("id" varchar(255) not null primary key, "is_locked" integer default 0 not null)`),
    );
    const db = rawStore(loc);
    try {
      expect(await makePostgresFromSnapshot(asDb(db))).toBe(false);
    } finally {
      await db.destroy();
    }
    await (await openStore(loc)).close();
    expect(await described(loc)).toEqual(want);
  });
});
