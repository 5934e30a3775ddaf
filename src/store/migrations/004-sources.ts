import type { Kysely } from "kysely";

// Filled in by the owning module. Use only portable types (text, integer, bigint, real, boolean
// stored as integer 0/1) so the same migration runs on SQLite and PostgreSQL.
export async function up(_db: Kysely<unknown>): Promise<void> {}
export async function down(_db: Kysely<unknown>): Promise<void> {}
