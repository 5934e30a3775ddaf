import { afterAll, describe, expect, it } from "vitest";
import type { SourceResult } from "../../src/night/types.js";
import { openStore } from "../../src/store/db.js";
import { insertRecords } from "../../src/store/night-records.js";
import { writeTxn } from "../../src/store/write-txn.js";
import { postgresFactory, postgresUrl, type StoreFactory, sqliteFactory } from "./stores.js";

/**
 * Records are written as the list reads now (P6): a new one counted new once, one seen before
 * brought up to date and never new again, and two ids the store keeps as one (NUL as U+FFFD;
 * on PostgreSQL a lone surrogate too) written once, never twice in one statement.
 */
const factories: StoreFactory[] = [
  sqliteFactory(),
  ...(postgresUrl ? [postgresFactory(postgresUrl)] : []),
];
afterAll(async () => {
  for (const f of factories) await f.cleanup();
});

const result = (records: { id: string; title: string }[], endedAt: number): SourceResult => ({
  sourceId: "s",
  outcome: { kind: "ok", url: "https://s.gov/list" },
  records,
  validators: [],
  flags: [],
  startedAt: endedAt - 10,
  endedAt,
});

describe.each(factories)("records written ($name)", (factory) => {
  it("P6: new ones counted once, one seen before brought up to date (when, kept) and not new again, ids the store keeps as one written once", async () => {
    const store = await openStore(await factory.migrated());
    try {
      const db = store.db;
      const write = (records: { id: string; title: string }[], at: number) =>
        writeTxn(db, (tx) => insertRecords(tx, "2026-11-05", result(records, at)));
      const t0 = Date.UTC(2026, 10, 5, 8);
      // Its list read the night before: what it shows now that was not stored is new.
      await db
        .insertInto("night_sources")
        .values({
          night: "2026-11-04",
          source_id: "s",
          outcome: "ok",
          reason: null,
          evidence: null,
          status: 200,
          url: "https://s.gov/list",
          way: null,
          records_found: 0,
          new_records: 0,
          started_at: "2026-11-04T08:00:00.000Z",
          ended_at: "2026-11-04T08:00:01.000Z",
          duration_ms: 1000,
        })
        .execute();
      expect(
        await write(
          [
            { id: "a", title: "Road salt" },
            { id: "b", title: "Paving" },
          ],
          t0,
        ),
      ).toEqual({ fresh: 2, listed: 0 });
      expect(
        await write(
          [
            { id: "a", title: "Road salt (CANCELLED)" },
            { id: "b", title: "Paving" },
          ],
          t0 + 1000,
        ),
      ).toEqual({ fresh: 0, listed: 0 });
      const lone =
        factory.name === "sqlite"
          ? []
          : [
              { id: "s\uD800", title: "S1" },
              { id: "s\uD801", title: "S2" },
            ];
      expect(
        await write(
          [{ id: "r\u0000", title: "R1" }, { id: "r\uFFFD", title: "R2" }, ...lone],
          t0 + 2000,
        ),
      ).toEqual({ fresh: 1 + (lone.length > 0 ? 1 : 0), listed: 0 });
      const rows = await db
        .selectFrom("records")
        .select(["record_id", "title"])
        .orderBy("record_id")
        .execute();
      expect(rows.find((r) => r.record_id === "a")?.title).toBe("Road salt (CANCELLED)");
      expect(rows.filter((r) => r.record_id === "r\uFFFD")).toHaveLength(1);
      expect(rows).toHaveLength(lone.length > 0 ? 4 : 3);
      // Migration 028: when the retitle was written, so its feed entries say it changed; a
      // record shown as first seen has none, and a later read that shows it the same keeps it.
      await write(
        [
          { id: "a", title: "Road salt (CANCELLED)" },
          { id: "b", title: "Paving" },
        ],
        t0 + 3000,
      );
      const changed = await db
        .selectFrom("records")
        .select(["record_id", "changed_at"])
        .where("record_id", "in", ["a", "b"])
        .orderBy("record_id")
        .execute();
      expect(changed).toEqual([
        { record_id: "a", changed_at: new Date(t0 + 1000).toISOString() },
        { record_id: "b", changed_at: null },
      ]);
    } finally {
      await store.close();
    }
  });
});
