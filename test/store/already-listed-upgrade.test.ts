import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { openStore } from "../../src/store/db.js";
import { leftAt, storeFactories } from "./stores.js";

/**
 * A store an older version left at migration 020 (no `already_listed`), opened by this version:
 * migration 021 marks what it can still tell was not new (a source's records of the night it
 * was first read), on SQLite and PostgreSQL, and leaves the rest new as they were.
 */
const factories = storeFactories();

const outcome = (source: string, night: string, kind: string, fresh = 0) =>
  sql`insert into night_sources (night, source_id, outcome, records_found, new_records, started_at, ended_at, duration_ms)
    values (${night}, ${source}, ${kind}, ${fresh}, ${fresh}, ${`${night}T06:00:00Z`}, ${`${night}T06:00:01Z`}, 1000)`;
const record = (source: string, id: string, night: string) =>
  sql`insert into records (source_id, record_id, title, first_seen_night, first_seen_at)
    values (${source}, ${id}, ${`Agenda ${id}`}, ${night}, ${`${night}T06:00:01Z`})`;

describe.each(factories)("a store left at migration 020 ($name)", (f) => {
  it("records a source listed on the night it was first read are marked already listed, and that night counted none new; later ones, and those of a list read before, stay new", async () => {
    const loc = await f.fresh();
    await leftAt(loc, "020-store-identity", async (db) => {
      for (const q of [
        // First read on 11-01 (two records, counted new then), one more on 11-02.
        outcome("a", "2026-11-01", "ok", 2),
        record("a", "a1", "2026-11-01"),
        record("a", "a2", "2026-11-01"),
        outcome("a", "2026-11-02", "ok", 1),
        record("a", "a3", "2026-11-02"),
        // Read on 10-30 (b0), then b1 on 11-01: appeared since.
        outcome("b", "2026-10-30", "ok", 1),
        record("b", "b0", "2026-10-30"),
        outcome("b", "2026-11-01", "ok", 1),
        record("b", "b1", "2026-11-01"),
        // Said no on 10-30 (no read): 11-01 was its first read.
        outcome("c", "2026-10-30", "refused"),
        outcome("c", "2026-11-01", "ok", 1),
        record("c", "c1", "2026-11-01"),
        // Showed no records on 10-30 (nothing read on it): 11-01 was its first read.
        outcome("d", "2026-10-30", "no-records"),
        outcome("d", "2026-11-01", "ok", 1),
        record("d", "d1", "2026-11-01"),
      ])
        await q.execute(db);
    });
    const s = await openStore(loc);
    try {
      const rows = await s.db
        .selectFrom("records")
        .select(["record_id", "already_listed"])
        .orderBy("record_id")
        .execute();
      expect(rows.map((r) => [r.record_id, Number(r.already_listed)])).toEqual([
        ["a1", 1],
        ["a2", 1],
        ["a3", 0],
        ["b0", 1],
        ["b1", 0],
        ["c1", 1],
        ["d1", 1],
      ]);
      // Those nights' counts of new records now say none were; the others are as they were.
      const counts = await s.db
        .selectFrom("night_sources")
        .select(["source_id", "night", "new_records"])
        .where("outcome", "=", "ok")
        .orderBy("source_id")
        .orderBy("night")
        .execute();
      expect(counts.map((c) => [c.source_id, c.night, Number(c.new_records)])).toEqual([
        ["a", "2026-11-01", 0],
        ["a", "2026-11-02", 1],
        ["b", "2026-10-30", 0],
        ["b", "2026-11-01", 1],
        ["c", "2026-11-01", 0],
        ["d", "2026-11-01", 0],
      ]);
    } finally {
      await s.close();
    }
  }, 60_000);
});
