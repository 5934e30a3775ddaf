/**
 * The directory's reads on a large store: a search for a word in every record's title, and a
 * source's newest records, each against the least the store must do for it, measured in the same
 * run on the same store (median of 5 runs of each, wall time: a read's time is what a visitor
 * waits):
 * - a search (its page of 20, best first, and its count) against the count of its matches alone
 *   (the full-text index read once, nothing ranked or ordered);
 * - a source's newest 50 against 50 of its records read by their key, in key order.
 *
 * The store is built through the store's own writers (the catalog import, a night's commit of
 * each source's records) with 30 sources × 10,000 records, every title holding the word, dates
 * in the three forms the readers write. The floors are src/store/read-floor.ts. SQLite in a temp directory;
 * PostgreSQL too when NOR_BENCH_POSTGRES_URL is set (a fresh schema, dropped after), analysed
 * after the load, as autovacuum would.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import type { SourceResult } from "../src/night/types.js";
import { siteOf } from "../src/policy/site.js";
import type { Government, Source } from "../src/sources/catalog/types.js";
import { importCatalog } from "../src/sources/catalog-import.js";
import { openStore, type Store, type StoreLocation } from "../src/store/db.js";
import { SqlNightStore } from "../src/store/night-store.js";
import { newestRecords } from "../src/store/read/directory.js";
import { search, searchTerms } from "../src/store/read/search.js";
import {
  analyzeStore,
  countTitleMatches,
  everyRecordNew,
  recordsByKey,
} from "../src/store/read-floor.js";

const SOURCES = 30;
const PER = 10_000;
const T = "2026-01-01T06:00:00.000Z";
const NIGHT = "2025-12-31";

/** The catalog (one government, SOURCES sources) and a night that read PER records of each. */
async function load(store: Store): Promise<number> {
  const government: Government = {
    id: "village-of-bench",
    name: "Village of Bench",
    kind: "village",
    county: "Franklin",
  };
  const sources: Source[] = Array.from({ length: SOURCES }, (_, s) => ({
    id: `s${s}`,
    government: government.id,
    records: "agendas",
    access: "page",
    url: `https://s${s}.example/agendas`,
    alternates: [],
    backfill: { pagesPerNight: 3 },
    confirmed: true,
    name: `Agendas ${s}`,
  }));
  const at = Date.parse(T);
  const files = (xs: { id: string }[]) => new Map(xs.map((x) => [x.id, "bench.yaml"]));
  await importCatalog(
    store.db,
    { governments: [government], sources, leads: [] },
    { governments: files([government]), sources: files(sources) },
    at,
  );
  const ns = new SqlNightStore(store.db);
  await ns.openNight(NIGHT, at, at + 6 * 3600_000);
  await ns.syncSources(
    sources.map((s) => ({ id: s.id, government: s.government, url: s.url, site: siteOf(s.url) })),
    at,
  );
  const t0 = performance.now();
  for (const src of sources) {
    const records = Array.from({ length: PER }, (_, i) => {
      const day = new Date(Date.UTC(2015, 0, 1) + i * 7 * 3600_000).toISOString();
      const r: SourceResult["records"][number] = {
        id: `r${i}`,
        title: `Council meeting agenda ${i}`,
      };
      // Dates in the three forms the readers write, and some undated.
      if (i % 50 !== 0)
        r.date =
          i % 3 === 0
            ? day.slice(0, 10)
            : i % 3 === 1
              ? `${day.slice(0, 19)}Z`
              : `${day.slice(0, 19)}-05:00`;
      return r;
    });
    await ns.commitMany(NIGHT, [
      {
        sourceId: src.id,
        outcome: { kind: "ok" },
        records,
        validators: [],
        flags: [],
        startedAt: at,
        endedAt: at + 800,
      },
    ]);
  }
  const loadMs = performance.now() - t0;
  await ns.finishNight(NIGHT, at + 5 * 3600_000);
  return loadMs;
}

async function median(fn: () => Promise<unknown>): Promise<number> {
  await fn();
  const ms: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    await fn();
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  return ms[2] as number;
}

async function one(name: string, loc: StoreLocation): Promise<string[]> {
  const store = await openStore(loc);
  try {
    const loadMs = await load(store);
    const pgStore = loc.kind === "postgres";
    if (pgStore) await analyzeStore(store.db);
    const words = searchTerms("meeting");
    const searchMs = await median(() =>
      search(store.db, words, {}, { page: 1, perPage: 20, others: 5 }),
    );
    // A search's feed: the latest 100 new on record (and their count), by first seen. The load
    // is each source's first read (already listed): every record made new on record, as after
    // nights of new records, so the feed has all 300,000 to choose from.
    await everyRecordNew(store.db);
    if (pgStore) await analyzeStore(store.db);
    const feedMs = await median(() =>
      search(store.db, words, {}, { page: 1, perPage: 100, others: 0, latest: true }),
    );
    const countMs = await median(() => countTitleMatches(store.db, "meeting"));
    const newestMs = await median(() => newestRecords(store.db, "s7", 50));
    const keyMs = await median(() => recordsByKey(store.db, "s7", 50));
    const f = (ms: number) => `${ms.toFixed(1)} ms`;
    return [
      `| ${name} | search, a word in all ${(SOURCES * PER).toLocaleString("en-US")} titles (page of 20 + count) | ${f(searchMs)} | the matches counted | ${f(countMs)} | **${(searchMs / countMs).toFixed(2)}×** |`,
      `| ${name} | a search's feed, the same word (the latest 100 new on record + count) | ${f(feedMs)} | the matches counted | ${f(countMs)} | **${(feedMs / countMs).toFixed(2)}×** |`,
      `| ${name} | a source's newest 50 (of ${PER.toLocaleString("en-US")}) | ${f(newestMs)} | 50 read by key | ${f(keyMs)} | **${(newestMs / keyMs).toFixed(2)}×** |`,
      `| ${name} | (the load: ${(SOURCES * PER).toLocaleString("en-US")} records, a night's commit of each source) | ${(loadMs / 1000).toFixed(1)} s | | | |`,
    ];
  } finally {
    await store.close();
  }
}

export async function run(): Promise<string> {
  const rows: string[] = [];
  const dir = mkdtempSync(join(tmpdir(), "nor-bench-directory-"));
  try {
    rows.push(...(await one("SQLite", { kind: "sqlite", dir })));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const base = process.env["NOR_BENCH_POSTGRES_URL"];
  if (base) {
    const schema = `nor_bench_directory_${process.pid}`;
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    try {
      await admin.query(`create schema "${schema}"`);
      const sep = base.includes("?") ? "&" : "?";
      const url = `${base}${sep}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
      rows.push(...(await one("PostgreSQL", { kind: "postgres", url })));
    } finally {
      await admin.query(`drop schema if exists "${schema}" cascade`);
      await admin.end();
    }
  } else {
    rows.push("| PostgreSQL | skipped: set NOR_BENCH_POSTGRES_URL | | | | |");
  }
  return [
    "## The directory's reads on a large store",
    "",
    `${SOURCES} sources × ${PER.toLocaleString("en-US")} records, every title holding the word searched; wall time, median of 5 (after one unmeasured run), against the least the store must do for the same answer, in the same run.`,
    "",
    "| store | read | time | baseline | time | ratio |",
    "| --- | --- | --- | --- | --- | --- |",
    ...rows,
  ].join("\n");
}
