import type { Db } from "./db.js";

/**
 * P11: the URLs the nights ask in place of a catalog URL that moved permanently (source_moves),
 * each once: the sites they are on are asked every night, though no catalog URL is on them.
 */
export async function movedTargets(db: Db): Promise<string[]> {
  const rows = await db.selectFrom("source_moves").select("to_url").distinct().execute();
  return rows.map((r) => r.to_url);
}
