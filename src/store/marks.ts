/**
 * P24: whether a source is read is decided by the latest mark a person made (marks are
 * kept, never overwritten). One query for everyone who needs that answer: the night, the
 * status command, the directory and the console.
 */
import type { Db } from "./db.js";
import type { MarksTable } from "./schema/night.js";

/** The latest mark per source (of `ids`, or of every source); sources never marked are absent. */
export async function latestMarks(
  db: Db,
  ids?: readonly string[],
): Promise<Map<string, MarksTable>> {
  const out = new Map<string, MarksTable>();
  if (ids?.length === 0) return out;
  let q = db.selectFrom("marks").selectAll();
  if (ids) q = q.where("source_id", "in", [...ids]);
  // Oldest first, so each later mark replaces the one before it.
  for (const m of await q.orderBy("at", "asc").execute()) out.set(m.source_id, m);
  return out;
}
