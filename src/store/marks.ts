/**
 * P24: whether a source is read is decided by the latest mark a person made (marks are
 * kept, never overwritten). One query for everyone who needs that answer: the night, the
 * status command, the directory and the console.
 *
 * "Latest" is the order of the decisions, and every reader takes it as the greatest `at`
 * (marks_pk is source_id, at). `at` is the clock of the host that wrote the mark (`nor mark`,
 * the console's server), which may be behind the one that wrote the mark before (another
 * machine sharing a PostgreSQL store, an NTP step back): so each mark is written after the
 * source's latest one, at its own time or, when that is not later, 1 ms after the latest's
 * (markAt), in the transaction that read the latest (serialised per source: lockMarksOf).
 */
import type { Db } from "./db.js";
import { dialectOf } from "./dialect-of.js";
import { toIso } from "./iso-time.js";
import { sql } from "./kysely.js";
import type { MarksTable } from "./schema/night.js";
import type { Tx } from "./write-txn.js";

/** The advisory lock class of "a mark of this source is being written" ("norm"). */
const MARK_LOCK_CLASS = 0x6e6f726d;

/**
 * P24: a mark's `at`, a decision made at `at` (the writer's clock) after the source's latest
 * mark (`latest`, its `at` as kept): its own time when that is later, else 1 ms after the
 * latest's, so the greatest `at` is the latest decision for every reader.
 */
export function markAt(at: number, latest: string | undefined): string {
  const after = latest === undefined ? Number.NaN : Date.parse(latest) + 1;
  return toIso(Number.isFinite(after) && after > at ? after : at);
}

/**
 * P24, P26: the time a mark is shown at (the directory's "since", the console's history): the
 * one its host gave it, kept apart from its place in the order since migration 037, so a mark
 * made after one from a host whose clock ran far ahead shows its own time; `at` for older marks.
 */
export function markShownAt(m: Pick<MarksTable, "at" | "made_at">): string {
  return m.made_at ?? m.at;
}

/**
 * P24: the marks of one source written one transaction after the other: on PostgreSQL a lock
 * held to the transaction's end (the source may be a night's catalog's only, no row of its
 * own to lock); SQLite's write transaction (BEGIN IMMEDIATE) already is.
 */
export async function lockMarksOf(tx: Tx, source: string): Promise<void> {
  if (dialectOf(tx) !== "postgres") return;
  await sql`select pg_advisory_xact_lock(cast(${MARK_LOCK_CLASS} as int4), hashtext(cast(${source} as text)))`.execute(
    tx,
  );
}

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

/**
 * P25 under a clock set right: a mark whose night is after `tonight` (the date now, by the clock
 * that judges the nights: this host's, or on PostgreSQL the database server's) was made while
 * that clock ran ahead (on SQLite the one host's clock is the marks' and the nights'; on
 * PostgreSQL markSource takes the server's tonight since 40de38f8, older marks aside). It was
 * made by now, so its night is tonight's at the latest: written so, once (not again from each
 * later night), so its rechecks count from tonight, never from a date still to come. Its time
 * (`at`, `made_at`) stays as its host gave it. Returns how many were moved.
 */
export async function marksAheadToTonight(db: Db, tonight: string): Promise<number> {
  const r = await db
    .updateTable("marks")
    .set({ night: tonight })
    .where("night", ">", tonight)
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}
