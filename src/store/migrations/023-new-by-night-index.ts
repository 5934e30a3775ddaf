import type { Kysely } from "kysely";
import { sql } from "../kysely.js";

/**
 * The index of records new on record by night (`records_new_by_night`), for a store that ran
 * migration 021 as it was first written: that version added `already_listed` without the index,
 * which 021 later gained, and a migration already run is never run again. Where 021 made it,
 * nothing changes. (021's first version also left the first nights' counts of new records as
 * they were; that cannot be put right here without undoing later nights' counts, which may
 * rightly say both new and already listed records on one night.)
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index if not exists records_new_by_night on records (first_seen_night)
    where already_listed = 0`.execute(db);
}

/** Nothing: 021's own `down` drops the index, which this one only makes sure of. */
export async function down(_db: Kysely<unknown>): Promise<void> {}
