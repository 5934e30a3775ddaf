import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { clearFlag, markSource } from "../../src/store/admin.js";
import { type Db, openStore } from "../../src/store/db.js";
import { postgresFactory, postgresUrl, type StoreFactory, sqliteFactory } from "./stores.js";

/**
 * P24: what a person does (a mark, a cleared flag) and every way their input can be wrong
 * (an unknown source or flag, a missing reason, a change already made) are values, the same
 * on SQLite and PostgreSQL; a store that fails throws, and is never read as one of them.
 */
const factories: StoreFactory[] = [sqliteFactory()];
if (postgresUrl) factories.push(postgresFactory(postgresUrl));

const AT = Date.UTC(2026, 10, 5, 15, 0, 0);
const FLAG = "2026-11-05:no-3-nights:oh-b-bids";

async function seed(db: Db): Promise<void> {
  const at = "2026-11-05T08:00:00.000Z";
  await db
    .insertInto("night_catalog")
    .values({
      source_id: "oh-b-bids",
      government: "City of B",
      url: "https://b.gov/bids",
      site: "b.gov",
      updated_at: at,
    })
    .execute();
  await db
    .insertInto("flags")
    .values({
      id: FLAG,
      source_id: "oh-b-bids",
      kind: "no-3-nights",
      night: "2026-11-05",
      detail: "refused on 3 nights running",
      raised_at: "2026-11-05T09:00:00.000Z",
      cleared_at: null,
      cleared_by: null,
    })
    .execute();
}

describe.each(factories)("a person's marks and flags on $name", (factory) => {
  afterAll(() => factory.cleanup());

  const withStore = async (fn: (db: Db) => Promise<void>) => {
    const store = await openStore(await factory.migrated());
    try {
      await seed(store.db);
      await fn(store.db);
    } finally {
      await store.close();
    }
  };
  // A minute apart: a source's marks are keyed by their time.
  let minute = 0;
  const mark = (db: Db, reading: boolean, reason?: string, source = "oh-b-bids") =>
    markSource(db, {
      source,
      reading,
      ...(reason !== undefined ? { reason } : {}),
      by: "tester",
      at: AT + 60_000 * minute++,
      night: "2026-11-05",
    });
  const marks = async (db: Db) =>
    (await db.selectFrom("marks").select(["reading", "reason"]).orderBy("at").execute()).map(
      (m) => [Number(m.reading), m.reason],
    );

  it("P24: each outcome of a mark, and only a real change is recorded", async () => {
    await withStore(async (db) => {
      minute = 0;
      expect(await mark(db, false, "  ")).toEqual({ kind: "reason-missing", source: "oh-b-bids" });
      expect(await mark(db, false, "x", "no-such")).toEqual({
        kind: "unknown-source",
        source: "no-such",
      });
      // Never marked: it is read, so "read" changes nothing.
      expect(await mark(db, true)).toEqual({ kind: "already", source: "oh-b-bids", reading: true });
      expect(await marks(db)).toEqual([]);

      expect(await mark(db, false, "  The clerk asked  ")).toEqual({
        kind: "marked",
        source: "oh-b-bids",
        reading: false,
        reason: "The clerk asked",
      });
      // The same again does not restart the recheck calendar (P25): nothing recorded.
      expect(await mark(db, false, "The clerk asked")).toEqual({
        kind: "already",
        source: "oh-b-bids",
        reading: false,
        since: new Date(AT + 3 * 60_000).toISOString(),
        reason: "The clerk asked",
      });
      // Another reason is a change, kept beside the first (never overwritten).
      expect((await mark(db, false, "The clerk asked again")).kind).toBe("marked");
      expect((await mark(db, true)).kind).toBe("marked");
      expect(await marks(db)).toEqual([
        [0, "The clerk asked"],
        [0, "The clerk asked again"],
        [1, null],
      ]);
    });
  });

  it("P24, P25: each outcome of clearing a flag; the first clearing stands", async () => {
    await withStore(async (db) => {
      expect(await clearFlag(db, "no-such-flag", "tester", AT)).toEqual({
        kind: "unknown-flag",
        id: "no-such-flag",
      });
      expect(await clearFlag(db, FLAG, "tester", AT)).toEqual({
        kind: "cleared",
        id: FLAG,
        source: "oh-b-bids",
        flag: "no-3-nights",
      });
      expect(await clearFlag(db, FLAG, "someone else", AT + 60_000)).toEqual({
        kind: "already-cleared",
        id: FLAG,
        at: new Date(AT).toISOString(),
        by: "tester",
      });
      // Two people at once: exactly one clears it.
      await db.updateTable("flags").set({ cleared_at: null, cleared_by: null }).execute();
      const both = await Promise.all([clearFlag(db, FLAG, "a", AT), clearFlag(db, FLAG, "b", AT)]);
      expect(both.map((o) => o.kind).sort()).toEqual(["already-cleared", "cleared"]);
    });
  });

  it("a store that fails throws: never an outcome such as an unknown source or flag", async () => {
    await withStore(async (db) => {
      await sql`drop table marks`.execute(db);
      await expect(mark(db, false, "why")).rejects.toThrow(/marks/);
      await sql`drop table flags`.execute(db);
      await expect(clearFlag(db, FLAG, "tester", AT)).rejects.toThrow(/flags/);
    });
  });
});
