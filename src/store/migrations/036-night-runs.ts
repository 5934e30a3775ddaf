import type { Kysely } from "kysely";

/**
 * P13, P26: each process running a night says so in the store from its opening to its end, one
 * row a process (its holder id, `host:pid:random`): the night and a lease its heartbeat renews
 * (store/night-runs.ts). Machines sharing one PostgreSQL store, each with a data directory of
 * its own, see a night another runs even while it holds no lane (its canary, its planning,
 * between lanes). A row whose process is gone is dead: its pid on this host, its lease run out
 * elsewhere. Existing stores: none.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("night_runs")
    .ifNotExists()
    .addColumn("holder", "text", (c) => c.primaryKey())
    .addColumn("night", "text", (c) => c.notNull())
    .addColumn("started_at", "text", (c) => c.notNull())
    .addColumn("lease_until", "text", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("night_runs").ifExists().execute();
}
