/**
 * Records into the store, inside the per-source commit transaction (crash safety): deduped
 * per source by record id (P6), so a record seen before is not new and a resumed night never
 * doubles one. Inserted in chunks to stay under the SQL parameter limits of both dialects.
 */
import type { SourceResult } from "../night/types.js";
import { toIso } from "./iso-time.js";
import { type Placeholder, type Prepared, prepared } from "./prepared.js";
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
    const values: Record<string, unknown> = {
      sourceId: r.sourceId,
      night,
      at: toIso(r.endedAt),
    };
    for (const [i, x] of part.entries()) {
      values[`id${i}`] = x.id;
      values[`title${i}`] = x.title;
      values[`date${i}`] = x.date ?? null;
      values[`url${i}`] = x.url ?? null;
      values[`kind${i}`] = x.kind ?? null;
    }
    const res = await insertOf(part.length).run(trx, values);
    inserted += Number(res.numAffectedRows ?? 0);
  }
  return inserted;
}

/**
 * The insert of `n` records, built once for each `n` (prepared.ts): the statement kysely
 * builds for them, the source, night and time named once and bound in every row.
 */
const inserts = new Map<number, Prepared<Record<string, unknown>, unknown>>();
function insertOf(n: number): Prepared<Record<string, unknown>, unknown> {
  let p = inserts.get(n);
  if (p === undefined) {
    p = prepared((db, $: Placeholder<Record<string, unknown>>) =>
      db
        .insertInto("records")
        .values(
          Array.from({ length: n }, (_, i) => ({
            source_id: $("sourceId") as string,
            record_id: $(`id${i}`) as string,
            title: $(`title${i}`) as string,
            date: $(`date${i}`) as string | null,
            url: $(`url${i}`) as string | null,
            kind: $(`kind${i}`) as string | null,
            first_seen_night: $("night") as string,
            first_seen_at: $("at") as string,
          })),
        )
        .onConflict((oc) => oc.columns(["source_id", "record_id"]).doNothing()),
    );
    inserts.set(n, p);
  }
  return p;
}
