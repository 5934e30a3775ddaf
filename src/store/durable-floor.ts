/**
 * The benchmarks' durable floor (bench/loopback.ts): what one durable row per request costs at
 * the least on this machine, to measure the engine against. A SQLite file with the store's own
 * settings (WAL, synchronous=FULL: every commit is fsynced) and one table shaped like a request
 * log row; each `insert` is its own transaction, written through one statement prepared once.
 * Nothing of the product uses it; it lives here because every piece of SQL does (P27's log is
 * the real thing, src/store/request-log.ts).
 */
import { join } from "node:path";
import type SqliteDatabase from "better-sqlite3";
import { requireCjs } from "../cjs.js";

export interface FloorRow {
  startedAt: number;
  endedAt: number;
  url: string;
  status: number;
  bytes: number;
  site: string;
}

export interface DurableFloor {
  insert(row: FloorRow): void;
  close(): void;
}

export async function openDurableFloor(dir: string): Promise<DurableFloor> {
  const Sqlite = requireCjs("better-sqlite3") as typeof SqliteDatabase;
  const db = new Sqlite(join(dir, "floor.db"));
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  db.exec(
    "create table if not exists floor (id integer primary key, started_at text not null, ended_at text not null, method text not null, url text not null, status integer, bytes integer not null, site text not null)",
  );
  const stmt = db.prepare(
    "insert into floor (started_at, ended_at, method, url, status, bytes, site) values (?, ?, 'GET', ?, ?, ?, ?)",
  );
  return {
    insert: (r) => {
      stmt.run(
        new Date(r.startedAt).toISOString(),
        new Date(r.endedAt).toISOString(),
        r.url,
        r.status,
        r.bytes,
        r.site,
      );
    },
    close: () => db.close(),
  };
}
