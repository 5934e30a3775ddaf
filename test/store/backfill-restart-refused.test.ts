import { describe, expect, it } from "vitest";
import type { SourceResult } from "../../src/night/types.js";
import { restartBackfill } from "../../src/store/backfill.js";
import { type Db, openStore } from "../../src/store/db.js";
import { SqlNightStore } from "../../src/store/night-store.js";
import { runMain } from "../cli/cli-capture.js";
import { sqliteFactory, storeFactories } from "./stores.js";

/**
 * P7, P26: `nor backfill restart` on a source retired by a catalog import is refused (no night
 * reads it), and on a backfill paused "off" (the catalog asked for no older pages) it changes
 * nothing and says so: it goes on by itself the first night the catalog asks for some.
 */
const NIGHT = "2026-11-05";
const T0 = Date.parse("2026-11-05T06:00:00Z");
const AT = "2026-11-05T05:00:00.000Z";
const WHO = { by: "dana", at: Date.parse("2026-11-05T15:00:00Z") };

function result(backfill: SourceResult["backfill"]): SourceResult {
  return {
    sourceId: "a.gov/0",
    outcome: { kind: "ok", url: "https://a.gov/list" },
    records: [],
    validators: [],
    flags: [],
    startedAt: T0,
    endedAt: T0 + 500,
    ...(backfill ? { backfill } : {}),
  };
}

/** The source as a catalog import keeps it, with its backfill.pagesPerNight. */
async function imported(db: Db, pagesPerNight: number, retiredAt: string | null): Promise<void> {
  await db
    .insertInto("governments")
    .values({
      id: "g",
      name: "Test",
      kind: "city",
      county: null,
      website: null,
      entry: "{}",
      catalog_file: "t.yaml",
      first_seen_at: AT,
      updated_at: AT,
      retired_at: retiredAt,
    })
    .execute();
  await db
    .insertInto("sources")
    .values({
      id: "a.gov/0",
      government_id: "g",
      records: "agendas",
      url: "https://a.gov/list",
      access: "html",
      platform: null,
      name: null,
      confirmed: 0,
      entry: JSON.stringify({ id: "a.gov/0", backfill: { pagesPerNight } }),
      catalog_file: "t.yaml",
      first_seen_at: AT,
      updated_at: AT,
      retired_at: retiredAt,
      renamed_to: null,
    })
    .execute();
}

async function ended(db: Db, why: "off" | "last-page"): Promise<void> {
  const store = new SqlNightStore(db);
  await store.syncSources(
    [{ id: "a.gov/0", government: "g", url: "https://a.gov/list", site: "a.gov" }],
    T0,
  );
  await store.openNight(NIGHT, T0, T0 + 6 * 3600_000);
  await store.commit(NIGHT, result({ done: true, pagesRead: 0, ended: { why } }));
}

async function restarts(db: Db): Promise<number> {
  const r = await db
    .selectFrom("backfill")
    .select(["done", "restarts"])
    .where("source_id", "=", "a.gov/0")
    .executeTakeFirstOrThrow();
  return Number(r.restarts ?? 0);
}

describe.each(storeFactories())("a restart that would change nothing ($name)", (f) => {
  it("P7, P26: a retired source's backfill is not restarted: said retired, nothing changed", async () => {
    const s = await openStore(await f.migrated());
    try {
      await imported(s.db, 2, null);
      await ended(s.db, "last-page");
      await s.db.updateTable("sources").set({ retired_at: AT }).execute();
      expect(await restartBackfill(s.db, "a.gov/0", WHO)).toEqual({
        kind: "retired",
        source: "a.gov/0",
        at: AT,
      });
      expect(await restarts(s.db)).toBe(0);
    } finally {
      await s.close();
    }
  });

  it("P7: a backfill paused off is not restarted (it goes on by itself once the catalog asks for older pages): said with what the imported catalog asks, nothing changed", async () => {
    const s = await openStore(await f.migrated());
    try {
      await imported(s.db, 0, null);
      await ended(s.db, "off");
      expect(await restartBackfill(s.db, "a.gov/0", WHO)).toEqual({
        kind: "off",
        source: "a.gov/0",
        asked: 0,
      });
      expect(await restarts(s.db)).toBe(0);
      await s.db
        .updateTable("sources")
        .set({ entry: JSON.stringify({ id: "a.gov/0", backfill: { pagesPerNight: 2 } }) })
        .execute();
      expect(await restartBackfill(s.db, "a.gov/0", WHO)).toEqual({
        kind: "off",
        source: "a.gov/0",
        asked: 2,
      });
      expect(await restarts(s.db)).toBe(0);
    } finally {
      await s.close();
    }
  });
});

describe("`nor backfill restart` says it (sqlite)", () => {
  const factory = sqliteFactory();
  it("P7, P26: exit 2 naming the retired source; exit 2 saying an off backfill is paused and goes on by itself; never 'starts again from the list's first page' for an off backfill", async () => {
    const retired = await factory.fresh();
    const off = await factory.fresh();
    const unknown = await factory.fresh();
    if (retired.kind !== "sqlite" || off.kind !== "sqlite" || unknown.kind !== "sqlite")
      throw new Error("sqlite");
    for (const [loc, run] of [
      [
        retired,
        async (db: Db) => {
          await imported(db, 2, null);
          await ended(db, "last-page");
          await db.updateTable("sources").set({ retired_at: AT }).execute();
        },
      ],
      [
        off,
        async (db: Db) => {
          await imported(db, 0, null);
          await ended(db, "off");
        },
      ],
      // Ended off, no imported entry to say what the catalog asks now (nights run from files).
      [unknown, async (db: Db) => ended(db, "off")],
    ] as const) {
      const s = await openStore(loc);
      try {
        await run(s.db);
      } finally {
        await s.close();
      }
    }
    const a = await runMain(["backfill", "restart", "a.gov/0", "--data", retired.dir]);
    expect(a.code).toBe(2);
    expect(a.stderr).toContain(`nor: a.gov/0: retired ${AT}`);
    expect(a.stderr).toContain("nothing changed");
    const b = await runMain(["backfill", "restart", "a.gov/0", "--data", off.dir]);
    expect(b.code).toBe(2);
    expect(b.stderr).toContain(
      "nor: a.gov/0: its older pages are paused because the catalog asked for none (backfill.pagesPerNight 0), and still does; they go on by themselves, from where they were, the first night it asks for some; nothing changed",
    );
    // No imported entry to say what the catalog asks now: paused all the same, nothing changed.
    const c = await runMain(["backfill", "restart", "a.gov/0", "--data", unknown.dir]);
    expect(c.code).toBe(2);
    expect(c.stdout).toBe("");
    expect(c.stderr).toContain(
      "nor: a.gov/0: its older pages are paused because the catalog asked for none (backfill.pagesPerNight 0); they go on by themselves, from where they were, the first night it asks for some; nothing changed",
    );
    await factory.cleanup();
  });
});
