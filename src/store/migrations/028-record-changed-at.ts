import type { Kysely } from "kysely";
import { columnsOf } from "./columns.js";

/**
 * P6: when a record seen before was last brought up to date (the list now shows it retitled,
 * redated, or of another kind; a link written anew alone is no change: store/night-records.ts),
 * as ISO 8601 UTC; null for a record shown as it was first seen. A feed's entry says it as
 * `atom:updated` and JSON Feed's `date_modified`, a calendar's event as its DTSTAMP
 * (web/public/feeds.ts, ical.ts), so a reader that already holds the entry (the same id: never
 * new again) shows the new title. A store made before this keeps null for records changed
 * before it: their entries say when first seen. A change by our own reading alone (a 304's copy
 * read again with a mended recipe: night-records.ts insertRecords) brings the record up to date
 * and keeps this as it was.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(await columnsOf(db, "records")).includes("changed_at"))
    await db.schema.alterTable("records").addColumn("changed_at", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("records").dropColumn("changed_at").execute();
}
