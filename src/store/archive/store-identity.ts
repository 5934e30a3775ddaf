/**
 * The store's own name (migration 020), given once, when its archive is first opened: a random
 * id from the injected id source, written into the warcinfo record of every archive file the
 * store starts (`isPartOf: urn:uuid:…`), so a file says whose archive it is part of (a data
 * directory's archive may hold another store's files). Only a file's content decides what is
 * cut on open (warc-archive.ts #recover): a store's id may change (a backup from before 020).
 */
import type { Clock } from "../../clock.js";
import type { IdSource } from "../../ids.js";
import type { Db } from "../db.js";
import { toIso } from "../iso-time.js";

/** The store's id, given now if it has none (two openers at once: the first one's stands). */
export async function storeIdentity(db: Db, ids: IdSource, clock: Clock): Promise<string> {
  const had = await db.selectFrom("store_identity").select("id").executeTakeFirst();
  if (had !== undefined) return had.id;
  await db
    .insertInto("store_identity")
    .values({ one: 1, id: ids.uuid().toLowerCase(), created_at: toIso(clock.now()) })
    .onConflict((oc) => oc.column("one").doNothing())
    .execute();
  const row = await db.selectFrom("store_identity").select("id").executeTakeFirstOrThrow();
  return row.id;
}

/** `isPartOf`'s value for a store id. */
export const storeUrn = (id: string): string => `urn:uuid:${id}`;
