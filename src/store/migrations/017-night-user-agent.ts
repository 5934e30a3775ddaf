import type { Kysely } from "kysely";

/**
 * The User-Agent a night's requests carried (P1), written by each process that runs it: the
 * site-owners page shows the one the checker last sent (P2: it can never drift), whatever
 * `--user-agent` the server itself was given. Null for nights from before this migration.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // Run again over a store that has it (as a test puts back a store from before 015, whose
  // later migrations may run twice): added only when missing.
  const nights = (await db.introspection.getTables()).find((t) => t.name === "nights");
  if (nights?.columns.some((c) => c.name === "user_agent")) return;
  await db.schema.alterTable("nights").addColumn("user_agent", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("nights").dropColumn("user_agent").execute();
}
