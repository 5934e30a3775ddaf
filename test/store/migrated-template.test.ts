import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { openStore, type Store, type StoreLocation } from "../../src/store/db.js";
import { storeFactories } from "./stores.js";

/**
 * StoreFactory.migrated() (a copy of one store this process made) stands for openStore on a
 * fresh place in most store tests, so it must give the very store openStore makes: the same
 * tables, columns, indexes, triggers and constraints, the same migrations recorded as run,
 * the same rows, and nothing left for openStore to migrate.
 */
async function shape(store: Store): Promise<unknown> {
  const db = store.db as unknown as import("kysely").Kysely<unknown>;
  const migrations = (
    await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db)
  ).rows.map((r) => r.name);
  if (store.dialect === "sqlite") {
    const schema = (
      await sql<{ type: string; name: string; tbl_name: string; sql: string | null }>`
        select type, name, tbl_name, sql from sqlite_master order by type, name`.execute(db)
    ).rows;
    const counts: Record<string, number> = {};
    for (const t of schema.filter((r) => r.type === "table"))
      counts[t.name] = Number(
        (await sql<{ n: number }>`select count(*) as n from ${sql.id(t.name)}`.execute(db)).rows[0]
          ?.n,
      );
    return { migrations, schema, counts };
  }
  const here = (await sql<{ s: string }>`select current_schema() as s`.execute(db)).rows[0]?.s;
  const strip = (text: string | null) => (text ?? "").replaceAll(`${here}.`, "");
  const columns = (
    await sql<Record<string, unknown>>`
      select table_name, column_name, data_type, is_nullable, column_default, is_identity,
             is_generated, generation_expression
      from information_schema.columns where table_schema = current_schema()
      order by table_name, column_name`.execute(db)
  ).rows.map((r) => ({ ...r, column_default: strip(r["column_default"] as string | null) }));
  const indexes = (
    await sql<{ indexname: string; indexdef: string }>`
      select indexname, indexdef from pg_indexes where schemaname = current_schema()
      order by indexname`.execute(db)
  ).rows.map((r) => ({ ...r, indexdef: strip(r.indexdef) }));
  const constraints = (
    await sql<{ conname: string; def: string; rel: string }>`
      select c.conname, pg_get_constraintdef(c.oid) as def, t.relname as rel
      from pg_constraint c join pg_class t on t.oid = c.conrelid
      join pg_namespace n on n.oid = t.relnamespace
      where n.nspname = current_schema() order by t.relname, c.conname`.execute(db)
  ).rows.map((r) => ({ ...r, def: strip(r.def) }));
  const tables = (
    await sql<{ table_name: string }>`select table_name from information_schema.tables
      where table_schema = current_schema() order by table_name`.execute(db)
  ).rows.map((r) => r.table_name);
  const counts: Record<string, number> = {};
  for (const t of tables)
    counts[t] = Number(
      (await sql<{ n: string }>`select count(*) as n from ${sql.id(t)}`.execute(db)).rows[0]?.n,
    );
  return { migrations, columns, indexes, constraints, counts };
}

describe.each(storeFactories())("StoreFactory.migrated() on $name", (factory) => {
  it("gives the store openStore makes on a fresh place, with nothing left to migrate", async () => {
    const made = await openStore(await factory.fresh());
    const upgrades: unknown[] = [];
    let copy: Store | undefined;
    try {
      const loc: StoreLocation = await factory.migrated();
      copy = await openStore(loc, { onUpgrade: (u) => upgrades.push(u) });
      expect(await shape(copy)).toEqual(await shape(made));
      expect(upgrades).toEqual([]);
      // Two copies are two stores: a row written to one is not in the other.
      const other = await openStore(await factory.migrated());
      try {
        await sql`insert into kysely_migration (name, timestamp) values ('zz-mark', 'x')`.execute(
          other.db,
        );
        const seen = await sql<{ n: number }>`select count(*) as n from kysely_migration
          where name = 'zz-mark'`.execute(copy.db);
        expect(Number(seen.rows[0]?.n)).toBe(0);
      } finally {
        await other.close();
      }
    } finally {
      await copy?.close();
      await made.close();
    }
  });
});
