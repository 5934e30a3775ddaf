/**
 * A new SQLite store is made from a snapshot of the schema its migrations leave
 * (src/store/migrations/sqlite-snapshot.ts, makeFromSnapshot in src/store/db.ts), in one
 * transaction, not by running every migration: it must be the very store they make, and a
 * making cut short must leave no store that looks made.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Sqlite from "better-sqlite3";
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
  const dir = mkdtempSync(join(tmpdir(), "nor-snapshot-"));
  dirs.push(dir);
  return dir;
}

const SHADOW = ["data", "idx", "content", "docsize", "config"];

/** A literal SQLite reads back as `v`. */
function literal(v: unknown): string {
  if (v === null) return "null";
  if (typeof v === "number" || typeof v === "bigint") return String(v);
  if (typeof v === "string") return `'${v.replaceAll("'", "''")}'`;
  throw new Error(`no literal for ${String(v)}`);
}

/**
 * The snapshot of the store in `dir` (made by the migrations): the SQL of each table, virtual
 * table, index and trigger as SQLite keeps it (which made again is kept the same), tables
 * first, then the rows of every table but kysely_migration (the migrations' lock row).
 * Left out: what SQLite makes itself (sqlite_sequence, an FTS5 table's shadow tables, the
 * indexes of keys).
 */
function snapshotOf(dir: string): { migrations: string[]; statements: string[] } {
  const db = new Sqlite(join(dir, "nor.db"), { readonly: true });
  try {
    const all = db
      .prepare("select type, name, sql from sqlite_master where sql is not null order by rowid")
      .all() as { type: string; name: string; sql: string }[];
    const virtual = all.filter((r) => /^create virtual table/i.test(r.sql)).map((r) => r.name);
    const shadow = new Set(virtual.flatMap((v) => SHADOW.map((s) => `${v}_${s}`)));
    const own = all.filter((r) => !r.name.startsWith("sqlite_") && !shadow.has(r.name));
    const order = ["table", "index", "trigger"];
    const sorted = [...own].sort((a, b) => order.indexOf(a.type) - order.indexOf(b.type));
    const tables = sorted.filter((r) => r.type === "table").map((r) => r.sql);
    // An FTS5 table over another's rows, filled from them (010 does so): on an empty table
    // that writes its first record (the averages), which a table just made has not.
    const filled = virtual
      .filter((v) => /content\s*=\s*'[^']+'/i.test(all.find((r) => r.name === v)?.sql ?? ""))
      .map((v) => `insert into "${v}"("${v}") values ('rebuild')`);
    const statements = [
      ...tables,
      ...filled,
      ...sorted.filter((r) => r.type !== "table").map((r) => r.sql),
    ];
    // sqlite_sequence too: 006 copied the request log into its new table, an empty copy that
    // left the table's sequence at 0. Its rows first: a row written afterwards into a table
    // whose keys count up (AUTOINCREMENT) then raises its table's sequence, where one written
    // before would have made SQLite add a row of its own, and this one a second.
    const sequence = all.filter((r) => r.name === "sqlite_sequence");
    for (const t of [...sequence, ...own].filter(
      (r) => r.type === "table" && !virtual.includes(r.name),
    )) {
      if (t.name === "kysely_migration") continue;
      for (const row of db.prepare(`select * from "${t.name}"`).all() as Record<string, unknown>[])
        statements.push(
          `insert into "${t.name}" (${Object.keys(row)
            .map((c) => `"${c}"`)
            .join(", ")}) values (${Object.values(row).map(literal).join(", ")})`,
        );
    }
    const ran = db.prepare("select name from kysely_migration order by name").pluck().all();
    return { migrations: ran as string[], statements };
  } finally {
    db.close();
  }
}

async function byMigrations(): Promise<string> {
  const dir = newDir();
  await (await openStore({ kind: "sqlite", dir }, { bySnapshot: false })).close();
  return dir;
}

describe("a new SQLite store made from the migrations' snapshot (P27)", () => {
  it("P27: the snapshot is of this version's migrations, as they leave a new store", async () => {
    const want = snapshotOf(await byMigrations());
    const file = join(import.meta.dirname, "../../src/store/migrations/sqlite-snapshot.ts");
    if (process.env["NOR_WRITE_SQLITE_SNAPSHOT"] === "1")
      writeFileSync(
        file,
        `/**\n * The schema every migration leaves a new SQLite store with, for makeFromSnapshot (db.ts).\n * Written by test/store/sqlite-snapshot.test.ts (NOR_WRITE_SQLITE_SNAPSHOT=1 npx vitest run\n * test/store/sqlite-snapshot.test.ts, then \`npx biome check --write\` it) after a migration is\n * added; that test checks it, and db.ts uses it only while it lists this version's migrations.\n */\nexport const SQLITE_SNAPSHOT: { migrations: readonly string[]; statements: readonly string[] } = ${JSON.stringify(want, null, 2)};\n`,
      );
    const held = { migrations: SQLITE_SNAPSHOT.migrations, statements: SQLITE_SNAPSHOT.statements };
    // A run that writes it still holds the old one (this file and db.ts imported it): said so,
    // not as a snapshot to write again.
    if (process.env["NOR_WRITE_SQLITE_SNAPSHOT"] === "1")
      expect(
        held,
        "src/store/migrations/sqlite-snapshot.ts written anew: `npx biome check --write` it, then run test/store/sqlite-snapshot.test.ts again (without NOR_WRITE_SQLITE_SNAPSHOT; this run's other tests still used the old snapshot)",
      ).toEqual(want);
    expect(
      held,
      "src/store/migrations/sqlite-snapshot.ts is not what the migrations make: write it again (NOR_WRITE_SQLITE_SNAPSHOT=1 npx vitest run test/store/sqlite-snapshot.test.ts)",
    ).toEqual(want);
    expect(want.migrations).toEqual(Object.keys(migrations));
  });

  it("P27: a new store made by openStore is the store every migration run one by one makes: schema, PRAGMAs, rows, migrations run", async () => {
    const migrated = await byMigrations();
    const reference = describeSqliteStore(migrated);
    const dir = newDir();
    await (await openStore({ kind: "sqlite", dir })).close();
    expect(describeSqliteStore(dir)).toEqual(reference);
    // Made from the snapshot, not by the migrations: in fewer changes of its schema (no table
    // made, altered, dropped and made again).
    const changes = (d: string) => {
      const db = new Sqlite(join(d, "nor.db"), { readonly: true });
      try {
        return Number(db.pragma("schema_version", { simple: true }));
      } finally {
        db.close();
      }
    };
    expect(changes(dir)).toBeLessThan(changes(migrated));
    // And it opens again with nothing to migrate.
    const said: unknown[] = [];
    await (await openStore({ kind: "sqlite", dir }, { onUpgrade: (u) => said.push(u) })).close();
    expect(said).toEqual([]);
  });

  it("P27: a making killed at any statement leaves a store with no table, which the next opener makes whole", async () => {
    const reference = describeSqliteStore(await byMigrations());
    const n = SQLITE_SNAPSHOT.statements.length;
    // What a kill leaves on disk is what the files hold then: copied at a statement near the
    // start, in the middle, and the last one before the migrations are recorded and committed.
    for (const at of [0, Math.floor(n / 2), n - 1]) {
      const making = newDir();
      const conn = new Sqlite(join(making, "nor.db"));
      conn.pragma("journal_mode = WAL");
      conn.pragma("synchronous = FULL");
      // Small page cache: the transaction's pages spill to the WAL before its commit.
      conn.pragma("cache_size = 1");
      const left = newDir();
      const made = makeFromSnapshot(conn, (i) => {
        if (i !== at) return;
        for (const part of ["", "-wal"])
          if (existsSync(join(making, `nor.db${part}`)))
            copyFileSync(join(making, `nor.db${part}`), join(left, `nor.db${part}`));
      });
      conn.close();
      expect(made).toBe(true);
      const look = new Sqlite(join(left, "nor.db"), { readonly: true });
      const tables = look.prepare("select count(*) from sqlite_master").pluck().get();
      look.close();
      expect(tables, `killed at statement ${at}`).toBe(0);
      // A command that only reads finds no store yet; one that writes makes it whole.
      await expect(openStore({ kind: "sqlite", dir: left }, { readsOnly: true })).rejects.toThrow(
        /no store at .* yet/,
      );
      await (await openStore({ kind: "sqlite", dir: left })).close();
      expect(describeSqliteStore(left)).toEqual(reference);
    }
  });

  it("P27: the snapshot written from a store remakes that store, rows a later migration wrote included (one in an AUTOINCREMENT table too)", async () => {
    const dir = await byMigrations();
    // A later migration that writes rows: one into a table whose keys count up (leads), which
    // SQLite records in sqlite_sequence as it inserts the row.
    const later = new Sqlite(join(dir, "nor.db"));
    later.exec(
      `insert into leads (government_id, records, url, why, position, first_seen_at)
         values ('g', 'minutes', 'https://example.org/', 'why', 1, 'x');
       insert into catalog_stamp (id, digest, stamped_at) values (1, null, 'x');
       insert into kysely_migration (name, timestamp) values ('036-later', '2026-12-07T00:00:00.000Z')`,
    );
    later.close();
    const snap = snapshotOf(dir);
    const again = newDir();
    const conn = new Sqlite(join(again, "nor.db"));
    conn.pragma("journal_mode = WAL");
    conn.exec("begin immediate");
    for (const statement of snap.statements) conn.exec(statement);
    const ran = conn.prepare("insert into kysely_migration (name, timestamp) values (?, ?)");
    for (const name of snap.migrations) ran.run(name, new Date().toISOString());
    conn.exec("commit");
    conn.close();
    expect(describeSqliteStore(again)).toEqual(describeSqliteStore(dir));
  });

  it("P27: a store whose making by migrations was cut short (kysely's tables, no migration run) is made by the migrations, as before", async () => {
    const reference = describeSqliteStore(await byMigrations());
    const dir = newDir();
    const conn = new Sqlite(join(dir, "nor.db"));
    conn.pragma("journal_mode = WAL");
    conn.exec(
      `create table "kysely_migration" ("name" varchar(255) not null primary key, "timestamp" varchar(255) not null);
       create table "kysely_migration_lock" ("id" varchar(255) not null primary key, "is_locked" integer default 0 not null);`,
    );
    expect(makeFromSnapshot(conn)).toBe(false);
    conn.close();
    await (await openStore({ kind: "sqlite", dir })).close();
    expect(describeSqliteStore(dir)).toEqual(reference);
  });
});
