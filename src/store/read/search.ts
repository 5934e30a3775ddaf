/**
 * Search over governments, sources and record titles, ranked: FTS5 with bm25 on SQLite,
 * `to_tsvector`/`ts_rank` on PostgreSQL (indexes: migration 010). The words a person types
 * become a query of plain terms (every word must match, a word typed twice is one, the last one
 * is a prefix; a plural also as its singular; more than MAX_TERMS words are refused, never
 * cut), so no search syntax of either engine reaches it: quotes, NEAR, `-` and `:` are just
 * separators. A source is found by its own words or its government's.
 */
import type { RawBuilder } from "kysely";
import { foldLetters } from "../../policy/fold.js";
import type { Db } from "../db.js";
import { dialectOf } from "../dialect-of.js";
import { sql } from "../kysely.js";
import { pgWords } from "../migrations/018-record-instant.js";
import {
  type DirectoryFilter,
  type GovernmentSummary,
  type SourceSummary,
  shownKindIs,
} from "./directory.js";
import { type NewRecord, type NewRecordRow, toNewRecord } from "./new-records.js";
import { inByteOrder, recordInstant } from "./record-instant.js";
import { oneSnapshot } from "./snapshot.js";

/**
 * At most this many different words are searched (each one more condition on every row). A
 * query with more is refused by the caller, never cut: every word must match (docs/api.md).
 */
export const MAX_TERMS = 8;
/**
 * The longest word, in bytes of UTF-8 as searched (its compatibility characters written out,
 * NFKC, and its letters folded: `tsTerm`), that both stores search whole: PostgreSQL neither
 * indexes nor searches a longer one (2047, its MAXSTRLEN: `to_tsquery` drops it, which would
 * widen the search). A query's word is never cut; the caller refuses a longer one. A `q` of at
 * most 500 characters holds a longer word only by characters NFKC writes out as several
 * (`㌖` is `キロメートル`).
 */
export const MAX_WORD_BYTES = 2047;

/** The size of a query's word as both stores search it (`MAX_WORD_BYTES`). */
export function wordBytes(t: string): number {
  return Buffer.byteLength(foldLetters(t), "utf8");
}

/** What a query asks for: its different words, each a condition every match must meet. */
export interface SearchWords {
  /** The different words, lower-cased letters and digits, in the order first typed. */
  terms: string[];
  /**
   * Whether the last of `terms` matches as a prefix (the person may still be typing it): it is
   * the last word typed, and that word was not typed whole before it (then the whole word must
   * match, and the prefix asks nothing more).
   */
  prefix: boolean;
}

/**
 * The words of a query, each whole (never cut: a word cut short would match other words, or
 * not the one typed); `terms` empty when there is nothing to find. A word typed twice is one
 * condition. The caller refuses more than MAX_TERMS of them, and a word over MAX_WORD_BYTES.
 */
export function searchTerms(q: string): SearchWords {
  const words: string[] = [
    ...(q
      .normalize("NFKC")
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []),
  ];
  const last = words.at(-1);
  return {
    terms: [...new Set(words)],
    prefix: last !== undefined && words.indexOf(last) === words.length - 1,
  };
}

/**
 * The forms of a word that are searched: the word and, for an English plural, its singular, so
 * "bids" also finds "Bid: road resurfacing" and "agencies" finds "agency" (neither engine stems:
 * see migration 010). Only ever adds a form; a word is never dropped.
 */
export function wordForms(t: string): string[] {
  if (t.length >= 4 && t.endsWith("ies")) return [t, `${t.slice(0, -3)}y`];
  if (t.length >= 4 && t.endsWith("s") && !t.endsWith("ss")) return [t, t.slice(0, -1)];
  return [t];
}

/** One word as an FTS5 query: its forms quoted (no syntax gets through), ORed; `*`: a prefix. */
function ftsTerm(t: string, prefix: boolean): string {
  const forms = wordForms(t).map((w) => `"${w}"${prefix ? "*" : ""}`);
  return forms.length > 1 ? `(${forms.join(" OR ")})` : (forms[0] ?? "");
}

/**
 * One word as a tsquery: its forms, each folded as the store folds the words it searches on
 * PostgreSQL (migration 018 `pgWords`, policy/fold.ts), after the forms are made from the word as
 * typed (as FTS5 folds them), ORed; `:*`: a prefix.
 */
function tsTerm(t: string, prefix: boolean): string {
  const forms = wordForms(t).map((w) => `${foldLetters(w)}${prefix ? ":*" : ""}`);
  return forms.length > 1 ? `(${forms.join(" | ")})` : (forms[0] ?? "");
}

/** Each word's query, the last one a prefix when `w.prefix` (the person may still be typing it). */
const ftsTerms = (w: SearchWords) =>
  w.terms.map((t, i) => ftsTerm(t, w.prefix && i === w.terms.length - 1));
const tsTerms = (w: SearchWords) =>
  w.terms.map((t, i) => tsTerm(t, w.prefix && i === w.terms.length - 1));

/** Explicit AND: FTS5 reads `"a" ("b" OR "c")` as a syntax error, `"a" AND (…)` as meant. */
function ftsQuery(w: SearchWords): string {
  return ftsTerms(w).join(" AND ");
}

function tsQuery(w: SearchWords): string {
  return tsTerms(w).join(" & ");
}

/**
 * A source matches when every word is found in its own text (name, kind of records, id) or in
 * its government's (name, county, id): "bids Licking" finds the bid pages of Licking County's
 * governments, "permits Riverbend" the City of Riverbend's permits. Those matching more words
 * in their own text come first.
 */
function sourceMatch(own: RawBuilder<unknown>[], gov: RawBuilder<unknown>[]) {
  return {
    where: and(own.map((o, i) => sql`(${o} or ${gov[i]})`)),
    rank: sql.join(
      own.map((o) => sql`(case when ${o} then 1 else 0 end)`),
      sql` + `,
    ),
  };
}

export interface SearchResult {
  governments: GovernmentSummary[];
  sources: (SourceSummary & { governmentName: string })[];
  records: NewRecord[];
  /** All records that match (the page holds at most `perPage`). */
  recordTotal: number;
}

/**
 * The filter as SQL: `records` is each record's kind as shown (`shownKind`) for records, the
 * page's own kind for record pages (directory.ts applyFilter).
 */
function filterSql(f: DirectoryFilter, on: "records" | "pages"): RawBuilder<unknown>[] {
  const out: RawBuilder<unknown>[] = [];
  if (f.county) out.push(sql`g.county = ${f.county}`);
  if (f.kind) out.push(sql`g.kind = ${f.kind}`);
  if (f.records)
    out.push(on === "records" ? shownKindIs(f.records) : sql`s.records = ${f.records}`);
  if (f.government) out.push(sql`g.id = ${f.government}`);
  if (f.source) out.push(sql`s.id = ${f.source}`);
  return out;
}

const and = (parts: RawBuilder<unknown>[]) =>
  parts.length === 0 ? sql`1 = 1` : sql.join(parts, sql` and `);

/** A record's columns with its source's and government's: a NewRecordRow. */
const RECORD_SELECT = sql`r.source_id, r.record_id, r.title, r.date, r.url, r.kind,
  r.first_seen_night, r.first_seen_at, r.already_listed, r.first_id, r.first_source_id, r.changed_at, s.name as source_name, s.records as source_records,
  g.id as government_id, g.name as government_name, g.kind as government_kind, g.county`;

/**
 * The order of records of equal relevance: the newest by their own date first (the instant it
 * names, `recordInstant`; undated last), then the latest first seen, then by source and record
 * id, so every page of a search holds the same records whichever store answers.
 */
function tieOrder(pg: boolean): RawBuilder<unknown> {
  return sql`${recordInstant()} desc nulls last, r.first_seen_at desc, ${inByteOrder(pg, "r.source_id")}, ${inByteOrder(pg, "r.record_id")}`;
}

export interface SearchOptions {
  page: number;
  perPage: number;
  others: number;
  latest?: boolean;
}

/**
 * Ranked matches; records are paged (`page` from 1), governments and sources capped. `latest`
 * (a search's feed, followed for what is new): only the records new on record (none a page
 * already listed when first read), the latest first seen first, and counted so. The page of
 * records and their total are read in one snapshot (snapshot.ts): a night's commit between the
 * two cannot make the total disagree with the pages it counts.
 */
export async function search(
  db: Db,
  words: SearchWords,
  f: DirectoryFilter,
  opts: SearchOptions,
): Promise<SearchResult> {
  if (words.terms.length === 0)
    return { governments: [], sources: [], records: [], recordTotal: 0 };
  return oneSnapshot(db, (s) => searchIn(s, words, f, opts));
}

async function searchIn(
  db: Db,
  words: SearchWords,
  f: DirectoryFilter,
  opts: SearchOptions,
): Promise<SearchResult> {
  const pg = dialectOf(db) === "postgres";
  const offset = (Math.max(1, opts.page) - 1) * opts.perPage;
  const live = sql`s.retired_at is null and g.retired_at is null`;
  const newOnly = opts.latest ? sql`r.already_listed = 0` : sql`1 = 1`;
  const latest = sql`r.first_seen_at desc`;
  const where = and(filterSql(f, "records"));
  const pagesWhere = and(filterSql(f, "pages"));
  const govWhere = and(
    filterSql(
      {
        ...(f.county ? { county: f.county } : {}),
        ...(f.kind ? { kind: f.kind } : {}),
        ...(f.government ? { government: f.government } : {}),
      },
      "pages",
    ),
  );
  let records: NewRecordRow[];
  let total: number;
  let govRows: {
    id: string;
    name: string;
    kind: string;
    county: string | null;
    website: string | null;
    n: number | string;
  }[];
  let srcRows: {
    id: string;
    government_id: string;
    name: string | null;
    records: string;
    url: string;
    access: string;
    platform: string | null;
    government_name: string;
  }[];
  if (pg) {
    const tq = tsQuery(words);
    // The title's words as the store keeps them (migration 018), under their GIN index.
    const match = sql`r.title_words @@ to_tsquery('simple', ${tq})`;
    records = (
      await sql<NewRecordRow>`select ${RECORD_SELECT} from records r
        join sources s on s.id = r.source_id join governments g on g.id = s.government_id
        where ${match} and ${live} and ${newOnly} and ${where}
        order by ${opts.latest ? latest : sql`ts_rank(r.title_words, to_tsquery('simple', ${tq})) desc`},
          ${tieOrder(pg)}
        limit ${opts.perPage} offset ${offset}`.execute(db)
    ).rows;
    total = Number(
      (
        await sql<{ n: string | number }>`select count(*) as n from records r
          join sources s on s.id = r.source_id join governments g on g.id = s.government_id
          where ${match} and ${live} and ${newOnly} and ${where}`.execute(db)
      ).rows[0]?.n ?? 0,
    );
    // The expressions of the indexes (migration 018), over this query's aliases.
    const gv = sql.raw(
      pgWords("coalesce(g.name, '') || ' ' || coalesce(g.county, '') || ' ' || g.id"),
    );
    govRows = (
      await sql<(typeof govRows)[number]>`select g.id, g.name, g.kind, g.county, g.website,
          (select count(*) from sources s where s.government_id = g.id and s.retired_at is null) as n
        from governments g
        where ${gv} @@ to_tsquery('simple', ${tq}) and g.retired_at is null and ${govWhere}
        order by ts_rank(${gv}, to_tsquery('simple', ${tq})) desc, g.name
        limit ${opts.others}`.execute(db)
    ).rows;
    const sv = sql.raw(pgWords("coalesce(s.name, '') || ' ' || s.records || ' ' || s.id"));
    const sm = sourceMatch(
      tsTerms(words).map((q) => sql`${sv} @@ to_tsquery('simple', ${q})`),
      tsTerms(words).map((q) => sql`${gv} @@ to_tsquery('simple', ${q})`),
    );
    srcRows = (
      await sql<(typeof srcRows)[number]>`select s.id, s.government_id, s.name, s.records, s.url,
          s.access, s.platform, g.name as government_name
        from sources s join governments g on g.id = s.government_id
        where ${sm.where} and ${live} and ${pagesWhere}
        order by ${sm.rank} desc, g.name, s.id
        limit ${opts.others}`.execute(db)
    ).rows;
  } else {
    const fq = ftsQuery(words);
    records = (
      await sql<NewRecordRow>`select ${RECORD_SELECT} from records_fts
        join records r on r.rowid = records_fts.rowid
        join sources s on s.id = r.source_id join governments g on g.id = s.government_id
        where records_fts match ${fq} and ${live} and ${newOnly} and ${where}
        order by ${opts.latest ? latest : sql`bm25(records_fts)`}, ${tieOrder(pg)}
        limit ${opts.perPage} offset ${offset}`.execute(db)
    ).rows;
    total = Number(
      (
        await sql<{ n: number }>`select count(*) as n from records_fts
          join records r on r.rowid = records_fts.rowid
          join sources s on s.id = r.source_id join governments g on g.id = s.government_id
          where records_fts match ${fq} and ${live} and ${newOnly} and ${where}`.execute(db)
      ).rows[0]?.n ?? 0,
    );
    govRows = (
      await sql<(typeof govRows)[number]>`select g.id, g.name, g.kind, g.county, g.website,
          (select count(*) from sources s where s.government_id = g.id and s.retired_at is null) as n
        from governments_fts join governments g on g.rowid = governments_fts.rowid
        where governments_fts match ${fq} and g.retired_at is null and ${govWhere}
        order by bm25(governments_fts), g.name
        limit ${opts.others}`.execute(db)
    ).rows;
    const sm = sourceMatch(
      ftsTerms(words).map(
        (q) => sql`s.rowid in (select rowid from sources_fts where sources_fts match ${q})`,
      ),
      ftsTerms(words).map(
        (q) => sql`g.rowid in (select rowid from governments_fts where governments_fts match ${q})`,
      ),
    );
    srcRows = (
      await sql<(typeof srcRows)[number]>`select s.id, s.government_id, s.name, s.records, s.url,
          s.access, s.platform, g.name as government_name
        from sources s join governments g on g.id = s.government_id
        where ${sm.where} and ${live} and ${pagesWhere}
        order by ${sm.rank} desc, g.name, s.id
        limit ${opts.others}`.execute(db)
    ).rows;
  }
  return {
    governments: govRows.map((g) => ({
      id: g.id,
      name: g.name,
      kind: g.kind,
      county: g.county,
      website: g.website,
      sources: Number(g.n),
      retiredAt: null,
    })),
    sources: srcRows.map((s) => ({
      id: s.id,
      governmentId: s.government_id,
      name: s.name,
      records: s.records,
      url: s.url,
      access: s.access,
      platform: s.platform,
      retiredAt: null,
      renamedTo: null,
      governmentName: s.government_name,
    })),
    records: records.map(toNewRecord),
    recordTotal: total,
  };
}
