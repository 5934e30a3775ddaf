/**
 * A review of the making of a new SQLite store from its migrations' snapshot (makeFromSnapshot,
 * src/store/db.ts): a store so made is upgraded by a later migration as one made by the
 * migrations is; a making that fails part way leaves nothing, and the migrator then meets an
 * empty file; a write SQLite refuses (a full store) is said as the migrator's path says it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Sqlite from "better-sqlite3";
import { type Kysely, Kysely as KyselyDb, Migrator, SqliteDialect, sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { makeFromSnapshot, openStore } from "../../src/store/db.js";
import { migrations } from "../../src/store/migrations/index.js";
import { SQLITE_SNAPSHOT } from "../../src/store/migrations/sqlite-snapshot.js";
import { describeSqliteStore } from "./sqlite-description.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function newDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "nor-snapshot-review-"));
  dirs.push(dir);
  return dir;
}

/** A later version's migration: a column, an index over it, a table rebuilt, a row. */
const future = {
  "999-future": {
    up: async (db: Kysely<unknown>) => {
      await sql`alter table records add column later text`.execute(db);
      await sql`create index records_later on records (later) where later is not null`.execute(db);
      await sql`create table site_rules_new as select * from site_rules`.execute(db);
      await sql`drop table site_rules_new`.execute(db);
      await sql`insert into catalog_stamp (id, digest, stamped_at) values (1, null, 'x')`.execute(
        db,
      );
      await sql`insert into leads (government_id, records, url, why, position, first_seen_at)
        values ('g', 'minutes', 'https://example.org/', 'why', 1, 'x')`.execute(db);
    },
  },
};

async function upgradeWithFuture(dir: string): Promise<string[]> {
  const db = new KyselyDb<unknown>({
    dialect: new SqliteDialect({ database: new Sqlite(join(dir, "nor.db")) }),
  });
  try {
    const migrator = new Migrator({
      db,
      provider: { getMigrations: async () => ({ ...migrations, ...future }) },
    });
    const { error, results } = await migrator.migrateToLatest();
    if (error) throw error;
    return (results ?? []).map((r) => `${r.migrationName} ${r.status}`);
  } finally {
    await db.destroy();
  }
}

describe("a new SQLite store made from the snapshot, reviewed (P27)", () => {
  it("P27: a store made from the snapshot, then upgraded by a later migration, is the store the migrations one by one and the later one make", async () => {
    const byMigrations = newDir();
    await (await openStore({ kind: "sqlite", dir: byMigrations }, { bySnapshot: false })).close();
    const bySnapshot = newDir();
    await (await openStore({ kind: "sqlite", dir: bySnapshot })).close();
    expect(await upgradeWithFuture(byMigrations)).toEqual(["999-future Success"]);
    expect(await upgradeWithFuture(bySnapshot)).toEqual(["999-future Success"]);
    expect(describeSqliteStore(bySnapshot)).toEqual(describeSqliteStore(byMigrations));
    // kysely reads the migrations run in the order of their rows' times (then names): this
    // version's, in order, then the later one.
    const order = (dir: string) => {
      const c = new Sqlite(join(dir, "nor.db"), { readonly: true });
      try {
        return c
          .prepare("select name from kysely_migration order by timestamp, name")
          .pluck()
          .all();
      } finally {
        c.close();
      }
    };
    expect(order(bySnapshot)).toEqual([...Object.keys(migrations), "999-future"]);
  });

  it("P27: a making that fails part way is rolled back whole: the file holds no table, no transaction is left open, and the store is then made whole", async () => {
    const reference = describeSqliteStore(
      await (async () => {
        const d = newDir();
        await (await openStore({ kind: "sqlite", dir: d }, { bySnapshot: false })).close();
        return d;
      })(),
    );
    const n = SQLITE_SNAPSHOT.statements.length;
    for (const at of [0, Math.floor(n / 2), n - 1]) {
      const dir = newDir();
      const conn = new Sqlite(join(dir, "nor.db"));
      conn.pragma("journal_mode = WAL");
      const made = makeFromSnapshot(conn, (i) => {
        if (i === at) throw new Error(`failed at ${i}`);
      });
      expect(made).toBe(false);
      expect(conn.inTransaction).toBe(false);
      expect(conn.prepare("select count(*) from sqlite_master").pluck().get()).toBe(0);
      conn.close();
      await (await openStore({ kind: "sqlite", dir })).close();
      expect(describeSqliteStore(dir)).toEqual(reference);
    }
  });

  it("P27: a store that runs out of room while it is made (SQLITE_FULL) leaves nothing made, and the connection free", () => {
    const dir = newDir();
    const conn = new Sqlite(join(dir, "nor.db"));
    try {
      conn.pragma("journal_mode = WAL");
      conn.pragma("cache_size = 1");
      conn.pragma("max_page_count = 20");
      expect(makeFromSnapshot(conn)).toBe(false);
      expect(conn.inTransaction).toBe(false);
      expect(conn.prepare("select count(*) from sqlite_master").pluck().get()).toBe(0);
    } finally {
      conn.close();
    }
  });

  it("P27: while another connection holds the write lock, nothing is made and the lock is not waited for", () => {
    const dir = newDir();
    const holder = new Sqlite(join(dir, "nor.db"));
    holder.pragma("journal_mode = WAL");
    const conn = new Sqlite(join(dir, "nor.db"));
    try {
      conn.pragma("busy_timeout = 0");
      holder.exec("begin immediate");
      expect(makeFromSnapshot(conn)).toBe(false);
      expect(conn.inTransaction).toBe(false);
      holder.exec("rollback");
      expect(makeFromSnapshot(conn)).toBe(true);
    } finally {
      conn.close();
      holder.close();
    }
  });
});
