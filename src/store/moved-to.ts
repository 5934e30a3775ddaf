import type { Db } from "./db.js";

/**
 * P11: the URLs the nights ask in place of a catalog URL that moved permanently (source_moves),
 * each once: the sites they are on are asked every night, though no catalog URL is on them.
 */
export async function movedTargets(db: Db): Promise<string[]> {
  const rows = await db.selectFrom("source_moves").select("to_url").distinct().execute();
  return rows.map((r) => r.to_url);
}

/**
 * P11: each source's catalog URLs that moved permanently, with where the nights ask them now
 * (source_moves, as the night reads them: night-store.ts), by source. A small table: one row a
 * URL that moved.
 */
export async function movesBySource(
  db: Db,
): Promise<Map<string, { from: string; to: string; night: string }[]>> {
  const rows = await db
    .selectFrom("source_moves")
    .select(["source_id", "from_url", "to_url", "night"])
    .orderBy("source_id")
    .orderBy("from_url")
    .execute();
  const out = new Map<string, { from: string; to: string; night: string }[]>();
  for (const r of rows) {
    const list = out.get(r.source_id) ?? [];
    list.push({ from: r.from_url, to: r.to_url, night: r.night });
    out.set(r.source_id, list);
  }
  return out;
}
