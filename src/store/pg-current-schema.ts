/**
 * PostgreSQL, its tables looked up in the store's own schema only. kysely's migrator asks the
 * introspector whether its two tables exist, and kysely's PostgreSQL introspector answers by
 * listing every column of every table in every schema. On a server shared by several stores
 * (the test suite: a schema per store, created and dropped by other processes meanwhile), a
 * schema dropped while that listing ran failed it ("schema … does not exist", "column … does
 * not exist": 3F000, 42P01, 42703), and with it the opening of a store that had nothing to do
 * with the dropped one. This introspector lists the tables of `current_schema()` only, the
 * schema the store lives in (its search_path) and the one the migrator is told to use.
 */
import type {
  DatabaseIntrospector,
  DatabaseMetadata,
  Kysely,
  SchemaMetadata,
  TableMetadata,
} from "kysely";
import { PostgresDialect, sql } from "./kysely.js";

interface ColumnRow {
  column: string;
  not_null: boolean;
  has_default: boolean;
  table: string;
  table_type: string;
  schema: string;
  type: string;
  type_schema: string;
  column_description: string | null;
  auto_incrementing: string | null;
}

export class CurrentSchemaIntrospector implements DatabaseIntrospector {
  readonly #db: Kysely<unknown>;

  constructor(db: Kysely<unknown>) {
    this.#db = db;
  }

  async getSchemas(): Promise<SchemaMetadata[]> {
    const r = await sql<{ name: string }>`select current_schema() as name`.execute(this.#db);
    return r.rows.filter((row) => row.name !== null);
  }

  async getTables(
    options: { withInternalKyselyTables?: boolean } = { withInternalKyselyTables: false },
  ): Promise<TableMetadata[]> {
    const r = await sql<ColumnRow>`
      select a.attname as "column", a.attnotnull as not_null, a.atthasdef as has_default,
        c.relname as "table", c.relkind as table_type, ns.nspname as "schema",
        typ.typname as "type", dtns.nspname as type_schema,
        col_description(a.attrelid, a.attnum) as column_description,
        pg_get_serial_sequence(quote_ident(ns.nspname) || '.' || quote_ident(c.relname), a.attname)
          as auto_incrementing
      from pg_catalog.pg_attribute a
        join pg_catalog.pg_class c on a.attrelid = c.oid
        join pg_catalog.pg_namespace ns on c.relnamespace = ns.oid
        join pg_catalog.pg_type typ on a.atttypid = typ.oid
        join pg_catalog.pg_namespace dtns on typ.typnamespace = dtns.oid
      where c.relkind in ('r', 'v', 'p') and ns.nspname = current_schema()
        and a.attnum >= 0 and not a.attisdropped
      order by c.relname, a.attnum`.execute(this.#db);
    const tables = new Map<
      string,
      TableMetadata & { columns: TableMetadata["columns"][number][] }
    >();
    for (const row of r.rows) {
      if (
        !options.withInternalKyselyTables &&
        (row.table === "kysely_migration" || row.table === "kysely_migration_lock")
      )
        continue;
      let t = tables.get(row.table);
      if (t === undefined) {
        t = { name: row.table, schema: row.schema, isView: row.table_type === "v", columns: [] };
        tables.set(row.table, t);
      }
      t.columns.push({
        name: row.column,
        dataType: row.type,
        dataTypeSchema: row.type_schema,
        isNullable: !row.not_null,
        isAutoIncrementing: row.auto_incrementing !== null,
        hasDefaultValue: row.has_default,
        ...(row.column_description !== null ? { comment: row.column_description } : {}),
      });
    }
    return [...tables.values()];
  }

  async getMetadata(options?: { withInternalKyselyTables?: boolean }): Promise<DatabaseMetadata> {
    return { tables: await this.getTables(options) };
  }
}

/** kysely's PostgreSQL dialect, its introspector kept to the store's own schema. */
export class CurrentSchemaPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new CurrentSchemaIntrospector(db);
  }
}
