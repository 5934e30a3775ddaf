/**
 * P20, P23: when the night finds the checker itself offline, the sources already committed
 * tonight whose outcome was a DNS or connect failure are relabelled `checker-offline`: not
 * the site's no, so neither shown as one nor counted toward a flag (P24). One transaction:
 * the outcomes and the flags they raised tonight change together.
 */
import type { Db } from "./db.js";
import { writeTxn } from "./write-txn.js";

/** The outcomes an outage can produce (the only ones relabelled). */
const OUTAGE_KINDS = ["unreachable", "robots-unavailable", "recheck-still-no"];

/** Longer lists are written in parts (SQLite's bound-parameter limit). */
const PART = 400;

export async function relabelCheckerOffline(
  db: Db,
  night: string,
  sourceIds: readonly string[],
  note: string,
): Promise<number> {
  if (sourceIds.length === 0) return 0;
  return writeTxn(db, async (tx) => {
    let changed = 0;
    for (let i = 0; i < sourceIds.length; i += PART) {
      const ids = sourceIds.slice(i, i + PART);
      const rows = await tx
        .selectFrom("night_sources")
        .select(["source_id", "outcome", "reason"])
        .where("night", "=", night)
        .where("source_id", "in", ids)
        .where("outcome", "in", OUTAGE_KINDS)
        .execute();
      for (const r of rows) {
        // The failure the site seemed to give is kept in the words, after the checker's own.
        const reason = r.reason ? `${note} (${r.outcome}: ${r.reason})` : note;
        await tx
          .updateTable("night_sources")
          .set({ outcome: "checker-offline", reason, evidence: null, status: null })
          .where("night", "=", night)
          .where("source_id", "=", r.source_id)
          .execute();
        await tx
          .deleteFrom("flags")
          .where("night", "=", night)
          .where("source_id", "=", r.source_id)
          .execute();
        changed++;
      }
    }
    return changed;
  });
}
