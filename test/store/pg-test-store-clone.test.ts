import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { openStore, type StoreLocation } from "../../src/store/db.js";
import { postgresFactory, postgresUrl } from "./stores.js";

/**
 * The test stores' factory (stores.ts) makes a PostgreSQL store for `migrated()` by sending the
 * migrations' snapshot's script (postgresSnapshotScript), or, while the snapshot is not this
 * version's, by sending again, in a new schema, the statements openStore sent to migrate the
 * process's first one.
 * The tests that use it rely on getting the store openStore makes: the same tables, columns
 * (their numbers, types, defaults, generated expressions), constraints, sequences and indexes,
 * made in the same order (the planner breaks a tie between two indexes by that order), and the
 * same migrations listed. Compared here with a store openStore migrated itself.
 */
const factory = postgresUrl ? postgresFactory(postgresUrl) : undefined;
afterAll(async () => {
  await factory?.cleanup();
});

function schemaOf(loc: StoreLocation): string {
  if (loc.kind !== "postgres") throw new Error("not a PostgreSQL store");
  const options = new URL(loc.url).searchParams.get("options") ?? "";
  const schema = /search_path=(\S+)/.exec(options)?.[1];
  if (!schema) throw new Error(`no search_path in ${loc.url}`);
  return schema;
}

/** What the planner and the store's statements see of `schema`, its own name left out. */
async function described(c: pg.Client, schema: string): Promise<unknown> {
  const q = async (text: string) =>
    JSON.parse(
      JSON.stringify((await c.query(text, [schema])).rows)
        .split(`${schema}.`)
        .join("S."),
    ) as unknown;
  return {
    // Every relation in the order it was made (its oid's rank): tables, indexes, sequences,
    // TOAST tables' owners by name.
    relations: await q(`select c.relname, c.relkind, c.relpersistence, c.relhasindex,
        c.relchecks, c.relnatts, c.reloptions, c.relpages, c.reltuples
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = $1 order by c.oid`),
    columns:
      await q(`select c.relname, a.attnum, a.attname, format_type(a.atttypid, a.atttypmod) as type,
        a.attnotnull, a.atthasdef, a.attgenerated, a.attidentity, a.attisdropped, a.attcollation,
        pg_get_expr(d.adbin, d.adrelid) as def
      from pg_attribute a join pg_class c on c.oid = a.attrelid
        join pg_namespace n on n.oid = c.relnamespace
        left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
      where n.nspname = $1 and a.attnum > 0 order by c.relname, a.attnum`),
    indexes: await q(`select c.relname as "table", i.relname, pg_get_indexdef(x.indexrelid) as def,
        x.indisunique, x.indisprimary
      from pg_index x join pg_class i on i.oid = x.indexrelid join pg_class c on c.oid = x.indrelid
        join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = $1 order by x.indexrelid`),
    constraints: await q(`select c.relname, k.conname, k.contype, pg_get_constraintdef(k.oid) as def
      from pg_constraint k join pg_class c on c.oid = k.conrelid
        join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = $1 order by k.oid`),
    sequences:
      await q(`select s.sequencename, s.data_type::text, s.start_value, s.increment_by, s.last_value
      from pg_sequences s where s.schemaname = $1 order by s.sequencename`),
    migrations: (
      await c.query(`select name from "${schema}".kysely_migration order by name`)
    ).rows.map((r: { name: string }) => r.name),
    lockRows: (await c.query(`select * from "${schema}".kysely_migration_lock`)).rows,
  };
}

describe.skipIf(!factory)("the test stores' PostgreSQL clone", () => {
  it("is the store openStore makes: the same relations made in the same order, columns, indexes, constraints, sequences, migrations", async () => {
    const f = factory as NonNullable<typeof factory>;
    // The first may be the one recorded; the second is sent again from the recording.
    await f.migrated();
    const cloned = await f.migrated();
    const made = await f.fresh();
    await (await openStore(made)).close();
    const c = new pg.Client({ connectionString: postgresUrl });
    await c.connect();
    try {
      const want = await described(c, schemaOf(made));
      expect(await described(c, schemaOf(cloned))).toEqual(want);
      // The comparison sees something: the store's tables and indexes are there.
      expect(JSON.stringify(want)).toContain("records_source_instant");
    } finally {
      await c.end();
    }
  });
});
