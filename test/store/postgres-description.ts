import pg from "pg";
import type { StoreLocation } from "../../src/store/db.js";

/** The schema a PostgreSQL store of the tests lives in (the search_path its URL sets). */
export function schemaOf(loc: StoreLocation): string {
  if (loc.kind !== "postgres") throw new Error("not a PostgreSQL store");
  const options = new URL(loc.url).searchParams.get("options") ?? "";
  const schema = /search_path=(\S+)/.exec(options)?.[1];
  if (!schema) throw new Error(`no search_path in ${loc.url}`);
  return schema;
}

/** `name` as PostgreSQL's quote_ident writes it (the schemas of the tests need no quotes). */
function quoted(name: string): string {
  return /^[a-z_][a-z0-9_]*$/.test(name) ? name : `"${name.replaceAll('"', '""')}"`;
}

/** `text` with the schema's qualifier taken out of its names (`S.` where it stood). */
function unqualified(text: string, schema: string, as = "S."): string {
  return text.split(`${quoted(schema)}.`).join(as);
}

/**
 * All that says what the PostgreSQL store in `schema` is, read through pg_catalog on `c`:
 * every relation in the order it was made (its oid's rank: the planner breaks a tie between two
 * indexes by it), each table's columns (type, nullability, default or generated expression,
 * identity, collation, serial sequence), constraints (pg_get_constraintdef), indexes
 * (pg_get_indexdef), triggers (pg_get_triggerdef), functions (pg_get_functiondef), views,
 * types, sequences with their state, statistics objects, rules, row security policies, grants
 * (relacl, attacl), column options (attoptions), replica identity, table access method,
 * comments on relations and columns, every table's rows but kysely_migration's, and the
 * migrations kysely_migration lists (not when each ran). The schema's own name is left out.
 * Not in it: columns a migration dropped (kept by PostgreSQL as dropped attributes, unseen by
 * any statement) and oids themselves.
 */
export async function describePostgresSchema(c: pg.Client, schema: string): Promise<unknown> {
  const q = async (text: string) =>
    JSON.parse(unqualified(JSON.stringify((await c.query(text, [schema])).rows), schema)) as {
      [k: string]: unknown;
    }[];
  const ns = `(select oid from pg_namespace where nspname = $1)`;
  const tables = (
    await c.query(
      `select relname from pg_class where relnamespace = ${ns} and relkind in ('r', 'p') order by oid`,
      [schema],
    )
  ).rows.map((r: { relname: string }) => r.relname);
  const rows: Record<string, unknown> = {};
  for (const t of tables) {
    if (t === "kysely_migration") continue;
    const all = (await c.query(`select * from "${schema}"."${t}"`)).rows.map((r) =>
      JSON.stringify(r),
    );
    rows[t] = all.sort();
  }
  return {
    // An index that is not partial: the planner reads its size from its file and its tuples
    // from its table's (plancat.c, get_relation_info), never its relpages and reltuples, which
    // a table written anew by a migration (018 adds a stored generated column to records)
    // leaves at 0 and -1 for the indexes it made again, where an index made on an empty table
    // has 1 and 0.
    relations: await q(`select c.relname, c.relkind, c.relpersistence, c.relhasindex,
        c.relchecks, c.relhastriggers, c.relrowsecurity, c.relforcerowsecurity, c.reloptions,
        c.relreplident, c.relhasrules, c.relacl::text as acl,
        (select amname from pg_am m where m.oid = c.relam) as am,
        case when x.indpred is null and c.relkind = 'i' then null else c.relpages end as relpages,
        case when x.indpred is null and c.relkind = 'i' then null else c.reltuples end
          as reltuples,
        (select count(*) from pg_attribute a where a.attrelid = c.oid and a.attnum > 0
          and not a.attisdropped)::int as columns
      from pg_class c left join pg_index x on x.indexrelid = c.oid
      where c.relnamespace = ${ns} order by c.oid`),
    columns: await q(`select c.relname,
        row_number() over (partition by c.oid order by a.attnum)::int as position, a.attname,
        format_type(a.atttypid, a.atttypmod) as type, a.attnotnull, a.atthasdef, a.attgenerated,
        a.attidentity, a.attstorage, a.attstattarget, a.attcompression,
        -- The options a column may be given (n_distinct, n_distinct_inherited): a server may
        -- keep more of its own there, which differ from one table made to the next.
        array(select o from unnest(a.attoptions) o where o like 'n\\_distinct%') as attoptions,
        a.attacl::text as acl,
        (select collname from pg_collation k where k.oid = a.attcollation) as collation,
        pg_get_expr(d.adbin, d.adrelid) as def,
        pg_get_serial_sequence(quote_ident(n.nspname) || '.' || quote_ident(c.relname), a.attname)
          as serial
      from pg_attribute a join pg_class c on c.oid = a.attrelid
        join pg_namespace n on n.oid = c.relnamespace
        left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
      where n.nspname = $1 and a.attnum > 0 and not a.attisdropped
      order by c.relname, a.attnum`),
    constraints:
      await q(`select c.relname, k.conname, k.contype, pg_get_constraintdef(k.oid) as def,
        (select relname from pg_class i where i.oid = k.conindid) as index
      from pg_constraint k join pg_class c on c.oid = k.conrelid
      where k.connamespace = ${ns} order by c.relname, k.conname`),
    indexes: await q(`select c.relname as "table", i.relname, pg_get_indexdef(x.indexrelid) as def,
        x.indisunique, x.indisprimary, x.indisclustered, x.indisreplident, x.indisvalid
      from pg_index x join pg_class i on i.oid = x.indexrelid join pg_class c on c.oid = x.indrelid
      where c.relnamespace = ${ns} order by x.indexrelid`),
    triggers: await q(`select c.relname, t.tgname, pg_get_triggerdef(t.oid) as def, t.tgenabled
      from pg_trigger t join pg_class c on c.oid = t.tgrelid
      where c.relnamespace = ${ns} and not t.tgisinternal order by c.relname, t.tgname`),
    functions: await q(`select p.proname, pg_get_function_identity_arguments(p.oid) as args,
        pg_get_functiondef(p.oid) as def
      from pg_proc p where p.pronamespace = ${ns} order by 1, 2`),
    views: await q(`select c.relname, pg_get_viewdef(c.oid) as def
      from pg_class c where c.relnamespace = ${ns} and c.relkind in ('v', 'm') order by 1`),
    // What the snapshot's writer does not make again, and a migration may: the planner's
    // statistics objects, rules, row security policies, comments.
    statistics: await q(`select s.stxname, pg_get_statisticsobjdef(s.oid) as def,
        s.stxstattarget
      from pg_statistic_ext s where s.stxnamespace = ${ns} order by 1`),
    rules: await q(`select c.relname, r.rulename, pg_get_ruledef(r.oid) as def, r.ev_enabled
      from pg_rewrite r join pg_class c on c.oid = r.ev_class
      where c.relnamespace = ${ns} order by 1, 2`),
    policies: await q(`select c.relname, p.polname, p.polcmd, p.polpermissive,
        p.polroles::regrole[]::text as roles, pg_get_expr(p.polqual, p.polrelid) as qual,
        pg_get_expr(p.polwithcheck, p.polrelid) as check
      from pg_policy p join pg_class c on c.oid = p.polrelid
      where c.relnamespace = ${ns} order by 1, 2`),
    comments: await q(`select c.relname, d.objsubid, d.description
      from pg_description d join pg_class c on c.oid = d.objoid
      where d.classoid = 'pg_class'::regclass and c.relnamespace = ${ns} order by 1, 2`),
    types: await q(`select t.typname, t.typtype from pg_type t
      where t.typnamespace = ${ns} and t.typrelid = 0 and t.typelem = 0 order by 1`),
    sequences: await q(`select s.sequencename, s.data_type::text, s.start_value, s.min_value,
        s.max_value, s.increment_by, s.cycle, s.cache_size, s.last_value
      from pg_sequences s where s.schemaname = $1 order by s.sequencename`),
    migrations: tables.includes("kysely_migration")
      ? (await c.query(`select name from "${schema}".kysely_migration order by name`)).rows.map(
          (r: { name: string }) => r.name,
        )
      : [],
    rows,
  };
}

export interface PostgresSnapshot {
  migrations: string[];
  statements: string[];
}

interface Relation {
  oid: number;
  relname: string;
  relkind: string;
  relpersistence: string;
  reloptions: string[] | null;
}

/** A literal PostgreSQL reads back as the text `v` (in a column of any type). */
function literal(v: string | null): string {
  return v === null ? "null" : `'${v.replaceAll("'", "''")}'`;
}

/** SERIAL's types, by the column's. */
const SERIAL: Record<string, string> = {
  integer: "serial",
  bigint: "bigserial",
  smallint: "smallserial",
};

/**
 * The snapshot of the store in `schema` (made by the migrations), read through pg_catalog on
 * `c` (whose search_path is that schema): statements that make it again, in a new schema the
 * search_path names, with nothing of this schema's name in them. Every relation is made in the
 * order the migrations made it (their oids' order: the planner breaks a tie between two
 * indexes by it); a table with its final columns, a SERIAL column as SERIAL (its sequence made
 * just before it, as the migrations' SERIAL made it), its CHECK constraints and the key
 * constraints whose indexes came right after it, inline; a key constraint added later as an
 * ALTER TABLE where its index came; every other index from pg_get_indexdef. Then functions
 * first and triggers last, every table's rows but kysely_migration's (kysely's lock row), and
 * each sequence moved on as far as it was. What it does not know how to make again (an
 * identity column, a sequence that is no SERIAL's, a view, a statistics object, a rule, a row
 * security policy) it refuses, so a migration that
 * makes one is met here, not by a store that differs; what it makes wrong, the checker's
 * comparison (describePostgresSchema) meets.
 */
export async function postgresSnapshotOf(c: pg.Client, schema: string): Promise<PostgresSnapshot> {
  const path = (await c.query("select current_schema() as s")).rows[0]?.s as string | undefined;
  if (path !== schema) throw new Error(`the connection's schema is ${path}, not ${schema}`);
  const ns = `(select oid from pg_namespace where nspname = $1)`;
  const one = async <R>(text: string, values: unknown[] = [schema]): Promise<R[]> =>
    (await c.query(text, values)).rows as R[];
  const relations = await one<Relation>(
    `select oid::int, relname, relkind, relpersistence, reloptions from pg_class
     where relnamespace = ${ns} order by oid`,
  );
  const rank = new Map(relations.map((r, i) => [r.oid, i]));
  const columns = await one<{
    table: number;
    attname: string;
    type: string;
    attnotnull: boolean;
    attgenerated: string;
    attidentity: string;
    def: string | null;
    collation: string | null;
    serial: string | null;
  }>(`select a.attrelid::int as table, a.attname, format_type(a.atttypid, a.atttypmod) as type,
        a.attnotnull, a.attgenerated, a.attidentity, pg_get_expr(d.adbin, d.adrelid) as def,
        case when a.attcollation <> t.typcollation
          then (select quote_ident(collname) from pg_collation k where k.oid = a.attcollation)
        end as collation,
        pg_get_serial_sequence(quote_ident($1) || '.' || quote_ident(c.relname), a.attname)
          as serial
      from pg_attribute a join pg_class c on c.oid = a.attrelid
        join pg_type t on t.oid = a.atttypid
        left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
      where c.relnamespace = ${ns} and c.relkind = 'r' and a.attnum > 0 and not a.attisdropped
      order by a.attrelid, a.attnum`);
  const constraints = await one<{
    table: number;
    conname: string;
    contype: string;
    def: string;
    index: number;
  }>(`select conrelid::int as table, conname, contype, pg_get_constraintdef(oid) as def,
        conindid::int as index
      from pg_constraint where connamespace = ${ns} order by oid`);
  const sequences = await one<{
    oid: number;
    seqtypid: string;
    seqstart: string;
    seqincrement: string;
    seqmin: string;
    seqmax: string;
    seqcache: string;
    seqcycle: boolean;
  }>(`select s.seqrelid::int as oid, format_type(s.seqtypid, null) as seqtypid, s.seqstart::text,
        s.seqincrement::text, s.seqmin::text, s.seqmax::text, s.seqcache::text, s.seqcycle
      from pg_sequence s join pg_class c on c.oid = s.seqrelid where c.relnamespace = ${ns}`);
  const refused = [
    ...(await one<{ what: string }>(
      `select 'a view or other relation: ' || relname as what from pg_class
       where relnamespace = ${ns} and relkind not in ('r', 'i', 'S', 't')`,
    )),
    ...(await one<{ what: string }>(
      `select 'a type: ' || typname as what from pg_type
       where typnamespace = ${ns} and typrelid = 0 and typelem = 0`,
    )),
    ...(await one<{ what: string }>(
      `select 'a statistics object: ' || stxname as what from pg_statistic_ext
       where stxnamespace = ${ns}
       union all
       select 'a rule: ' || r.rulename from pg_rewrite r join pg_class c on c.oid = r.ev_class
       where c.relnamespace = ${ns}
       union all
       select 'a row security policy: ' || p.polname from pg_policy p
         join pg_class c on c.oid = p.polrelid where c.relnamespace = ${ns}`,
    )),
  ];
  for (const col of columns)
    if (col.attidentity !== "") refused.push({ what: `an identity column: ${col.attname}` });
  if (refused.length > 0)
    throw new Error(
      `the PostgreSQL snapshot's writer does not make ${refused.map((r) => r.what).join(", ")}: teach it (test/store/postgres-description.ts)`,
    );

  const name = (oid: number) => relations[rank.get(oid) ?? -1]?.relname ?? `?${oid}`;
  const id = (n: string) => `"${n.replaceAll('"', '""')}"`;
  // The sequences made by a SERIAL column: the column's default is its nextval, the sequence
  // is the column's (pg_get_serial_sequence), and it is as SERIAL makes one.
  const serialSequence = new Set<string>();
  const serialColumn = new Set<(typeof columns)[number]>();
  for (const col of columns) {
    if (col.serial === null) continue;
    const seqName = col.serial.slice(col.serial.lastIndexOf(".") + 1).replaceAll('"', "");
    const seq = sequences.find((s) => name(s.oid) === seqName);
    const serial = SERIAL[col.type];
    if (
      seq === undefined ||
      serial === undefined ||
      seq.seqtypid !== col.type ||
      seq.seqstart !== "1" ||
      seq.seqincrement !== "1" ||
      seq.seqmin !== "1" ||
      seq.seqcache !== "1" ||
      seq.seqcycle ||
      col.def !== `nextval('${seqName}'::regclass)` ||
      !col.attnotnull ||
      seqName !== `${name(col.table)}_${col.attname}_seq`.slice(0, 63)
    )
      throw new Error(
        `the PostgreSQL snapshot's writer makes only SERIAL sequences, not ${col.serial}: teach it (test/store/postgres-description.ts)`,
      );
    serialSequence.add(seqName);
    serialColumn.add(col);
  }
  for (const s of sequences)
    if (!serialSequence.has(name(s.oid)))
      throw new Error(
        `the PostgreSQL snapshot's writer makes only SERIAL sequences, not ${name(s.oid)}: teach it (test/store/postgres-description.ts)`,
      );

  const statements: string[] = [];
  for (const f of await one<{ def: string }>(
    `select pg_get_functiondef(oid) as def from pg_proc where pronamespace = ${ns} order by oid`,
  ))
    statements.push(unqualified(f.def.trim(), schema, ""));
  // The key constraints made with their table: those whose indexes follow it at once.
  const inline = new Set<(typeof constraints)[number]>();
  for (const [i, rel] of relations.entries()) {
    if (rel.relkind !== "r") continue;
    for (let j = i + 1; j < relations.length; j++) {
      const next = constraints.find((k) => k.table === rel.oid && k.index === relations[j]?.oid);
      if (next === undefined) break;
      inline.add(next);
    }
  }
  for (const rel of relations) {
    if (rel.relkind === "S" || rel.relkind === "t") continue;
    if (rel.relkind === "r") {
      const parts = columns
        .filter((col) => col.table === rel.oid)
        .map((col) => {
          if (serialColumn.has(col)) return `${id(col.attname)} ${SERIAL[col.type]}`;
          let s = `${id(col.attname)} ${col.type}`;
          if (col.collation !== null) s += ` collate ${col.collation}`;
          if (col.attgenerated === "s") s += ` generated always as (${col.def}) stored`;
          else if (col.def !== null) s += ` default ${col.def}`;
          if (col.attnotnull) s += " not null";
          return s;
        });
      for (const k of constraints)
        if (k.table === rel.oid && (k.contype === "c" || k.contype === "f" || inline.has(k)))
          parts.push(`constraint ${id(k.conname)} ${k.def}`);
      const unlogged = rel.relpersistence === "u" ? "unlogged " : "";
      const options = rel.reloptions ? ` with (${rel.reloptions.join(", ")})` : "";
      statements.push(`create ${unlogged}table ${id(rel.relname)} (${parts.join(", ")})${options}`);
      continue;
    }
    if (rel.relkind !== "i") throw new Error(`unexpected relation ${rel.relname}`);
    const key = constraints.find((k) => k.index === rel.oid);
    if (key !== undefined) {
      if (!inline.has(key))
        statements.push(
          `alter table ${id(name(key.table))} add constraint ${id(key.conname)} ${key.def}`,
        );
      continue;
    }
    const def = (await one<{ def: string }>("select pg_get_indexdef($1) as def", [rel.oid]))[0]
      ?.def as string;
    statements.push(unqualified(def, schema, ""));
  }
  for (const t of await one<{ def: string }>(
    `select pg_get_triggerdef(t.oid) as def from pg_trigger t join pg_class c on c.oid = t.tgrelid
     where c.relnamespace = ${ns} and not t.tgisinternal order by t.oid`,
  ))
    statements.push(unqualified(t.def, schema, ""));
  // Rows: every table's but kysely_migration's (its rows are the migrations run, written by
  // whoever makes the store), their values as text (a literal of any type reads so).
  for (const rel of relations) {
    if (rel.relkind !== "r" || rel.relname === "kysely_migration") continue;
    const cols = columns.filter((col) => col.table === rel.oid && col.attgenerated === "");
    if (cols.length === 0) continue;
    const rows = await one<{ v: (string | null)[] }>(
      `select array[${cols.map((col) => `${id(col.attname)}::text`).join(", ")}] as v from ${id(rel.relname)}`,
      [],
    );
    for (const row of rows)
      statements.push(
        `insert into ${id(rel.relname)} (${cols.map((col) => id(col.attname)).join(", ")}) values (${row.v.map(literal).join(", ")})`,
      );
  }
  // Each sequence as far as the rows written took it.
  for (const s of sequences) {
    const state = (
      await one<{ last_value: string; is_called: boolean }>(
        `select last_value::text, is_called from ${id(name(s.oid))}`,
        [],
      )
    )[0];
    if (state?.is_called)
      statements.push(`select setval('${id(name(s.oid))}', ${state.last_value}, true)`);
  }
  for (const s of statements)
    if (s.includes(schema))
      throw new Error(`the PostgreSQL snapshot's statement names the schema ${schema}: ${s}`);
  const ran = (
    await one<{ name: string }>("select name from kysely_migration order by name", [])
  ).map((r) => r.name);
  return { migrations: ran, statements };
}

/** A client of `url` (a store's, its search_path set), connected; end it after. */
export async function clientOf(url: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  return c;
}
