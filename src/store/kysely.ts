/**
 * Kysely's runtime values, from one place. `npm run build` bundles kysely into one file
 * (dist/vendor/kysely.js, scripts/bundle-vendor.mjs): loading it costs a few milliseconds of
 * CPU, where the package's 263 separate ES modules cost about 0.2 s at every start of a
 * command that opens the store (`nor log`, `nor status`; docs/benchmarks.md). Without that file,
 * the package itself (vendored.ts). Every other file imports kysely's types from "kysely" and
 * its values from here, so a process holds one copy.
 */
import type * as K from "kysely";
import { vendored } from "../vendored.js";

const kysely = await vendored<typeof K>(
  new URL("../vendor/kysely.js", import.meta.url),
  () => import("kysely"),
);

export const CompiledQuery: typeof K.CompiledQuery = kysely.CompiledQuery;
export type CompiledQuery<O = unknown> = K.CompiledQuery<O>;
export const Kysely: typeof K.Kysely = kysely.Kysely;
export type Kysely<DB> = K.Kysely<DB>;
export const Migrator: typeof K.Migrator = kysely.Migrator;
export const PostgresAdapter: typeof K.PostgresAdapter = kysely.PostgresAdapter;
export const PostgresDialect: typeof K.PostgresDialect = kysely.PostgresDialect;
export const SqliteDialect: typeof K.SqliteDialect = kysely.SqliteDialect;
export const SqliteAdapter: typeof K.SqliteAdapter = kysely.SqliteAdapter;
export const SqliteIntrospector: typeof K.SqliteIntrospector = kysely.SqliteIntrospector;
export const SqliteQueryCompiler: typeof K.SqliteQueryCompiler = kysely.SqliteQueryCompiler;
export const sql: typeof K.sql = kysely.sql;
