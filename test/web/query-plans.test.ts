import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CompiledQuery, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { historyLookups, movedRows } from "../../src/store/catalog-import.js";
import { openStore, type Store } from "../../src/store/db.js";
import { newestRecordsQuery, recordsAfterQuery } from "../../src/store/read/directory.js";
import { changedQuery } from "../../src/store/read/new-records.js";

/**
 * P27: the console's request-log search by time window, site and source, and the overview's
 * requests per site on a night, use indexes (EXPLAIN QUERY PLAN, never timing): no full scan
 * of request_log, whatever its size.
 */
let store: Store;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "nor-plans-"));
  store = await openStore({ kind: "sqlite", dir });
});
afterAll(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function plan(q: { compile(): CompiledQuery }): Promise<string> {
  const c = q.compile();
  const r = await sql
    .raw<{ detail: string }>(`EXPLAIN QUERY PLAN ${c.sql.replace(/\?/g, () => "NULL")}`)
    .execute(store.db);
  return r.rows.map((x) => x.detail).join("\n");
}

describe("request log reads use indexes", () => {
  it("a time window, a site within a window, a source within a window, and a night's requests per site", async () => {
    const db = store.db;
    const base = db
      .selectFrom("request_log")
      .selectAll()
      .orderBy("started_at")
      .orderBy("id")
      .limit(501);
    const shapes = {
      window: base.where("started_at", ">=", "a").where("started_at", "<", "b"),
      site: base
        .where("site", "=", "x")
        .where("started_at", ">=", "a")
        .where("started_at", "<", "b"),
      source: base.where("source", "=", "x").where("started_at", ">=", "a"),
      night: db
        .selectFrom("request_log")
        .select(["site", (eb) => eb.fn.countAll().as("n"), (eb) => eb.fn.sum("bytes").as("b")])
        .where("night", "=", "2026-11-05")
        .groupBy("site"),
    };
    const expected = {
      window: "request_log_started_at",
      site: "request_log_site_started_at",
      source: "request_log_source_started_at",
      night: "request_log_night_key",
    };
    for (const [name, q] of Object.entries(shapes)) {
      const p = await plan(q);
      expect(p, name).toContain(expected[name as keyof typeof expected]);
      expect(p, name).not.toMatch(/SCAN request_log(?! USING)/);
    }
  });
});

describe("the directory's reads use indexes", () => {
  it("a source's newest records are read in order from records_source_instant, never sorted whole", async () => {
    const p = await plan(newestRecordsQuery(store.db, "s", 50));
    expect(p).toContain("records_source_instant");
    expect(p).not.toContain("TEMP B-TREE");
  });

  it("P6: the records a window brought up to date are sought by when they changed (records_changed), never by the look-back's nights", async () => {
    const range = { from: "2026-11-23", to: "2026-11-24" };
    for (const end of [undefined, "b"]) {
      for (const f of [{}, { county: "Franklin" }, { records: "bids" }]) {
        const p = await plan(changedQuery(store.db, range, { start: "a", end }, f, 100));
        expect(p).toContain("records_changed");
        expect(p).not.toMatch(/SCAN r\b(?! USING)/);
      }
    }
  });

  it("a page of the records' download seeks to the last key of the page before, in the key index", async () => {
    // Narrowed by the kind each record is shown as too (PostgreSQL: query-plans-postgres.test.ts).
    for (const f of [{}, { records: "minutes" }, { records: "other" }]) {
      const p = await plan(recordsAfterQuery(store.db, { sourceId: "s", recordId: "r" }, f, 1000));
      expect(p).toMatch(
        /SEARCH r USING (COVERING )?INDEX \S+ \(\(source_id,record_id\)>\(\?,\?\)\)/,
      );
      expect(p).not.toContain("TEMP B-TREE");
    }
  });
});

describe("a rename's reads and moves use indexes (P6)", () => {
  it("whether the new id has a history, and each table's rows moved to it, are sought by source, never scanned", async () => {
    for (const q of [
      ...historyLookups(store.db, "b"),
      ...movedRows(store.db, { from: "a", to: "b" }),
    ]) {
      const p = await plan(q);
      expect(p).toMatch(/SEARCH/);
      expect(p).not.toMatch(/SCAN (records|night_sources|page_reads|flags)\b(?! USING)/);
    }
  });
});
