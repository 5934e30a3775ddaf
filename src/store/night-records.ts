/**
 * Records into the store, inside the per-source commit transaction (crash safety): deduped
 * per source by record id (P6), so a record seen before is not new and a resumed night never
 * doubles one. Inserted in chunks to stay under the SQL parameter limits of both dialects.
 */

import type { ExpressionBuilder } from "kysely";
import type { SourceResult } from "../night/types.js";
import {
  EMPTY_READ_OUTCOME,
  listAddress,
  READ_HORIZON_NIGHTS,
  READ_OUTCOMES,
} from "../policy/first-read.js";
import {
  linkFamily,
  MOVED_AT_LEAST,
  movedMayBe,
  ofFamily,
  pairMoved,
  pickTwin,
  SPLIT_SUFFIX_LENGTH,
} from "../policy/link-twins.js";
import { addDays } from "../policy/night-date.js";
import {
  type FirstPageRow,
  idsReadAnew,
  newOnSwitchedList,
  pairAcrossWays,
} from "../policy/way-identity.js";
import { dialectOf } from "./dialect-of.js";
import { toIso } from "./iso-time.js";
import { sql } from "./kysely.js";
import { asStored } from "./no-nul.js";
import { type Placeholder, type Prepared, prepared } from "./prepared.js";
import type { Database } from "./schema/index.js";
import type { Tx } from "./write-txn.js";

const CHUNK = 200;

export function chunks<T>(xs: readonly T[], n = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += n) out.push(xs.slice(i, i + n));
  return out;
}

/** What `insertRecords` stored first tonight: new on record, and already listed. */
export interface Inserted {
  fresh: number;
  listed: number;
}

/**
 * Inserts the result's records that are new for the source, and brings a record seen before up
 * to date with the list as it reads now (its title, date, link or kind changed: a bid retitled
 * "CANCELLED", a recipe mended), never making it new again. A record first seen on the source's
 * first read, or on an older page a backfill read (P7), is inserted as already listed: the
 * source's, never new on record (migration 021).
 */
export async function insertRecords(
  trx: Tx,
  night: string,
  r: SourceResult,
  asked?: ReadsBeforeRow,
): Promise<Inserted> {
  const out: Inserted = { fresh: 0, listed: 0 };
  if (r.records.length === 0) return out;
  // One a stored id (two ids the store keeps as one would be written twice in one statement).
  const postgres = dialectOf(trx) === "postgres";
  const unique = new Map(r.records.map((x) => [asStored(x.id, postgres), x]));
  // Read before: its list, by the same address, read in full on a recent night (P4: another
  // way in, or a page moved, is another list, whose ids are not the ones stored); or read and
  // found empty there by tonight's reader (a bids page with no open bid).
  // And whether the list was last read at another address (tonight's way switched: the api
  // failed and the page is read, or the api is back) or by another reader (the recipe changed),
  // asked in the same statement.
  // `asked`: already read with the source's claim, in this transaction (night-store.ts).
  const { lastRead, other, anyFirstId } = await readsBefore(trx, night, r, asked);
  const firstRead = lastRead === undefined;
  // P7: an id the first page lists is tonight's list, whatever older page also shows it.
  const current =
    !firstRead && r.olderFrom !== undefined
      ? new Set(r.records.slice(0, r.olderFrom).map((x) => asStored(x.id, postgres)))
      : undefined;
  const at = toIso(r.endedAt);
  // A page the site says is unchanged (a 304, its copy read again because the recipe or the
  // readers changed) showed what it shows at its last answer: a record first found on it now (a
  // row a widened recipe takes) was there, already listed, never new on record.
  const unchanged = r.outcome.kind === "unchanged";
  // P7, P8: a first page answered 304, read from its copy, before next pages read in full that
  // night (`copied`): its records are as an unchanged page's.
  const copied =
    !unchanged && r.copied !== undefined
      ? new Set(r.records.slice(0, r.copied).map((x) => asStored(x.id, postgres)))
      : undefined;
  // Our own reading: the copy of a page the site answered 304 for (the outcome `unchanged`),
  // read again (the recipe or the readers changed: night/page-key.ts) is the page as we read it
  // before, so a record it shows otherwise than stored was changed by our reading alone: it is
  // brought up to date, and not said changed (`changed_at` kept, migration 028), so a recipe
  // mended does not mark every record of its sources updated in their feeds. The list's older
  // pages a backfill asked in full that night (`olderFrom`) are the site's as it is now.
  // Likewise a record read through another way in than the source's last read list (`other`):
  // what that way writes otherwise (a page's `COUNCIL MEETING`, the api's `Council Meeting`, a
  // day without its time) is the other way's writing, no change a feed announces, whether the
  // record is matched by its id, a link written another way (`relink`) or `acrossWays`.
  // A recipe changed at the same address (`other.readerOnly`) is not another way's writing: a
  // record it reads under its stored id is brought up to date as any night's is.
  const ours =
    other !== undefined && other.readerOnly === undefined
      ? new Set(unique.keys())
      : unchanged
        ? new Set(
            r.records
              .slice(0, r.olderFrom ?? r.records.length)
              .map((x) => asStored(x.id, postgres)),
          )
        : copied;
  // Ids first seen tonight, and whether each was already listed.
  const fresh = new Map<string, boolean>();
  const parts = ours
    ? [
        ...chunks([...unique].filter(([id]) => ours.has(id))).map((p) => ({ p, changedAt: null })),
        ...chunks([...unique].filter(([id]) => !ours.has(id))).map((p) => ({ p, changedAt: at })),
      ]
    : chunks([...unique]).map((p) => ({ p, changedAt: at }));
  for (const { p: part, changedAt } of parts) {
    const values: Record<string, unknown> = {
      sourceId: r.sourceId,
      night,
      at,
      // When a record brought up to date is said changed: now, or (our own reading) as it was.
      changedAt,
    };
    for (const [i, [id, x]] of part.entries()) {
      values[`id${i}`] = x.id;
      values[`title${i}`] = x.title;
      values[`date${i}`] = x.date ?? null;
      values[`url${i}`] = x.url ?? null;
      values[`kind${i}`] = x.kind ?? null;
      values[`listed${i}`] =
        firstRead ||
        unchanged ||
        copied?.has(id) === true ||
        (current !== undefined && !current.has(id))
          ? 1
          : 0;
    }
    // Rows written: those inserted now (first seen at this commit's time) and those brought up
    // to date (their first sighting kept); only the first are new.
    const rows = (await insertOf(part.length).rows(trx, values)) as {
      record_id: string;
      first_seen_at: string;
      already_listed: number;
    }[];
    for (const row of rows) {
      if (row.first_seen_at !== at) continue;
      const listed = Number(row.already_listed) === 1;
      if (listed) out.listed++;
      else out.fresh++;
      fresh.set(row.record_id, listed);
    }
  }
  // A new id that is a stored record's link written another way is that record (link-twins.ts).
  // Not on a first read (nothing of it is new; a brand-new source has nothing stored to match,
  // and asking would cost every first read a statement; a list moved keeps its old spellings).
  const took = new Set<string>();
  // Records taken over by a new id below (relink, acrossWays): each may come to keep an id it
  // was first listed under, so whether the source has any is asked again after them.
  const tookOver = { n: 0 };
  if (fresh.size > 0 && !firstRead) {
    const merged = await relink(
      trx,
      r,
      fresh,
      unique,
      movedMayBe(night, lastRead),
      ours,
      took,
      other !== undefined,
      lastRead,
      tookOver,
    );
    out.fresh -= merged.fresh;
    out.listed -= merged.listed;
  }
  // A record read tonight through another way in than the source's last read list (its api
  // failed and the page was read, or the api is back), or by another reader at the same address
  // (the recipe changed: the platform's id read where the link was): the stored record it is, by its link or
  // its day and title (policy/way-identity.ts), not a second copy. Whether the way switched is
  // asked with the list's last read (`readsBefore`, one statement as before), and the source's
  // stored records are read only on such a night, when it found records not stored before.
  // A reader changed at the same address (`readerOnly`: a recipe, or a deploy of the readers'
  // code) pairs only when it reads the list under other ids: most of tonight's records first
  // seen tonight. A deploy that reads the same ids finds a record new as any night does, though
  // it links what a record no longer listed linked (a file reused for the next agenda).
  const idsChanged = idsReadAnew(fresh.size, unique.size);
  if (
    fresh.size > took.size &&
    other !== undefined &&
    (other.readerOnly === undefined || idsChanged)
  ) {
    const moved = await acrossWays(trx, night, r, fresh, unique, took, lastRead, other, tookOver);
    out.fresh += moved.fresh;
    out.listed += moved.listed;
  }
  // A record under an id a moved record was first listed under (a link reused, or both
  // spellings listed): that one is named by its own id now, so no two records share a feed
  // entry's or a calendar event's name (migration 022). After `relink`, which reads them.
  // Asked first whether the source has any such record (most have none): the update, though
  // it finds no row, costs about 30 µs of SQLite's own work, the question 1 µs. Asked with the
  // list's last read (`readsBefore`, the same transaction: tonight's insert writes no such id);
  // again here only where a record was taken over since, or that statement was not run.
  if (
    fresh.size > 0 &&
    (anyFirstId === undefined || tookOver.n > 0
      ? truthy((await HAS_FIRST_IDS.first(trx, { sourceId: r.sourceId }))?.any)
      : anyFirstId)
  )
    await LET_FIRST_IDS_GO.run(trx, {
      sourceId: r.sourceId,
      ids: JSON.stringify([...fresh.keys()]),
    });
  return out;
}

/** Whether any record of the source keeps an id it was first listed under (the partial index). */
const HAS_FIRST_IDS = prepared((db, $: Placeholder<{ sourceId: string }>) =>
  db.selectNoFrom((eb) => hasFirstIds(eb, $("sourceId")).as("any")),
);

/** HAS_FIRST_IDS's question, as one column of a statement (READS_BEFORE asks it too). */
function hasFirstIds(eb: ExpressionBuilder<Database, never>, sourceId: string) {
  return eb.exists(
    eb
      .selectFrom("records")
      .select(sql.lit(1).as("one"))
      .where("source_id", "=", sourceId)
      .where("first_id", "is not", null),
  );
}

/**
 * Lets go of the ids first listed under (migration 022) that records first seen tonight take:
 * built once, the ids one JSON array, so that a commit with new records (every first read) runs
 * one prepared statement, not one kysely builds anew. On the partial index of the few records
 * that have such an id. The ids are stored ids (`asStored`: no NUL, no lone surrogate on
 * PostgreSQL), which JSON carries as they are.
 */
const LET_FIRST_IDS_GO = prepared((db, $: Placeholder<{ sourceId: string; ids: string }>) =>
  db
    .updateTable("records")
    .set({ first_id: null })
    .where("source_id", "=", $("sourceId"))
    .where(
      "first_id",
      "in",
      dialectOf(db) === "postgres"
        ? sql<string>`(select json_array_elements_text(${$("ids")}::json))`
        : sql<string>`(select value from json_each(${$("ids")}))`,
    ),
);

/**
 * Records first seen tonight that are a stored record whose link changed, where the list no
 * longer shows the stored id: the same link written another way (policy/link-twins.ts: `http:`
 * now `https:`, `www.` added or dropped, or a link that came to be shared by other rows, or
 * stopped being: its id gains or loses its split suffix, the row's title and date the same), or
 * files moved (`pairMoved`: links changed otherwise, several at once, each under the title and
 * date it showed at the page's last read in full). The stored record takes the new id, keeping
 * when it was first seen and whether it was already listed, so it is not new again. Returns how
 * many were so, new and already listed. Only for commits that found records not stored before
 * (most find none), so a night's usual commit asks nothing more.
 */
async function relink(
  trx: Tx,
  r: SourceResult,
  fresh: ReadonlyMap<string, boolean>,
  tonight: ReadonlyMap<string, { title: string; date?: string | undefined }>,
  moves: boolean,
  ours: ReadonlySet<string> | undefined,
  took: Set<string>,
  switched: boolean,
  lastReadNight: string | undefined,
  tookOver: { n: number },
): Promise<Inserted> {
  const merged: Inserted = { fresh: 0, listed: 0 };
  const sourceId = r.sourceId;
  const take = async (id: string, old: Stored) => {
    const late = appearedSince(fresh, id, old, lastReadNight);
    // A 304's copy read again: a change is our reading's, not the site's (insertRecords); the
    // record read through another way in than the last read list: the other way's writing.
    await takeOver(trx, r, id, old, { acrossWays: switched, ours: ours?.has(id) ?? false, late });
    tookOver.n++;
    took.add(id);
    if (late) return;
    if (fresh.get(id)) merged.listed++;
    else merged.fresh++;
  };
  const left = new Set(fresh.keys());
  // The link written another way.
  const familyOf = new Map<string, string[]>();
  for (const id of fresh.keys()) {
    const family = linkFamily(id);
    if (family) familyOf.set(id, family);
  }
  const twins = new Map<string, Stored>();
  for (const part of chunks([...familyOf.keys()], 25)) {
    const keys = [...new Set(part.flatMap((id) => familyOf.get(id) as string[]))];
    const rows = await trx
      .selectFrom("records")
      .select(STORED_COLUMNS)
      .where("source_id", "=", sourceId)
      .where((eb) =>
        eb.or([
          eb("record_id", "in", keys),
          eb(
            sql<
              string | null
            >`case when length(record_id) > ${sql.lit(SPLIT_SUFFIX_LENGTH)} then substr(record_id, 1, length(record_id) - ${sql.lit(SPLIT_SUFFIX_LENGTH)}) end`,
            "in",
            keys,
          ),
        ]),
      )
      .execute();
    for (const row of rows) if (!tonight.has(row.record_id)) twins.set(row.record_id, stored(row));
  }
  for (const [id, family] of familyOf) {
    const candidates = [...twins.values()].filter((c) => ofFamily(c.id, family));
    if (candidates.length === 0) continue;
    const row = tonight.get(id);
    if (row === undefined) continue;
    const old = pickTwin(id, { title: row.title, date: row.date ?? null }, candidates);
    if (old === undefined) continue;
    twins.delete(old.id); // one stored record is taken by one new id
    left.delete(id);
    await take(id, old);
  }
  // Files moved (policy/link-twins.ts pairMoved): the records the page showed at its last read
  // in full, no longer shown, found under new links with their titles and dates.
  if (!moves || r.pageRead === undefined) return merged;
  const postgres = dialectOf(trx) === "postgres";
  const firstPage = new Map(
    r.records.slice(0, r.olderFrom ?? r.records.length).map((x) => [asStored(x.id, postgres), x]),
  );
  const rest: { id: string; title: string; date: string }[] = [];
  for (const id of left) {
    const row = firstPage.get(id);
    if (row?.date && linkFamily(id)) rest.push({ id, title: row.title, date: row.date });
  }
  if (rest.length < MOVED_AT_LEAST) return merged;
  const before = await LAST_READ_IDS.first(trx, { sourceId, url: r.pageRead.url });
  const lastRead = lastReadIds(before?.ids).filter((id) => linkFamily(id) !== undefined);
  const goneIds = lastRead.filter((id) => !tonight.has(id));
  if (goneIds.length < MOVED_AT_LEAST) return merged;
  const gone: Stored[] = [];
  for (const part of chunks(goneIds)) {
    const rows = await trx
      .selectFrom("records")
      .select(STORED_COLUMNS)
      .where("source_id", "=", sourceId)
      .where("record_id", "in", part)
      .execute();
    for (const row of rows) gone.push(stored(row));
  }
  const shown = [...firstPage.values()].map((x) => ({ title: x.title, date: x.date ?? null }));
  const moved = pairMoved(rest, shown, gone, lastRead.length, lastRead.length - goneIds.length);
  for (const [id, old] of moved) await take(id, old);
  return merged;
}

/**
 * The stored record `old` takes the new id `id` (the row tonight's insert wrote): it keeps when
 * it was first seen and whether it was already listed, and the row under `old.id` goes. Across
 * ways in (`acrossWays`), what the other way writes otherwise (a page's `COUNCIL MEETING`, the
 * api's `Council Meeting`) is no change its feed entries announce: it keeps when it last changed.
 */
async function takeOver(
  trx: Tx,
  r: SourceResult,
  id: string,
  old: Stored,
  opts: { acrossWays: boolean; ours?: boolean; late?: boolean },
): Promise<void> {
  const sourceId = r.sourceId;
  // A 304's copy read again: a change is our reading's, not the site's (insertRecords): the
  // stored row's changed_at is kept.
  const at = opts.ours ? null : toIso(r.endedAt);
  // Before the stored row goes: the new one is compared with it.
  await trx
    .updateTable("records")
    .set({
      // A record that appeared since this way's last read keeps tonight's sighting (`late`).
      ...(opts.late
        ? {}
        : { first_seen_night: old.night, first_seen_at: old.at, already_listed: old.listed }),
      // Its feed entries keep the name it was first listed under (migration 022), none when
      // that is its id again (a link written back the way it first was).
      first_id: (old.firstId ?? old.id) === id ? null : (old.firstId ?? old.id),
      // And the source id it was first listed under (its source renamed since, migration 026).
      first_source_id: old.firstSourceId,
      // And when it was last brought up to date (migration 028): now, when the row under the
      // new link shows another title, date or kind (retitled the night its link was written
      // anew), else when the stored one was; compared as both are stored, as the upsert does.
      changed_at: opts.acrossWays
        ? sql<string | null>`(select o.changed_at from records o
          where o.source_id = ${sourceId} and o.record_id = ${old.id})`
        : sql<string | null>`(select case when o.title is distinct from records.title
            or o.date is distinct from records.date or o.kind is distinct from records.kind
            then coalesce(cast(${at} as text), o.changed_at) else o.changed_at end
          from records o where o.source_id = ${sourceId} and o.record_id = ${old.id})`,
    })
    .where("source_id", "=", sourceId)
    .where("record_id", "=", id)
    .execute();
  await trx
    .deleteFrom("records")
    .where("source_id", "=", sourceId)
    .where("record_id", "=", old.id)
    .execute();
}

/**
 * Whether the stored record `old` that the new id `id` is appeared since this way's last read
 * (`lastRead`), already listed: first seen on another way's first read (a page of other records
 * the night the api failed, read as a first read is), which could not tell it new. This way,
 * whose last read did not show it, finds it new tonight, as it would have without the other's
 * night between: it is new on record tonight (its first sighting tonight's), not never.
 */
function appearedSince(
  fresh: ReadonlyMap<string, boolean>,
  id: string,
  old: Stored,
  lastRead: string | undefined,
): boolean {
  return (
    fresh.get(id) === false && old.listed === 1 && lastRead !== undefined && old.night > lastRead
  );
}

function stored(row: StoredRow): Stored {
  return {
    id: row.record_id,
    title: row.title,
    date: row.date,
    night: row.first_seen_night,
    at: row.first_seen_at,
    listed: Number(row.already_listed),
    firstId: row.first_id,
    firstSourceId: row.first_source_id,
  };
}

/**
 * Records first seen tonight (`fresh`, less those `relink` took) that are a stored record read
 * through another way in (policy/way-identity.ts): the stored record takes the new id, keeping
 * when it was first seen and whether it was already listed, so the source holds one copy and it
 * is not new again. On the way's first read (`firstRead`: its list not read within the horizon),
 * what it shows that the source did not hold is new when the other way was read within the
 * horizon and most of tonight's first page was held (`switchedListSaysNew`): the two ways show
 * one list, so a record new tonight is new tonight, not the night the first way is back. Returns
 * the change to the counts of new and already listed. Runs over every stored record of the
 * source the list does not show tonight, on a night whose way switched only.
 */
async function acrossWays(
  trx: Tx,
  night: string,
  r: SourceResult,
  fresh: ReadonlyMap<string, boolean>,
  tonight: ReadonlyMap<string, SourceResult["records"][number]>,
  took: ReadonlySet<string>,
  lastRead: string | undefined,
  other: OtherRead,
  tookOver: { n: number },
): Promise<Inserted> {
  const firstRead = lastRead === undefined;
  const change: Inserted = { fresh: 0, listed: 0 };
  const sourceId = r.sourceId;
  const rows = await trx
    .selectFrom("records")
    .select([...STORED_COLUMNS, "url"])
    .where("source_id", "=", sourceId)
    .execute();
  // Not listed tonight (what tonight's insert wrote is listed tonight).
  const candidates = rows
    .filter((row) => !tonight.has(row.record_id))
    .map((row) => ({ ...stored(row), url: row.url }));
  const shown = (id: string, x: { title: string; date?: string | undefined; url?: string }) => ({
    id,
    title: x.title,
    date: x.date ?? null,
    url: x.url ?? null,
  });
  const newIds = [...fresh.keys()].filter((id) => !took.has(id));
  // A recipe changed at the same address pairs by title alone only the records its list showed
  // at its last read in full (page_reads.ids, written after this), where that read is kept and
  // showed any: a read of none (the recipe being mended found no rows: the site's layout
  // changed) says nothing of which records the list holds, so all stored are paired as before.
  let sameList: boolean | ReadonlySet<string> = other.readerOnly === true;
  // Tonight's read kept (a GET's first page; a form's is not): as the memory store does.
  if (sameList && r.pageRead !== undefined) {
    const before = await LAST_READ_IDS.first(trx, { sourceId, url: r.pageRead.url });
    const ids = lastReadIds(before?.ids);
    if (ids.length > 0) sameList = new Set(ids);
  }
  const pairs = pairAcrossWays(
    newIds.flatMap((id) => {
      const x = tonight.get(id);
      return x ? [shown(id, x)] : [];
    }),
    [...tonight].map(([id, x]) => shown(id, x)),
    candidates,
    sameList,
  );
  for (const [id, old] of pairs) {
    const late = appearedSince(fresh, id, old, lastRead);
    await takeOver(trx, r, id, old, { acrossWays: true, late });
    tookOver.n++;
    if (late) continue;
    if (fresh.get(id)) change.listed--;
    else change.fresh--;
  }
  // The way's first read: what it shows that the source did not hold is new when the two ways
  // show one list, and the other was read lately (first-read.ts's horizon).
  // Not on a page the site says is unchanged (a 304: insertRecords), which shows nothing new.
  if (
    !firstRead ||
    r.outcome.kind === "unchanged" ||
    other.night < addDays(night, -READ_HORIZON_NIGHTS)
  )
    return change;
  const postgres = dialectOf(trx) === "postgres";
  const firstPage = new Map<string, FirstPageRow>();
  for (const x of r.records.slice(0, r.olderFrom ?? r.records.length)) {
    const id = asStored(x.id, postgres);
    if (firstPage.has(id)) continue;
    const unheld = fresh.get(id) === true && !pairs.has(id) && !took.has(id);
    firstPage.set(id, { id, date: x.date ?? null, held: !unheld });
  }
  const unheld = newOnSwitchedList([...firstPage.values()]);
  if (unheld.length === 0) return change;
  for (const part of chunks(unheld))
    await trx
      .updateTable("records")
      .set({ already_listed: 0 })
      .where("source_id", "=", sourceId)
      .where("record_id", "in", part)
      .execute();
  change.listed -= unheld.length;
  change.fresh += unheld.length;
  return change;
}

/** The source's list as last read through another way in, or with another reader, before tonight. */
interface OtherRead {
  night: string;
  address: string;
  /** At the same address as tonight, with another reader (a recipe changed). */
  readerOnly?: true;
}

/** The way in a night used, from its `way` (WayChoice as JSON), else the outcome's address. */
function usedAddress(db: Tx) {
  return dialectOf(db) === "postgres"
    ? sql<string | null>`coalesce((way::jsonb -> 'used' ->> 'url'), url)`
    : sql<string | null>`coalesce(json_extract(way, '$.used.url'), url)`;
}

/** `page_reads.ids` (a JSON array of ids), or none when absent or not such an array. */
function lastReadIds(json: string | null | undefined): string[] {
  if (!json) return [];
  try {
    const v: unknown = JSON.parse(json);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
  } catch {
    return [];
  }
}

/**
 * The ids the source's first page listed at its last read in full: kept by the address that
 * answered, so a page that now answers from another (a site moved to a new platform, its old
 * list redirected) is looked up by the newest read kept.
 */
const LAST_READ_IDS = prepared((db, $: Placeholder<{ sourceId: string; url: string }>) =>
  db
    .selectFrom("page_reads")
    .select("ids")
    .where("source_id", "=", $("sourceId"))
    .orderBy(sql`case when url = ${$("url")} then 0 else 1 end`)
    .orderBy("night", "desc")
    .limit(1),
);

const STORED_COLUMNS = [
  "record_id",
  "title",
  "date",
  "first_seen_night",
  "first_seen_at",
  "already_listed",
  "first_id",
  "first_source_id",
] as const;

interface StoredRow {
  record_id: string;
  title: string;
  date: string | null;
  first_seen_night: string;
  first_seen_at: string;
  already_listed: number;
  first_id: string | null;
  first_source_id: string | null;
}

/** A stored record no longer listed, that a new id may be. */
interface Stored {
  id: string;
  title: string;
  date: string | null;
  night: string;
  at: string;
  listed: number;
  /** The id it was first listed under, when not `id` (migration 022). */
  firstId: string | null;
  /** The source id it was first listed under, when not its source's (migration 026). */
  firstSourceId: string | null;
}

/**
 * Before tonight's records are stored, in one statement: the night the source's list was last
 * read (first-read.ts: the same address, records found, or none found by the same reader, within
 * READ_HORIZON_NIGHTS), or none: tonight is its first read; and the last night before tonight
 * that found records on the source's list, when it read it at another address than tonight's
 * (another way in, or a page moved in the catalog) or with another reader (the recipe changed):
 * tonight's way switched (`other`).
 */
async function readsBefore(
  trx: Tx,
  night: string,
  r: SourceResult,
  asked?: ReadsBeforeRow,
): Promise<{
  lastRead: string | undefined;
  other: OtherRead | undefined;
  /** Whether any record of the source keeps an id it was first listed under; undefined: not asked. */
  anyFirstId: boolean | undefined;
}> {
  const args = readsBeforeArgs(night, r);
  if (args === undefined) return { lastRead: undefined, other: undefined, anyFirstId: undefined };
  const address = args.address;
  const row = asked ?? (await READS_BEFORE.first(trx, args));
  const lastRead = row?.same ?? undefined;
  const other =
    row?.last_night != null &&
    row.last_address != null &&
    (row.last_address !== address || readerChanged(row.last_reader, r.reader))
      ? {
          night: row.last_night,
          address: row.last_address,
          ...(row.last_address === address ? { readerOnly: true as const } : {}),
        }
      : undefined;
  return { lastRead, other, anyFirstId: truthy(row?.any_first_id) };
}

/** EXISTS comes back as a boolean from PostgreSQL and as 0 or 1 from SQLite. */
function truthy(v: unknown): boolean {
  return v === true || v === 1 || v === "1" || v === "t";
}

/**
 * Whether the list was last read with another reader than tonight's: both known (a night stored
 * by an earlier build kept none, and is taken as tonight's reader).
 */
function readerChanged(last: string | null | undefined, tonight: string | undefined): boolean {
  return last != null && tonight !== undefined && last !== tonight;
}

/** The reader a night read its list with (SourceResult.reader, kept in its `way`), or null. */
function usedReader(db: Tx) {
  return dialectOf(db) === "postgres"
    ? sql<string | null>`(way::jsonb ->> 'reader')`
    : sql<string | null>`json_extract(way, '$.reader')`;
}

/** Exported for test/store/partial-index-literals.test.ts. */
/** What READS_BEFORE is asked with (readsBeforeArgs). */
export type ReadsBeforeArgs = {
  sourceId: string;
  night: string;
  since: string;
  address: string;
  reader: string | null;
};

/** What READS_BEFORE answers (or a source's claim asked with it: night-store.ts CLAIM_READING). */
export interface ReadsBeforeRow {
  same: string | null;
  last_night: string | null;
  last_address: string | null;
  last_reader: string | null;
  any_first_id: unknown;
}

/**
 * READS_BEFORE's question for a result: asked only of one that stores records and says where its
 * list was read (else insertRecords needs none).
 */
export function readsBeforeArgs(night: string, r: SourceResult): ReadsBeforeArgs | undefined {
  if (r.records.length === 0) return undefined;
  const address = listAddress(r);
  if (address === undefined) return undefined;
  return {
    sourceId: r.sourceId,
    night,
    since: addDays(night, -READ_HORIZON_NIGHTS),
    address,
    reader: r.reader ?? null,
  };
}

/**
 * READS_BEFORE's columns, for a statement of its own or for another that a source's commit runs
 * first anyway (its claim's RETURNING: night-store.ts). None reads tonight's night_sources row.
 */
export function readsBeforeColumns(
  db: Tx,
  eb: ExpressionBuilder<Database, never>,
  $: Placeholder<ReadsBeforeArgs>,
) {
  const used = usedAddress(db);
  const reader = usedReader(db);
  const last = () =>
    db
      .selectFrom("night_sources")
      .where("source_id", "=", $("sourceId"))
      .where("night", "<", $("night"))
      .where((eb) => eb.or([eb("outcome", "in", READ_OUTCOMES), eb("records_found", ">", 0)]))
      .orderBy("night", "desc")
      .limit(1);
  return [
    db
      .selectFrom("night_sources")
      .select("night")
      .where("source_id", "=", $("sourceId"))
      .where("night", "<>", $("night"))
      .where("night", ">=", $("since"))
      .where((eb) =>
        eb.or([
          eb("outcome", "in", READ_OUTCOMES),
          // A night whose older page said no (P7: the backfill's stop is the night's outcome)
          // still read page 1 in full, and found records on it.
          eb("records_found", ">", 0),
          // A list read and found empty (a bids page with no open bid), by tonight's reader.
          // The outcome a literal, never a parameter: night_sources_offline (migration 016) is
          // a partial index on `outcome = 'checker-offline'`, and SQLite, weighing it against a
          // bound value, prepares the statement again at every run (about 70 µs a source, 8×
          // the statement's own cost: docs/benchmarks.md "A night's memory", 2026-12-07).
          eb.and([eb("outcome", "=", sql.lit(EMPTY_READ_OUTCOME)), eb(reader, "=", $("reader"))]),
        ]),
      )
      .where(used, "=", $("address"))
      .orderBy("night", "desc")
      .limit(1)
      .as("same"),
    last().select("night").as("last_night"),
    last().select(used.as("address")).as("last_address"),
    last().select(reader.as("reader")).as("last_reader"),
    // HAS_FIRST_IDS, asked here for insertRecords: one statement fewer a commit with records.
    hasFirstIds(eb, $("sourceId")).as("any_first_id"),
  ] as const;
}

/** Exported for test/store/partial-index-literals.test.ts. */
export const READS_BEFORE = prepared((db, $: Placeholder<ReadsBeforeArgs>) =>
  db.selectNoFrom((eb) => readsBeforeColumns(db, eb, $)),
);

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
            already_listed: $(`listed${i}`) as number,
          })),
        )
        .onConflict((oc) =>
          oc
            .columns(["source_id", "record_id"])
            .doUpdateSet((eb) => ({
              title: eb.ref("excluded.title"),
              date: eb.ref("excluded.date"),
              url: eb.ref("excluded.url"),
              kind: eb.ref("excluded.kind"),
              // When what its feed entries show changed (retitled, redated, another kind): they
              // say so (migration 028). A link written anew alone is the record as it was; a
              // change by our own reading (`changedAt` null: insertRecords) keeps it as it was.
              changed_at: sql<
                string | null
              >`case when records.title is distinct from excluded.title or records.date is distinct from excluded.date or records.kind is distinct from excluded.kind then coalesce(cast(${$("changedAt")} as text), records.changed_at) else records.changed_at end`,
            }))
            .where(
              sql<boolean>`records.title is distinct from excluded.title or records.date is distinct from excluded.date or records.url is distinct from excluded.url or records.kind is distinct from excluded.kind`,
            ),
        )
        .returning(["record_id", "first_seen_at", "already_listed"]),
    );
    inserts.set(n, p);
  }
  return p;
}
