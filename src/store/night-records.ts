/**
 * Records into the store, inside the per-source commit transaction (crash safety): deduped
 * per source by record id (P6), so a record seen before is not new and a resumed night never
 * doubles one. Inserted in chunks to stay under the SQL parameter limits of both dialects.
 */
import type { SourceResult } from "../night/types.js";
import { toIso } from "./iso-time.js";
import type { Tx } from "./write-txn.js";

const CHUNK = 200;

export function chunks<T>(xs: readonly T[], n = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += n) out.push(xs.slice(i, i + n));
  return out;
}

/** Inserts the result's records that are new for the source; returns how many were new. */
export async function insertRecords(trx: Tx, night: string, r: SourceResult): Promise<number> {
  const unique = new Map(r.records.map((x) => [x.id, x]));
  let inserted = 0;
  for (const part of chunks([...unique.values()])) {
    const res = await trx
      .insertInto("records")
      .values(
        part.map((x) => ({
          source_id: r.sourceId,
          record_id: x.id,
          title: x.title,
          date: x.date ?? null,
          url: x.url ?? null,
          kind: x.kind ?? null,
          first_seen_night: night,
          first_seen_at: toIso(r.endedAt),
        })),
      )
      .onConflict((oc) => oc.columns(["source_id", "record_id"]).doNothing())
      .executeTakeFirst();
    inserted += Number(res.numInsertedOrUpdatedRows ?? 0);
  }
  return inserted;
}
