import type { Kysely } from "kysely";
import { columnsOf } from "./columns.js";

/**
 * P24, P26: a mark's time as its host gave it (`made_at`), to be shown, apart from `at`, its
 * place in the order of decisions (marks.ts markAt: 1 ms after the source's latest when its
 * host's clock is not later). A mark made after one from a host whose clock ran far ahead now
 * shows its own time. Existing marks: none (shown at `at`, which was their host's time unless
 * it had been moved after a later one).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // Run again over a store that has it (a store put back from before an earlier migration, as a
  // test does): added only if missing.
  if ((await columnsOf(db, "marks")).includes("made_at")) return;
  await db.schema.alterTable("marks").addColumn("made_at", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("marks").dropColumn("made_at").execute();
}
