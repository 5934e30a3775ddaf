import type { Kysely } from "kysely";

/**
 * The record ids a source's first page listed when last read in full (P8, P12), as a JSON array
 * of distinct ids: a 304 of that page is counted from the read only while the store still holds
 * every one of them (a record deleted by hand, or a `records` table put back from an older
 * backup, is brought back by extracting the stored copy in full). A row from before this column
 * has none: its page is extracted in full on its next 304, once, which writes them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("page_reads").addColumn("ids", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("page_reads").dropColumn("ids").execute();
}
