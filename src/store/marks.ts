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
 * Every marked source's latest mark (as latestMarks) and, for one not read now, the night it
 * has been so since (P25): that of the first mark of its run of "not read" marks (a mark made
 * again with another reason changes the reason, not when the site's no was first taken for an
 * answer, so it does not start the rechecks over). One read of the marks.
 */
export async function marksInForce(
  db: Db,
): Promise<Map<string, { mark: MarksTable; notReadSince?: string }>> {
  const out = new Map<string, { mark: MarksTable; notReadSince?: string }>();
  for (const m of await db.selectFrom("marks").selectAll().orderBy("at", "asc").execute()) {
    const since = out.get(m.source_id)?.notReadSince;
    if (Number(m.reading) === 1) out.set(m.source_id, { mark: m });
    else out.set(m.source_id, { mark: m, notReadSince: since ?? m.night });
  }
  return out;
}
