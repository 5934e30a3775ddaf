/**
 * P7: a source's backfill as the store keeps it (one row a source: done, pages read, the cursor
 * with its counts, why it ended), read for the night, for the operator (`nor site`, `nor status
 * --json`, the console) and restarted by a person (`nor backfill restart`).
 */
import type {
  BackfillEnd,
  BackfillState,
  OverflowPending,
  PageRequest,
  SourceResult,
} from "../night/types.js";
import type { Db } from "./db.js";
import { toIso } from "./iso-time.js";
import type { BackfillTable } from "./schema/night.js";
import { type Retired, retiredOf } from "./source-known.js";
import { writeTxn } from "./write-txn.js";

/** A backfill row as selected (its generated count read as a number or a string). */
interface BackfillRow {
  restarts: number | string | null;
  restarted_at: string | null;
  restarted_by: string | null;
}

/** The counts kept beside the request in the cursor's JSON. */
interface CursorCounts {
  misses?: number;
  failedNights?: number;
  lastMiss?: string;
  unansweredNights?: number;
  /** The catalog URL of the way whose list the cursor is on (BackfillState.way). */
  way?: string;
}

/** A backfill row as the night reads it. */
export function backfillOfRow(
  b: Pick<BackfillTable, "done" | "cursor" | "pages_read" | "ended"> &
    Partial<Pick<BackfillRow, "restarts" | "restarted_at" | "restarted_by">>,
): BackfillState {
  const state: BackfillState = { done: Number(b.done) === 1, pagesRead: Number(b.pages_read) };
  if (b.cursor) {
    const { misses, failedNights, lastMiss, unansweredNights, way, ...cursor } = JSON.parse(
      b.cursor,
    ) as PageRequest & CursorCounts;
    state.cursor = cursor;
    if (typeof way === "string") state.way = way;
    if (typeof misses === "number" && misses > 0) state.misses = misses;
    if (typeof failedNights === "number" && failedNights > 0) state.failedNights = failedNights;
    if (typeof lastMiss === "string" && state.failedNights) state.lastMiss = lastMiss;
    if (typeof unansweredNights === "number" && unansweredNights > 0)
      state.unansweredNights = unansweredNights;
  }
  const end = endOf(b.ended);
  if (end) state.ended = end;
  const count = Number(b.restarts ?? 0);
  if (count > 0)
    state.restarted = {
      count,
      ...(b.restarted_at ? { at: b.restarted_at } : {}),
      ...(b.restarted_by ? { by: b.restarted_by } : {}),
    };
  return state;
}

/**
 * P7: a source's overflow left unfinished, as its backfill row keeps it (migration 034); none
 * without a page to go on from that reads back.
 */
export function overflowOfRow(
  b: Partial<Pick<BackfillTable, "overflow_since" | "overflow_cursor">>,
): OverflowPending | undefined {
  if (!b.overflow_since || !b.overflow_cursor) return undefined;
  try {
    const { failedNights, unansweredNights, way, ...cursor } = JSON.parse(
      b.overflow_cursor,
    ) as PageRequest & Pick<OverflowPending, "failedNights" | "unansweredNights" | "way">;
    if (typeof cursor?.url !== "string") return undefined;
    const p: OverflowPending = { since: b.overflow_since, cursor };
    if (typeof way === "string") p.way = way;
    if (typeof failedNights === "number" && failedNights > 0) p.failedNights = failedNights;
    if (typeof unansweredNights === "number" && unansweredNights > 0)
      p.unansweredNights = unansweredNights;
    return p;
  } catch {
    return undefined;
  }
}

/** The overflow columns of what a night changed of it (SourceResult `overflow`). */
export function overflowColumns(
  change: NonNullable<SourceResult["overflow"]>,
): Pick<BackfillTable, "overflow_since" | "overflow_cursor"> {
  if ("done" in change) return { overflow_since: null, overflow_cursor: null };
  const { since, cursor, way, failedNights, unansweredNights } = change.pending;
  // Its way and counts kept beside the request, as a backfill cursor's counts are (cursorJson).
  const counts = {
    ...(way !== undefined ? { way } : {}),
    ...(failedNights ? { failedNights } : {}),
    ...(unansweredNights ? { unansweredNights } : {}),
  };
  return { overflow_since: since, overflow_cursor: JSON.stringify({ ...cursor, ...counts }) };
}

/** The cursor column of a state: its request with its counts, or null. */
export function cursorJson(b: BackfillState): string | null {
  if (!b.cursor) return null;
  return JSON.stringify({
    ...b.cursor,
    ...(b.misses ? { misses: b.misses } : {}),
    ...(b.failedNights ? { failedNights: b.failedNights } : {}),
    ...(b.failedNights && b.lastMiss ? { lastMiss: b.lastMiss } : {}),
    ...(b.unansweredNights ? { unansweredNights: b.unansweredNights } : {}),
    ...(b.way !== undefined ? { way: b.way } : {}),
  });
}

const WHYS: ReadonlySet<string> = new Set(["last-page", "past-end", "cut-off", "gave-up", "off"]);

function endOf(text: string | null): BackfillEnd | undefined {
  if (!text) return undefined;
  try {
    const e = JSON.parse(text) as BackfillEnd;
    return typeof e === "object" && e !== null && WHYS.has(e.why) ? e : undefined;
  } catch {
    return undefined;
  }
}

/** Each backfill of `ids` (all when absent), by source id. */
export async function backfillStates(
  db: Db,
  ids?: readonly string[],
): Promise<Map<string, BackfillState>> {
  return (await backfillsRead(db, ids)).states;
}

/**
 * Each backfill of `ids` (all when absent), by source id, and (P7) the day's overflow carried
 * over that its row keeps, where one is: for the operator (`nor site`, `nor status --json`, the
 * console's source page). One read of the rows for both.
 */
export async function backfillsRead(
  db: Db,
  ids?: readonly string[],
): Promise<{ states: Map<string, BackfillState>; overflows: Map<string, OverflowPending> }> {
  const states = new Map<string, BackfillState>();
  const overflows = new Map<string, OverflowPending>();
  if (ids?.length === 0) return { states, overflows };
  let q = db
    .selectFrom("backfill")
    .select([
      "source_id",
      "done",
      "cursor",
      "pages_read",
      "ended",
      "restarts",
      "restarted_at",
      "restarted_by",
      "overflow_since",
      "overflow_cursor",
    ]);
  if (ids) q = q.where("source_id", "in", [...new Set(ids)]);
  for (const b of await q.execute()) {
    states.set(b.source_id, backfillOfRow(b));
    const p = overflowOfRow(b);
    if (p) overflows.set(b.source_id, p);
  }
  return { states, overflows };
}

/** What `nor backfill restart` did (P7). */
export type RestartOutcome =
  /**
   * Ended, now going on: from the page it gave up on (`from`), else from the list's page 1;
   * `clearedFlags`: its open backfill-gave-up flags, cleared by the same person.
   */
  | {
      kind: "restarted";
      source: string;
      was?: BackfillEnd;
      from?: string;
      pagesRead: number;
      clearedFlags: number;
    }
  /** Neither in a night's catalog nor imported and in use (as `nor mark` says it). */
  | { kind: "unknown-source"; source: string }
  /** P26: retired by a catalog import (no night reads it): nothing to restart. */
  | Retired
  /**
   * "Off": paused because the catalog asked for no older pages (backfill.pagesPerNight 0). It
   * goes on by itself the first night the catalog asks for some, from where it was: nothing to
   * restart, nothing changed. `asked`: the pages a night the catalog as imported asks for now,
   * when an import says (0: still none).
   */
  | { kind: "off"; source: string; asked?: number }
  /** No night has begun its backfill (none read yet): nothing to restart. */
  | { kind: "not-started"; source: string }
  /** Still going on: nothing to restart. */
  | { kind: "going-on"; source: string; next?: string; pagesRead: number };

/**
 * P7: a backfill that ended goes on from the next night (a person's decision): from the page it
 * gave up on, its cursor kept, the nights counted against it forgotten; one that ended otherwise
 * (its last page, its cut-off, past its end) from the list's page 1 again, as its first night
 * did, its older pages read again at the same pace (their records are already stored). Kept
 * with who and when; its open backfill-gave-up flags cleared by the same person. A night under
 * way that read the backfill before the restart keeps its records, never its backfill's state
 * (the night's save holds only while the restarts it read are the store's): the restart holds.
 */
export async function restartBackfill(
  db: Db,
  source: string,
  who: { by: string; at: number },
): Promise<RestartOutcome> {
  return writeTxn(db, async (tx): Promise<RestartOutcome> => {
    // P26: a source retired by a catalog import is read by no night: refused, nothing changed.
    const imported = await tx
      .selectFrom("sources")
      .select(["entry", "retired_at", "renamed_to"])
      .where("id", "=", source)
      .executeTakeFirst();
    const retired = retiredOf(source, imported);
    if (retired) return retired;
    const row = await tx
      .selectFrom("backfill")
      .select(["done", "cursor", "pages_read", "ended", "restarts"])
      .where("source_id", "=", source)
      .executeTakeFirst();
    if (!row) {
      const known =
        (await tx
          .selectFrom("night_catalog")
          .select("source_id")
          .where("source_id", "=", source)
          .executeTakeFirst()) ??
        (await tx
          .selectFrom("sources")
          .select("id")
          .where("id", "=", source)
          .where("retired_at", "is", null)
          .executeTakeFirst());
      return { kind: known ? "not-started" : "unknown-source", source };
    }
    const b = backfillOfRow(row);
    if (!b.done)
      return {
        kind: "going-on",
        source,
        pagesRead: b.pagesRead,
        ...(b.cursor ? { next: b.cursor.url } : {}),
      };
    // Paused because the catalog asked for no older pages: it goes on by itself the first night
    // the catalog asks for some (night/check-source.ts), so there is nothing to restart.
    if (b.ended?.why === "off") {
      const asked = pagesPerNightOf(imported?.entry);
      return { kind: "off", source, ...(asked !== undefined ? { asked } : {}) };
    }
    const cursor = b.cursor
      ? cursorJson({
          done: false,
          pagesRead: 0,
          cursor: b.cursor,
          ...(b.way !== undefined ? { way: b.way } : {}),
        })
      : null;
    const at = toIso(who.at);
    // Kept with who and when, and counted: a night under way that read the backfill before
    // this does not write over it (its save holds only while the count is the one it read).
    await tx
      .updateTable("backfill")
      .set((eb) => ({
        done: 0,
        cursor,
        ended: null,
        restarts: eb("restarts", "+", 1),
        restarted_at: at,
        restarted_by: who.by,
        // P7, P11: from the list's first page it reads every page again, an overflow left
        // unfinished too (its records kept, already listed): not read on again after it.
        ...(cursor === null ? { overflow_since: null, overflow_cursor: null } : {}),
      }))
      .where("source_id", "=", source)
      .execute();
    // P24: the flag that asked a person to decide is answered by this decision.
    const cleared = await tx
      .updateTable("flags")
      .set({ cleared_at: at, cleared_by: who.by })
      .where("source_id", "=", source)
      .where("kind", "=", "backfill-gave-up")
      .where("cleared_at", "is", null)
      .executeTakeFirst();
    return {
      kind: "restarted",
      source,
      pagesRead: b.pagesRead,
      clearedFlags: Number(cleared.numUpdatedRows),
      ...(b.ended ? { was: b.ended } : {}),
      ...(b.cursor ? { from: b.cursor.url } : {}),
    };
  });
}

/** An imported entry's backfill.pagesPerNight, or undefined when there is none to read. */
function pagesPerNightOf(entry: string | undefined): number | undefined {
  if (!entry) return undefined;
  try {
    const n = (JSON.parse(entry) as { backfill?: { pagesPerNight?: unknown } }).backfill
      ?.pagesPerNight;
    return typeof n === "number" ? n : undefined;
  } catch {
    return undefined;
  }
}
