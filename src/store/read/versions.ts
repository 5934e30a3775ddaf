/**
 * What the bulk downloads are made of, as small markers that move whenever their bytes could:
 * the ETags of /downloads/* (src/web/public/downloads.tsx) are made of them before a row of the
 * files is read, so a client's conditional GET of an unchanged file costs a few index lookups.
 *
 * - The catalog: every write of a catalog import (a government or record page added, changed,
 *   retired or back) is written with its line in `catalog_changes` in the same transaction
 *   (src/store/catalog-import.ts), and nothing else writes `governments` or `sources`; so the
 *   latest line's id (its primary key, read from the end of the index) moves with every change.
 * - The records: only a night writes them (src/store/night-records.ts), each new one with the
 *   night it was first seen, and only while that night's row has no `finished_at`
 *   (`openNight` clears it when a night, an old one too, is opened again, and adds a run). So
 *   the nights' count and runs, and how many records each night still under way holds (a range
 *   of `records_by_night`, read from the index alone), move with every record added. A record
 *   seen before and brought up to date (retitled) adds none: the files show it changed once its
 *   night finishes, when that night leaves the list of those under way. Counting every source
 *   committed instead would move the tags with each of a night's thousands of unchanged pages,
 *   and every client would fetch the whole file again each time. The `nights` table has one
 *   row a night; the records table is never read whole.
 */
import type { Db } from "../db.js";

/** The id of the catalog's latest change, 0 before the first import. */
export async function catalogVersion(db: Db): Promise<number> {
  const r = await db
    .selectFrom("catalog_changes")
    .select((eb) => eb.fn.max("id").as("id"))
    .executeTakeFirst();
  return Number(r?.id ?? 0);
}

/**
 * When the catalog last changed (its latest change's time, read by the primary key's end: the
 * changes are written in order), undefined before the first import. What a feed's `updated` is
 * before the directory's first night, when nothing else in it has a time of its own.
 */
export async function catalogChangedAt(db: Db): Promise<string | undefined> {
  const r = await db
    .selectFrom("catalog_changes")
    .select("at")
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();
  return r?.at;
}

/**
 * What moves with every change of a record page's read status (P24, P26: read / not read and
 * why, web/public/state.ts readStatuses) that the catalog's version does not: the marks, only
 * ever added (one moved to a renamed id moves with the catalog's change); the site owners'
 * requests not to be read and to leave paths alone (night/left-alone.ts), added or cleared (a
 * clearing sets `cleared_at` on its row); and the catalog URLs the nights ask where they moved
 * (P11: a page that moved into a path left alone, or out of one), remembered or forgotten, whose
 * count and latest night move with each (a page moved and another forgotten on one night aside,
 * which that night's end moves: recordsVersion). Counts of small tables: a person writes each
 * request and mark; a move is one row a catalog URL that moved.
 */
export interface StatusVersion {
  marks: number;
  notRead: number;
  notReadCleared: number;
  leaveAlone: number;
  leaveAloneCleared: number;
  moves: number;
  movedLast: string | null;
}

export async function statusVersion(db: Db): Promise<StatusVersion> {
  const rulesOf = (kind: "not-read" | "leave-alone") =>
    db
      .selectFrom("site_rules")
      .select([
        (eb) => eb.fn.countAll<number | string>().as("n"),
        (eb) => eb.fn.count<number | string>("cleared_at").as("cleared"),
      ])
      .where("kind", "=", kind)
      .executeTakeFirst();
  const [marks, notRead, leaveAlone, moves] = await Promise.all([
    db
      .selectFrom("marks")
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .executeTakeFirst(),
    rulesOf("not-read"),
    rulesOf("leave-alone"),
    db
      .selectFrom("source_moves")
      .select([
        (eb) => eb.fn.countAll<number | string>().as("n"),
        (eb) => eb.fn.max("night").as("last"),
      ])
      .executeTakeFirst(),
  ]);
  return {
    marks: Number(marks?.n ?? 0),
    notRead: Number(notRead?.n ?? 0),
    notReadCleared: Number(notRead?.cleared ?? 0),
    leaveAlone: Number(leaveAlone?.n ?? 0),
    leaveAloneCleared: Number(leaveAlone?.cleared ?? 0),
    moves: Number(moves?.n ?? 0),
    movedLast: moves?.last ?? null,
  };
}

export interface RecordsVersion {
  /** Nights in the store, and the runs of them all (a night opened again adds one). */
  nights: number;
  runs: number;
  /** Each night still under way (no finished_at), oldest first, with its records so far. */
  open: { night: string; records: number }[];
}

export async function recordsVersion(db: Db): Promise<RecordsVersion> {
  const [all, open] = await Promise.all([
    db
      .selectFrom("nights")
      .select([
        (eb) => eb.fn.countAll<number | string>().as("n"),
        (eb) => eb.fn.sum<number | string | null>("runs").as("runs"),
      ])
      .executeTakeFirst(),
    db
      .selectFrom("nights as n")
      .select([
        "n.night",
        (eb) =>
          eb
            .selectFrom("records as r")
            .select((e) => e.fn.countAll<number | string>().as("c"))
            .whereRef("r.first_seen_night", "=", "n.night")
            .as("records"),
      ])
      .where("n.finished_at", "is", null)
      .orderBy("n.night")
      .execute(),
  ]);
  return {
    nights: Number(all?.n ?? 0),
    runs: Number(all?.runs ?? 0),
    open: open.map((o) => ({ night: o.night, records: Number(o.records ?? 0) })),
  };
}
