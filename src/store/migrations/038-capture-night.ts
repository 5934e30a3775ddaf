import type { Kysely } from "kysely";
import { columnsOf } from "./columns.js";

/**
 * P8, P13: the night that saved each stored copy (`captures.night`), so a copy is a night's own
 * answer (found again after a restart, never asked again that night) only when that night saved
 * it, never by its time alone: a copy stamped by a clock running ahead (then set right) falls
 * inside a later night's window of time. Existing copies: none (null: no night's answer; a
 * night resumed across the upgrade asks such a page once more).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // Run again over a store that has it (a store put back from before an earlier migration, as a
  // test does): added only if missing.
  if ((await columnsOf(db, "captures")).includes("night")) return;
  await db.schema.alterTable("captures").addColumn("night", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("captures").dropColumn("night").execute();
}
