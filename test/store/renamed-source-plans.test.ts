import { CompiledQuery } from "kysely";
import { describe, expect, it } from "vitest";
import { firstSourceIdsLetGo, historyLookups, movedRows } from "../../src/store/catalog-import.js";
import { openStore } from "../../src/store/db.js";
import { storeFactories } from "./stores.js";

/**
 * P6: a rename's statements (whether the new id has a history, and each table's rows moved to
 * it) find a source's rows by key or index, never by scanning the table, on SQLite and on
 * PostgreSQL with its tables analyzed (2,000 sources × 5 records and 10 nights). Proved by the
 * plans, never a timing.
 */
const factories = storeFactories();
const SOURCES = 2000;

async function fill(db: Awaited<ReturnType<typeof openStore>>["db"]) {
  const ids = Array.from({ length: SOURCES }, (_, i) => `s${i}`);
  const rows = <T>(make: (id: string, i: number) => T[]) => ids.flatMap((id, i) => make(id, i));
  const put = async (
    table:
      | "records"
      | "night_sources"
      | "page_reads"
      | "flags"
      | "marks"
      | "backfill"
      | "night_catalog"
      | "source_moves"
      | "captures"
      | "forgotten_copies",
    all: object[],
  ) => {
    for (let i = 0; i < all.length; i += 400)
      // Rows of the table named, built below: kysely's per-table row type is not worth spelling.
      await db
        .insertInto(table)
        .values(all.slice(i, i + 400) as never)
        .execute();
  };
  await put(
    "records",
    rows((id) =>
      [1, 2, 3, 4, 5].map((n) => ({
        source_id: id,
        record_id: `https://x.gov/${id}/${n}`,
        title: `Bid ${n}`,
        date: "2026-11-01",
        url: `https://x.gov/${id}/${n}`,
        kind: null,
        first_seen_night: "2026-11-05",
        first_seen_at: "2026-11-05T08:00:00.000Z",
      })),
    ),
  );
  await put(
    "night_sources",
    rows((id) =>
      Array.from({ length: 10 }, (_, d) => ({
        night: `2026-11-${String(d + 1).padStart(2, "0")}`,
        source_id: id,
        outcome: "ok",
        reason: null,
        evidence: null,
        status: 200,
        url: "https://x.gov/list",
        way: null,
        records_found: 5,
        new_records: 0,
        started_at: "2026-11-05T08:00:00.000Z",
        ended_at: "2026-11-05T08:00:01.000Z",
        duration_ms: 1000,
      })),
    ),
  );
  await put(
    "page_reads",
    rows((id) => [
      {
        source_id: id,
        url: "https://x.gov/list",
        key: "k",
        records: 5,
        night: "2026-11-05",
        ids: null,
      },
    ]),
  );
  await put(
    "flags",
    rows((id) => [
      {
        id: `2026-11-05:k:${id}`,
        source_id: id,
        kind: "k",
        night: "2026-11-05",
        detail: "d",
        raised_at: "2026-11-05T08:00:00.000Z",
        cleared_at: null,
        cleared_by: null,
      },
    ]),
  );
  await put(
    "marks",
    rows((id) => [
      {
        source_id: id,
        at: "2026-11-05T09:00:00.000Z",
        reading: 1,
        reason: null,
        by: "op",
        night: "2026-11-05",
      },
    ]),
  );
  await put(
    "backfill",
    rows((id) => [{ source_id: id, done: 1, cursor: null, pages_read: 3 }]),
  );
  await put(
    "night_catalog",
    rows((id) => [
      {
        source_id: id,
        government: "g",
        url: "https://x.gov/list",
        site: "x.gov",
        updated_at: "2026-11-05T08:00:00.000Z",
      },
    ]),
  );
  await put(
    "source_moves",
    rows((id) => [
      {
        source_id: id,
        from_url: `https://x.gov/${id}/old`,
        to_url: `https://x.gov/${id}/list`,
        night: "2026-11-05",
      },
    ]),
  );
  await put(
    "captures",
    rows((id) =>
      [1, 2].map((n) => ({
        record_id: `urn:uuid:${id}-${n}`,
        url: `https://x.gov/${id}/list?page=${n}`,
        fetched_at: "2026-11-05T08:00:00.000Z",
        file: "f.warc.gz",
        offset: n,
        length: 1,
        record_type: "response",
        method: "GET",
        status: 200,
        payload_digest: "sha1:x",
        payload_length: 1,
        source: id,
        purpose: "list",
      })),
    ),
  );
  // What nor archive forget took out of the index (its file lost): kept by source too.
  await put(
    "forgotten_copies",
    rows((id) => [
      {
        url: `https://x.gov/${id}/list?page=1`,
        source: id,
        method: "GET",
        purpose: "page",
        status: 200,
        fetched_at: "2026-11-04T08:00:00.000Z",
        file: "lost.warc.gz",
      },
    ]),
  );
}

describe.each(factories)("a rename's statements use indexes ($name)", (factory) => {
  it("P6: whether the new id has a history, and each table's rows moved to it, are sought by source, never scanned", async () => {
    const store = await openStore(await factory.migrated());
    try {
      await fill(store.db);
      const pg = factory.name === "postgres";
      if (pg) await store.db.executeQuery(CompiledQuery.raw("ANALYZE"));
      for (const q of [
        ...historyLookups(store.db, "s17"),
        ...movedRows(store.db, { from: "s17", to: "s99999" }),
        firstSourceIdsLetGo(store.db, ["s17", "s18"]),
      ]) {
        const c = q.compile();
        const plan = pg
          ? (
              await store.db.executeQuery<{ "QUERY PLAN": string }>(
                CompiledQuery.raw(`EXPLAIN ${c.sql}`, [...c.parameters]),
              )
            ).rows
              .map((r) => r["QUERY PLAN"])
              .join("\n")
          : (
              await store.db.executeQuery<{ detail: string }>(
                CompiledQuery.raw(`EXPLAIN QUERY PLAN ${c.sql}`, [...c.parameters]),
              )
            ).rows
              .map((r) => r.detail)
              .join("\n");
        if (pg) expect(plan, c.sql).not.toMatch(/Seq Scan/);
        else {
          expect(plan, c.sql).toMatch(/SEARCH/);
          expect(plan, c.sql).not.toMatch(
            /SCAN (records|night_sources|page_reads|flags|marks|backfill|night_catalog|captures|forgotten_copies)\b(?! USING)/,
          );
        }
      }
    } finally {
      await store.close();
    }
  }, 60_000);
});
