import { type Kysely, sql } from "kysely";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { openStore, type Store, type StoreLocation } from "../../src/store/db.js";
import { nightsIn } from "../../src/store/read/new-records.js";
import { nightReport } from "../../src/store/read/night-report.js";
import { leftAt, postgresFactory, postgresUrl, rawStore, storeFactories } from "./stores.js";

/**
 * Migration 016 (issue 13): a store an older version left at migration 015, with a night's
 * requests and results in it, opened by this version (SQLite and PostgreSQL). The two
 * request_log indexes no statement needs are gone, night_sources_by_outcome is replaced by a
 * partial index of the checker-offline rows, and what the console and /new read from them is
 * what it was: a night's requests per site, the nights the checker itself was offline (P20,
 * P23), the partial index holding those rows and the count reading it on both planners. And on
 * PostgreSQL, the migrations losing a deadlock to a night still running are run again.
 */
const factories = storeFactories();

async function indexes(db: Kysely<unknown>, loc: StoreLocation): Promise<string[]> {
  const rows =
    loc.kind === "sqlite"
      ? await sql<{ name: string }>`select name from sqlite_master
          where type = 'index' and tbl_name in ('request_log', 'night_sources')
          and name not like 'sqlite_autoindex%'`.execute(db)
      : await sql<{ name: string }>`select indexname as name from pg_indexes
          where schemaname = current_schema() and tablename in ('request_log', 'night_sources')
          and indexname not like '%_pkey'`.execute(db);
  return rows.rows.map((r) => r.name).sort();
}

/** The definition of the partial index, as the store keeps it. */
async function offlineIndex(db: Kysely<unknown>, loc: StoreLocation): Promise<string> {
  const r =
    loc.kind === "sqlite"
      ? await sql<{ def: string }>`select sql as def from sqlite_master
          where name = 'night_sources_offline'`.execute(db)
      : await sql<{ def: string }>`select indexdef as def from pg_indexes
          where schemaname = current_schema() and indexname = 'night_sources_offline'`.execute(db);
  return r.rows[0]?.def ?? "";
}

/** The plan of /new's count of checker-offline nights (PostgreSQL: sequential scans off). */
async function offlinePlan(db: Kysely<unknown>, loc: StoreLocation): Promise<string> {
  const q = `select night, count(*) from night_sources where night >= '2026-11-05'
    and night <= '2026-11-06' and outcome = 'checker-offline' group by night`;
  if (loc.kind === "sqlite") {
    const r = await sql.raw<{ detail: string }>(`explain query plan ${q}`).execute(db);
    return r.rows.map((x) => x.detail).join("\n");
  }
  await sql`set enable_seqscan = off`.execute(db);
  const r = await sql.raw<{ "QUERY PLAN": string }>(`explain ${q}`).execute(db);
  return r.rows.map((x) => x["QUERY PLAN"]).join("\n");
}

const ROW = {
  started_at: "x",
  ended_at: "y",
  records_found: 0,
  new_records: 0,
  duration_ms: 1,
} as const;

/** A store left at 015 with a night's requests and results; its indexes then. */
async function leftAt015(loc: StoreLocation): Promise<string[]> {
  let before: string[] = [];
  await leftAt(loc, "015-catalog-stamp", async (db) => {
    before = await indexes(db, loc);
    await sql`insert into nights (night, started_at, deadline_at, runs)
      values ('2026-11-05', '2026-11-05T05:00:00Z', '2026-11-05T11:00:00Z', 1),
             ('2026-11-06', '2026-11-06T05:00:00Z', '2026-11-06T11:00:00Z', 1)`.execute(db);
    for (const [i, site] of ["a.gov", "a.gov", "b.gov"].entries()) {
      await sql`insert into request_log (started_at, ended_at, method, url, outcome, bytes, site,
        origin, purpose, night, request_key)
        values (${`2026-11-05T06:00:0${i}Z`}, ${`2026-11-05T06:00:0${i}Z`}, 'GET',
        ${`https://${site}/${i}`}, 'ok', ${100 * (i + 1)}, ${site}, ${`https://${site}`},
        'page', '2026-11-05', ${`k${i}`})`.execute(db);
    }
    const ns = (night: string, source: string, outcome: string) =>
      sql`insert into night_sources (night, source_id, outcome, started_at, ended_at,
        records_found, new_records, duration_ms) values (${night}, ${source}, ${outcome},
        ${ROW.started_at}, ${ROW.ended_at}, ${ROW.records_found}, ${ROW.new_records},
        ${ROW.duration_ms})`.execute(db);
    await ns("2026-11-05", "s1", "checker-offline");
    await ns("2026-11-05", "s2", "checker-offline");
    await ns("2026-11-05", "s3", "unchanged");
    await ns("2026-11-06", "s1", "unreachable");
  });
  return before;
}

describe.each(factories)("a store left at migration 015 ($name)", (f) => {
  it("P20, P23, P27: opened by this version, it keeps the indexes its reads need, and they read what they did", async () => {
    const loc = await f.fresh();
    const before = await leftAt015(loc);
    expect(before).toEqual(
      expect.arrayContaining([
        "request_log_url",
        "request_log_night_site",
        "night_sources_by_outcome",
      ]),
    );
    const s = await openStore(loc);
    try {
      const raw = rawStore(loc);
      try {
        const after = await indexes(raw, loc);
        expect(after).toEqual(
          [
            ...before.filter(
              (n) =>
                !["request_log_url", "request_log_night_site", "night_sources_by_outcome"].includes(
                  n,
                ),
            ),
            "night_sources_offline",
          ].sort(),
        );
        // The partial index holds the checker-offline rows by night, and the count reads it.
        // The whole condition, to its end: SQLite keeps it as written, PostgreSQL as it
        // deparses it (`WHERE (outcome = 'checker-offline'::text)`).
        expect(await offlineIndex(raw, loc)).toMatch(
          /\(\s*"?night"?\s*\)\s*WHERE\s*\(?\s*"?outcome"?\s*=\s*'checker-offline'(::text)?\s*\)?\s*$/i,
        );
        expect(await offlinePlan(raw, loc)).toContain("night_sources_offline");
      } finally {
        await raw.destroy();
      }
      const report = await nightReport(s.db, "2026-11-05", () => false);
      expect(report?.requests).toEqual([
        { site: "a.gov", requests: 2, bytes: 300 },
        { site: "b.gov", requests: 1, bytes: 300 },
      ]);
      const range = { from: "2026-11-05", to: "2026-11-06" };
      const offline = async () =>
        (await nightsIn(s.db, range)).map((n) => [n.night, n.checkerOffline ?? 0]);
      expect(await offline()).toEqual([
        ["2026-11-06", 0],
        ["2026-11-05", 2],
      ]);
    } finally {
      await s.close();
    }
  });
});

/** How many locks of `mode` on `table` (this store's schema) are held or waited for by others. */
async function locksOn(
  c: pg.Client,
  table: string,
  mode: string,
  granted: boolean,
): Promise<number> {
  const r = await c.query(
    `select count(*)::int as n from pg_locks l join pg_class t on t.oid = l.relation
     where t.relname = $1 and t.relnamespace = current_schema()::regnamespace
     and l.mode = $2 and l.granted = $3 and l.pid <> pg_backend_pid()`,
    [table, mode, granted],
  );
  return (r.rows[0] as { n: number }).n;
}

describe.skipIf(!postgresUrl)(
  "migration 016 beside a night of an older version (PostgreSQL)",
  () => {
    it("P27: a deadlock with a running night's transaction is not the store's failure: the migrations run again", async () => {
      const f = postgresFactory(postgresUrl as string);
      try {
        const loc = await f.fresh();
        await leftAt015(loc);
        if (loc.kind !== "postgres") throw new Error("unreachable");
        // An older version's night: a transaction that wrote a source's result, and next will
        // write a journal row. It never finds the deadlock itself (its timeout is long: setting
        // it takes a superuser, as the tests' PostgreSQL is), so the migrations' transaction,
        // which waits first, is the one PostgreSQL rolls back.
        const night = new pg.Client({ connectionString: loc.url });
        // Asked on a connection of its own: inside the night's transaction, pg_stat_activity
        // and pg_locks would give the same snapshot every time.
        const watch = new pg.Client({ connectionString: loc.url });
        await night.connect();
        await watch.connect();
        let opening: Promise<{ s: Store } | { err: unknown }> | undefined;
        try {
          await night.query("set deadlock_timeout = '60s'");
          await night.query("begin");
          await night.query(`insert into night_sources (night, source_id, outcome, started_at,
            ended_at, records_found, new_records, duration_ms)
            values ('2026-11-07', 's9', 'unchanged', 'x', 'y', 0, 0, 1)`);
          opening = openStore(loc).then(
            (s) => ({ s }),
            (err: unknown) => ({ err }),
          );
          // Until the migrations hold request_log (its indexes dropped) and wait for the
          // night's lock on night_sources (bounded: 10 s): a deadlock once the night goes on.
          let ready = false;
          for (let i = 0; i < 400 && !ready; i++) {
            ready =
              (await locksOn(watch, "request_log", "AccessExclusiveLock", true)) > 0 &&
              (await locksOn(watch, "night_sources", "ShareLock", false)) > 0;
            if (!ready) await new Promise((r) => setTimeout(r, 25));
          }
          expect(ready).toBe(true);
          // The night's next write: a journal row, on the table the migrations hold.
          await night.query(`insert into request_log (started_at, method, url, outcome, site,
            origin, purpose) values ('z', 'GET', 'https://a.gov/', 'in-flight', 'a.gov',
            'https://a.gov', 'page')`);
          await night.query("commit");
          const opened = await opening;
          expect("err" in opened ? String(opened.err) : "opened").toBe("opened");
          const raw = rawStore(loc);
          try {
            expect(await indexes(raw, loc)).toContain("night_sources_offline");
          } finally {
            await raw.destroy();
          }
        } finally {
          // Whatever failed above: the night lets go, and a store that opened is closed.
          await night.query("rollback").catch(() => {});
          await night.end();
          await watch.end();
          const opened = await opening;
          if (opened !== undefined && "s" in opened) await opened.s.close();
        }
      } finally {
        await f.cleanup();
      }
    }, 30_000);
  },
);
