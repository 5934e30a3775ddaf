import { Migrator, sql } from "kysely";
import { describe, expect, it } from "vitest";
import { MemoryNightStore } from "../../src/night/memory-store.js";
import type { NightStore } from "../../src/night/ports.js";
import type { SourceResult } from "../../src/night/types.js";
import { openStore } from "../../src/store/db.js";
import { migrationProvider } from "../../src/store/migrations/index.js";
import { SqlNightStore } from "../../src/store/night-store.js";
import { leftAt, rawStore, storeFactories } from "./stores.js";

/**
 * P7: a source's overflow reading left unfinished (night/types.ts OverflowPending) is kept by
 * the store with the source's night (`commit`'s `overflow`: pending, in place of the one before,
 * or done), read back by `histories` as `overflow`, and left as it is by a night that says
 * nothing of it: the same over memory, SQLite and PostgreSQL.
 */
const factories = storeFactories();

type Maker = { name: string; make(): Promise<{ store: NightStore; close(): Promise<void> }> };
const makers: Maker[] = [
  { name: "memory", make: async () => ({ store: new MemoryNightStore(), close: async () => {} }) },
  ...factories.map(
    (f): Maker => ({
      name: f.name,
      make: async () => {
        const s = await openStore(await f.migrated());
        return { store: new SqlNightStore(s.db), close: () => s.close() };
      },
    }),
  ),
];

const T0 = Date.parse("2026-11-05T06:00:00Z");
const DAY = 86_400_000;
const URL_ = "https://a.gov/list";

function result(sourceId: string, endedAt: number, more: Partial<SourceResult> = {}): SourceResult {
  return {
    sourceId,
    outcome: { kind: "ok", url: URL_ },
    records: [],
    validators: [],
    flags: [],
    startedAt: endedAt - 500,
    endedAt,
    ...more,
  };
}

describe.each(makers)("overflow left unfinished ($name)", (maker) => {
  it("P7: an overflow pending is read back with its night, page, way and failed nights; replaced, kept by a night that says nothing of it, and cleared when done; another source's apart", async () => {
    const { store, close } = await maker.make();
    try {
      const nights = ["2026-11-05", "2026-11-06", "2026-11-07", "2026-11-08"];
      for (const [i, n] of nights.entries())
        await store.openNight(n, T0 + i * DAY, T0 + i * DAY + 3_600_000);
      // Its backfill ended the first night (a pending overflow is kept beside it).
      const ended = { done: true, pagesRead: 3, ended: { why: "last-page" as const } };
      await store.commit(nights[0] as string, result("a.gov/0", T0, { backfill: ended }));
      await store.commit(nights[0] as string, result("a.gov/1", T0, { backfill: ended }));
      let h = await store.histories(nights[1] as string, ["a.gov/0", "a.gov/1"]);
      expect(h.get("a.gov/0")?.overflow).toBeUndefined();

      const cursor = { url: `${URL_}?page=5` };
      await store.commit(
        nights[1] as string,
        result("a.gov/0", T0 + DAY, { overflow: { pending: { since: "2026-11-06", cursor } } }),
      );
      h = await store.histories(nights[2] as string, ["a.gov/0", "a.gov/1"]);
      expect(h.get("a.gov/0")?.overflow).toEqual({ since: "2026-11-06", cursor });
      expect(h.get("a.gov/0")?.backfill).toMatchObject({ done: true, pagesRead: 3 });
      expect(h.get("a.gov/1")?.overflow).toBeUndefined();

      // Gone on: another page; another source's begun.
      await store.commit(
        nights[2] as string,
        result("a.gov/0", T0 + 2 * DAY, {
          overflow: { pending: { since: "2026-11-06", cursor: { url: `${URL_}?page=8` } } },
        }),
      );
      await store.commit(
        nights[2] as string,
        result("a.gov/1", T0 + 2 * DAY, {
          overflow: {
            pending: {
              since: "2026-11-07",
              cursor: { url: `${URL_}?page=2` },
              way: URL_,
              failedNights: 1,
              unansweredNights: 2,
            },
          },
        }),
      );
      h = await store.histories(nights[3] as string, ["a.gov/0", "a.gov/1"]);
      expect(h.get("a.gov/0")?.overflow).toEqual({
        since: "2026-11-06",
        cursor: { url: `${URL_}?page=8` },
      });
      expect(h.get("a.gov/1")?.overflow).toEqual({
        since: "2026-11-07",
        cursor: { url: `${URL_}?page=2` },
        way: URL_,
        failedNights: 1,
        unansweredNights: 2,
      });

      // A night that says nothing of it keeps it; one done clears it.
      await store.commit(nights[3] as string, result("a.gov/1", T0 + 3 * DAY));
      await store.commit(
        nights[3] as string,
        result("a.gov/0", T0 + 3 * DAY, { overflow: { done: true } }),
      );
      h = await store.histories("2026-11-09", ["a.gov/0", "a.gov/1"]);
      expect(h.get("a.gov/0")?.overflow).toBeUndefined();
      expect(h.get("a.gov/0")?.backfill).toMatchObject({ done: true });
      expect(h.get("a.gov/1")?.overflow).toEqual({
        since: "2026-11-07",
        cursor: { url: `${URL_}?page=2` },
        way: URL_,
        failedNights: 1,
        unansweredNights: 2,
      });
    } finally {
      await close();
    }
  });
});

describe.each(factories)("migration 034 on a store an older version left ($name)", (f) => {
  it("P7: migration 034 on a store left at 033 with backfill rows: read back as they were, nothing pending; a pending kept; down to 033 and up again, nothing pending, the backfill as it was", async () => {
    const loc = await f.fresh();
    await leftAt(loc, "033-record-changed-index", async (db) => {
      await sql`insert into backfill (source_id, done, cursor, pages_read) values ('a.gov/0', 1, null, 7)`.execute(
        db,
      );
    });
    const s = await openStore(loc);
    try {
      const store = new SqlNightStore(s.db);
      await store.openNight("2026-11-06", T0 + DAY, T0 + DAY + 3_600_000);
      let h = await store.histories("2026-11-06", ["a.gov/0"]);
      expect(h.get("a.gov/0")?.backfill).toEqual({ done: true, pagesRead: 7 });
      expect(h.get("a.gov/0")?.overflow).toBeUndefined();
      const cursor = { url: `${URL_}?page=5` };
      await store.commit(
        "2026-11-06",
        result("a.gov/0", T0 + DAY, {
          overflow: { pending: { since: "2026-11-06", cursor, way: URL_ } },
        }),
      );
      h = await store.histories("2026-11-07", ["a.gov/0"]);
      expect(h.get("a.gov/0")?.overflow).toEqual({ since: "2026-11-06", cursor, way: URL_ });
    } finally {
      await s.close();
    }
    const db = rawStore(loc);
    try {
      const schema =
        loc.kind === "postgres"
          ? (await sql<{ s: string }>`select current_schema() as s`.execute(db)).rows[0]?.s
          : undefined;
      const migrator = new Migrator({
        db,
        provider: migrationProvider,
        ...(schema ? { migrationTableSchema: schema } : {}),
      });
      expect((await migrator.migrateTo("033-record-changed-index")).error).toBeUndefined();
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
    } finally {
      await db.destroy();
    }
    const again = await openStore(loc);
    try {
      const h = await new SqlNightStore(again.db).histories("2026-11-08", ["a.gov/0"]);
      expect(h.get("a.gov/0")?.backfill).toEqual({ done: true, pagesRead: 7 });
      expect(h.get("a.gov/0")?.overflow).toBeUndefined();
    } finally {
      await again.close();
    }
  });
});
