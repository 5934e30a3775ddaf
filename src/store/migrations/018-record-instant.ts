import type { Kysely } from "kysely";
import { FOLD_FROM, FOLD_TO, JOINERS } from "../../policy/fold.js";
import { dialectOf } from "../dialect-of.js";
import { sql } from "../kysely.js";

/**
 * A record's own date as the instant it names, kept beside it (`records.instant`), so the
 * directory orders by a value read, not by an expression worked out for every row of every
 * query: a search matching 300,000 records sorted them in 2.9 s on PostgreSQL, a source's page
 * of 10,000 records in 31 ms (docs/benchmarks.md, "A record's instant kept").
 *
 * The text of a date is no time order (a day is `2026-11-04`, a time `2026-11-04T19:00:00-05:00`
 * or `2026-11-05T00:30:00Z`, and `…T19:00:00-05:00` is later than `…T00:30:00Z` of the next day's
 * text). A bare day is the start of that day in Ohio, taken as 05:00 UTC (Eastern standard time;
 * within the hour in summer), so the evening before, written with its offset or in UTC, orders
 * before it. Null for no date, or one in none of those forms, which then orders with the undated.
 *
 * A stored generated column: whoever writes a record (the night, a test, an older build) writes
 * only its date, and its instant follows, worked out once as the row is written. SQLite:
 * julianday (the table made anew: ALTER TABLE adds no stored column), only for text that starts
 * as a day does, so a date such as `now` is never handed to it (it would refuse it in a
 * generated column, and with it the record's insert).
 * PostgreSQL: stored, a timestamp without a zone in UTC, the parts added up (a cast of the text
 * would refuse a date such as a 30 February, and with it the insert), only for text in one of the
 * forms, each part in the range julianday reads (a month 01–12, a day 01–31, 00:00:00–23:59:59,
 * an offset of at most 14 hours, as on Earth, a fraction of at most 9 digits, read to the
 * millisecond), so what SQLite cannot read (a leap second's :60, a 25th hour, an offset of 23
 * hours) orders with the undated on both; on SQLite, only text of the readers' forms is handed
 * to julianday (which would also read `2026-11-04 19:00` or a 24th hour, and skip a space).
 * Each has an index with it, for a source's newest records.
 */
const DAY = "[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])";
const DAY_TEXT = `^${DAY}$`;
const TIME_TEXT = `^${DAY}T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]([.][0-9]{1,9})?(Z|[+-](0[0-9]|1[0-4]):[0-5][0-9])$`;

const SQLITE_INSTANT = `(case
  when date glob '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]' then julianday(date) + 5.0 / 24
  when date glob '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]*'
    and (date glob '*Z' or date glob '*[+-][0-9][0-9]:[0-9][0-9]')
    and substr(date, 12, 2) <= '23' and date not glob '*[^0-9T:.Z+-]*'
    and length(date) <= (case when date glob '*Z' then 30 else 35 end)
    then julianday(date)
  end)`;

// A timestamp without a zone: months and days are added to it as they are, where added to a
// timestamptz they would be added in the connection's zone (an hour off across summer time).
const PG_DAY = `(timestamp '2000-01-01 00:00:00' + make_interval(
    years => substr(date, 1, 4)::int - 2000,
    months => substr(date, 6, 2)::int - 1,
    days => substr(date, 9, 2)::int - 1))`;
const PG_CLOCK = `make_interval(
    hours => substr(date, 12, 2)::int,
    mins => substr(date, 15, 2)::int,
    secs => substring(date from '^.{17}([0-9]{2}([.][0-9]{1,3})?)')::double precision)`;
const PG_OFFSET = `(case when right(date, 1) = 'Z' then interval '0 minutes'
    else make_interval(mins => (case when substr(date, length(date) - 5, 1) = '-' then -1 else 1 end)
      * (substr(date, length(date) - 4, 2)::int * 60 + right(date, 2)::int)) end)`;
const PG_INSTANT = `(case
  when date ~ '${DAY_TEXT}' then ${PG_DAY} + interval '5 hours'
  when date ~ '${TIME_TEXT}' then ${PG_DAY} + ${PG_CLOCK} - ${PG_OFFSET}
  end)`;

/** Every column of records before this migration, in order (002-night). */
const RECORD_COLUMNS =
  "source_id, record_id, title, date, url, kind, first_seen_night, first_seen_at";

/**
 * SQLite: the records table made anew with the instant a stored column (ALTER TABLE adds only
 * virtual ones, worked out again at every read: a third more time for a search that sorts
 * 300,000 matches), each row copied under its own rowid (the full-text index, records_fts,
 * names rows by it). The table's indexes and triggers (002's and 010's, and any an operator
 * added) are made again from their own SQL as the store held it (a table dropped takes them with
 * it, firing none); a view over records is left as it is (the rename does not rewrite it, so it
 * reads the new table by its name).
 */
async function sqliteWithStoredInstant(db: Kysely<unknown>): Promise<void> {
  const objects = (
    await sql<{ sql: string }>`select sql from sqlite_master
      where tbl_name = 'records' and type in ('index', 'trigger') and sql is not null
      order by type, name`.execute(db)
  ).rows.map((r) => r.sql);
  await sql
    .raw(
      `create table records_next ("source_id" text not null, "record_id" text not null,
        "title" text not null, "date" text, "url" text, "kind" text,
        "first_seen_night" text not null, "first_seen_at" text not null,
        instant real generated always as (${SQLITE_INSTANT}) stored,
        constraint "records_pk" primary key ("source_id", "record_id"))`,
    )
    .execute(db);
  await sql
    .raw(
      `insert into records_next (rowid, ${RECORD_COLUMNS}) select rowid, ${RECORD_COLUMNS} from records`,
    )
    .execute(db);
  await sql`drop table records`.execute(db);
  const legacy = (await sql<{ legacy_alter_table: number }>`pragma legacy_alter_table`.execute(db))
    .rows[0]?.legacy_alter_table;
  // Legacy: the rename checks no view that names records (gone for a moment), nor rewrites one.
  await sql`pragma legacy_alter_table = on`.execute(db);
  try {
    await sql`alter table records_next rename to records`.execute(db);
  } finally {
    await sql.raw(`pragma legacy_alter_table = ${legacy ? "on" : "off"}`).execute(db);
  }
  for (const text of objects) await sql.raw(text).execute(db);
}

/**
 * The words of `text` (SQL) on PostgreSQL as SQLite's tokenizer makes them: Latin letters with a
 * diacritic folded (only over a text with a letter beyond ASCII, more bytes than characters:
 * folding every title tripled the time of an insert of many records), and the characters
 * PostgreSQL's parser joins words with, or drops them with, taken as spaces (policy/fold.ts), so
 * both stores find the same records (an outside tester found "2026" and "cafe" finding fewer on
 * PostgreSQL). Immutable, as a stored column and an index need.
 */
export function pgWords(text: string): string {
  const folded = `(case when octet_length(${text}) > char_length(${text})
    then translate(${text}, '${FOLD_FROM}', '${FOLD_TO}') else ${text} end)`;
  return `to_tsvector('simple', translate(${folded}, '${JOINERS}', '${" ".repeat(JOINERS.length)}'))`;
}

/** The text of a government and of a source that a search reads (010's, unchanged). */
export const PG_WORDS_TEXT = {
  governments: "coalesce(name, '') || ' ' || coalesce(county, '') || ' ' || id",
  sources: "coalesce(name, '') || ' ' || records || ' ' || id",
} as const;

/**
 * The characters of a title whose words PostgreSQL keeps (a tsvector holds at most 1 MB: a
 * longer title would refuse its record's insert). Titles are a line of a list; this is far past one.
 */
const TITLE_WORDS_CHARS = 100_000;

export async function up(db: Kysely<unknown>): Promise<void> {
  const pg = dialectOf(db) === "postgres";
  // Run again over a store that has it (a test puts back a store from before 015): only when
  // missing. SQLite lists a generated column only in table_xinfo (not to kysely's introspection).
  const columns = pg
    ? ((await db.introspection.getTables()).find((t) => t.name === "records")?.columns ?? []).map(
        (c) => c.name,
      )
    : (
        await sql<{ name: string }>`select name from pragma_table_xinfo('records')`.execute(db)
      ).rows.map((r) => r.name);
  if (!columns.includes("instant")) {
    if (pg)
      await sql
        .raw(
          `alter table records add column instant timestamp generated always as (${PG_INSTANT}) stored`,
        )
        .execute(db);
    else await sqliteWithStoredInstant(db);
  }
  if (pg) {
    // A title's words kept beside it too (PostgreSQL): a search worked them out again for every
    // row it matched, to rank it and to check it against the index: 446 against 189 ms for a
    // word in 300,000 titles. Its index takes the place of the one over the expression (010).
    // Its words as SQLite's tokenizer makes them (pgWords).
    if (!columns.includes("title_words"))
      await sql
        .raw(
          `alter table records add column title_words tsvector generated always as (${pgWords(`left(title, ${TITLE_WORDS_CHARS})`)}) stored`,
        )
        .execute(db);
    await sql`create index if not exists records_words on records using gin (title_words)`.execute(
      db,
    );
    await sql`drop index if exists records_fts`.execute(db);
    // Governments' and sources' words made the same way (search.ts repeats these expressions,
    // so the planner uses the indexes): "zoe" finds the Town of Zoë on both stores.
    for (const [table, text] of Object.entries(PG_WORDS_TEXT)) {
      await sql.raw(`drop index if exists ${table}_fts`).execute(db);
      await sql
        .raw(`create index if not exists ${table}_words on ${table} using gin ((${pgWords(text)}))`)
        .execute(db);
    }
  }
  // A source's newest records (its page, its feed, the API) read in order from the index.
  // (SQLite puts nulls last in a descending order by itself, and has no NULLS in an index.)
  // The record id in byte order on PostgreSQL, as the page orders ties (whatever the database's
  // collation), so the index still gives the order.
  const order = pg
    ? `instant desc nulls last, first_seen_at desc, record_id collate "C"`
    : "instant desc, first_seen_at desc, record_id";
  await sql
    .raw(`create index if not exists records_source_instant on records (source_id, ${order})`)
    .execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists records_source_instant`.execute(db);
  if (dialectOf(db) === "postgres") {
    for (const [table, text] of Object.entries(PG_WORDS_TEXT)) {
      await sql.raw(`drop index if exists ${table}_words`).execute(db);
      await sql
        .raw(
          `create index if not exists ${table}_fts on ${table} using gin ((to_tsvector('simple', ${text})))`,
        )
        .execute(db);
    }
    await sql`create index if not exists records_fts on records
      using gin ((to_tsvector('simple', title)))`.execute(db);
    await sql`drop index if exists records_words`.execute(db);
    await db.schema.alterTable("records").dropColumn("title_words").execute();
  }
  await db.schema.alterTable("records").dropColumn("instant").execute();
}
