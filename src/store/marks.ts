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

/**
 * P25: the night each source not read now has been so since: that of the first mark of its
 * run of "not read" marks (a mark made again with another reason changes the reason, not when
 * the site's no was first taken for an answer, so it does not start the rechecks over).
 */
export async function notReadSince(db: Db): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const rows = await db
    .selectFrom("marks")
    .select(["source_id", "reading", "night"])
    .orderBy("source_id")
    .orderBy("at", "asc")
    .execute();
  for (const m of rows) {
    if (Number(m.reading) === 1) out.delete(m.source_id);
    else if (!out.has(m.source_id)) out.set(m.source_id, m.night);
  }
  return out;
}
