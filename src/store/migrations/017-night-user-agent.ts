import type { Kysely } from "kysely";

/**
 * The User-Agent a night's requests carried (P1), written by each process that runs it: the
 * site-owners page shows the one the checker last sent (P2: it can never drift), whatever
 * `--user-agent` the server itself was given. Null for nights from before this migration.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("nights").addColumn("user_agent", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("nights").dropColumn("user_agent").execute();
}
