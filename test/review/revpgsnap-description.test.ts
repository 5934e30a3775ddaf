/**
 * revpgsnap: the PostgreSQL snapshot's checker (test/store/postgres-description.ts) must meet
 * every way a snapshot written from a store differs from that store: either the writer
 * (postgresSnapshotOf) refuses what it cannot make again, or the description
 * (describePostgresSchema) of the store it remakes differs, so that
 * test/store/postgres-snapshot.test.ts fails when a migration makes something the snapshot
 * leaves out. Each case alters a store as a later migration might, then remakes it from its
 * snapshot in a new schema.
 */
import type pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { openStore, postgresSnapshotScript, type StoreLocation } from "../../src/store/db.js";
import { migrations } from "../../src/store/migrations/index.js";
import {
  clientOf,
  describePostgresSchema,
  postgresSnapshotOf,
  schemaOf,
} from "../store/postgres-description.js";
import { postgresFactory, postgresUrl } from "../store/stores.js";

const factory = postgresUrl ? postgresFactory(postgresUrl) : undefined;
afterAll(async () => {
  await factory?.cleanup();
});

async function on<T>(loc: StoreLocation, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  if (loc.kind !== "postgres") throw new Error("not a PostgreSQL store");
  const c = await clientOf(loc.url);
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/**
 * A store altered by `alter`, and the store its snapshot remakes: what `probe` (a catalog
 * query, $1 the schema) reads of each, and what the checker's description says of each; or the
 * writer's refusal.
 */
async function remade(
  alter: string,
  probe: string,
): Promise<
  { refused: true } | { refused: false; probed: [unknown, unknown]; described: [unknown, unknown] }
> {
  const f = factory as NonNullable<typeof factory>;
  const loc = await f.fresh();
  await (await openStore(loc)).close();
  await on(loc, (c) => c.query(alter));
  let statements: string[];
  try {
    statements = (await on(loc, (c) => postgresSnapshotOf(c, schemaOf(loc)))).statements;
  } catch {
    return { refused: true };
  }
  const script = postgresSnapshotScript({
    snapshot: { migrations: Object.keys(migrations), statements },
    at: "2026-12-07T00:00:00.000Z",
    lock: false,
  });
  if (script === undefined) throw new Error("no script");
  const again = await f.fresh();
  await on(again, (c) => c.query(script));
  const read = (l: StoreLocation) => on(l, async (c) => (await c.query(probe, [schemaOf(l)])).rows);
  return {
    refused: false,
    probed: [await read(loc), await read(again)],
    described: [
      await on(loc, (c) => describePostgresSchema(c, schemaOf(loc))),
      await on(again, (c) => describePostgresSchema(c, schemaOf(again))),
    ],
  };
}

const ns = "(select oid from pg_namespace where nspname = $1)";
const ofTables = (what: string) =>
  `select c.relname, ${what} from pg_class c where c.relnamespace = ${ns} order by c.relname`;
const cases: [string, string, string][] = [
  // Made again by the writer (controls): the stores agree.
  [
    "a column's default",
    "alter table backfill alter column restarts set default 5",
    `select pg_get_expr(d.adbin, d.adrelid) as def from pg_attrdef d join pg_class c on c.oid = d.adrelid where c.relnamespace = ${ns} order by 1`,
  ],
  ["an index dropped", "drop index records_by_date", ofTables("c.relkind")],
  // Not made again by the writer, met by the description.
  [
    "a column's storage",
    "alter table records alter column title set storage external",
    `select a.attname, a.attstorage from pg_attribute a join pg_class c on c.oid = a.attrelid where c.relnamespace = ${ns} and c.relname = 'records' order by 1`,
  ],
  // The planner reads these; a migration may set them.
  [
    "a column's n_distinct (attoptions)",
    "alter table records alter column kind set (n_distinct = 7)",
    `select a.attname, a.attoptions from pg_attribute a join pg_class c on c.oid = a.attrelid where c.relnamespace = ${ns} and a.attnum > 0 order by c.relname, 1`,
  ],
  [
    "extended statistics",
    "create statistics records_kind_stats (dependencies) on source_id, kind from records",
    `select stxname from pg_statistic_ext where stxnamespace = ${ns} order by 1`,
  ],
  // What the store is to its readers and to replication.
  [
    "a table's replica identity",
    "alter table request_log replica identity full",
    ofTables("c.relreplident"),
  ],
  [
    "a rule",
    "create rule marks_kept as on delete to marks do instead nothing",
    `select r.rulename from pg_rewrite r join pg_class c on c.oid = r.ev_class where c.relnamespace = ${ns} order by 1`,
  ],
  [
    "a row security policy",
    "create policy records_all on records using (true)",
    `select p.polname from pg_policy p join pg_class c on c.oid = p.polrelid where c.relnamespace = ${ns} order by 1`,
  ],
  ["a grant", "grant select on records to public", ofTables("c.relacl::text")],
  [
    "a comment",
    "comment on table records is 'what was found'",
    `select d.description from pg_description d join pg_class c on c.oid = d.objoid where c.relnamespace = ${ns} order by 1`,
  ],
];

describe.skipIf(!factory)(
  "revpgsnap: the snapshot's checker meets what the snapshot leaves out",
  () => {
    it.each(cases)(
      "P27: a store with %s is refused by the snapshot's writer, or remade as it is, or differs to the checker from the store its snapshot remakes",
      async (_what, alter, probe) => {
        const r = await remade(alter, probe);
        if (r.refused) return;
        // The probe sees something in the altered store.
        expect(JSON.stringify(r.probed[0]).length).toBeGreaterThan(2);
        if (JSON.stringify(r.probed[0]) !== JSON.stringify(r.probed[1]))
          expect(r.described[1], "the checker missed a difference the probe sees").not.toEqual(
            r.described[0],
          );
      },
    );
  },
);
