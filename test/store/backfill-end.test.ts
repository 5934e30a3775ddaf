import { Migrator, sql } from "kysely";
import { describe, expect, it } from "vitest";
import type { SourceResult } from "../../src/night/types.js";
import { listFlags } from "../../src/store/admin.js";
import { backfillStates, restartBackfill } from "../../src/store/backfill.js";
import { openStore } from "../../src/store/db.js";
import { migrationProvider } from "../../src/store/migrations/index.js";
import { SqlNightStore } from "../../src/store/night-store.js";
import { leftAt, rawStore, storeFactories } from "./stores.js";

/**
 * P7 over SQLite and PostgreSQL: why a backfill ended is kept with the night that committed it
 * (migration 029), read back by the night, and `nor backfill restart` (restartBackfill) makes
 * one that gave up go on from its page, the nights counted against it forgotten.
 */
const factories = storeFactories();
const NIGHT = "2026-11-05";
const T0 = Date.parse("2026-11-05T06:00:00Z");
const OLDER = "https://a.gov/list?page=5";
const WHO = { by: "dana", at: Date.parse("2026-11-05T15:00:00Z") };
const GAVE_UP = { why: "gave-up" as const, url: OLDER, reason: "no answer 10 nights running" };

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

describe.each(factories)("a backfill's end, kept and restarted ($name)", (f) => {
  it("P7: a backfill given up is kept with its night, page and why; restarted, it goes on from that page; a second restart changes nothing; an unknown source is said so", async () => {
    const s = await openStore(await f.migrated());
    try {
      const store = new SqlNightStore(s.db);
      await store.syncSources(
        [{ id: "a.gov/0", government: "g", url: "https://a.gov/list", site: "a.gov" }],
        T0,
      );
      await store.openNight(NIGHT, T0, T0 + 6 * 3600_000);
      const ended = {
        why: "gave-up" as const,
        url: OLDER,
        reason: "not the page 3 nights running",
      };
      await store.commit(
        NIGHT,
        result({ done: true, pagesRead: 4, cursor: { url: OLDER }, ended }),
      );
      const h = (await store.histories("2026-11-06", ["a.gov/0"])).get("a.gov/0");
      expect(h?.backfill).toEqual({
        done: true,
        pagesRead: 4,
        cursor: { url: OLDER },
        ended: { ...ended, night: NIGHT },
      });

      expect(await restartBackfill(s.db, "a.gov/0", WHO)).toEqual({
        kind: "restarted",
        source: "a.gov/0",
        pagesRead: 4,
        was: { ...ended, night: NIGHT },
        from: OLDER,
        clearedFlags: 0,
      });
      const after = (await store.histories("2026-11-06", ["a.gov/0"])).get("a.gov/0");
      expect(after?.backfill).toEqual({
        done: false,
        pagesRead: 4,
        cursor: { url: OLDER },
        restarted: { count: 1, at: "2026-11-05T15:00:00.000Z", by: "dana" },
      });
      expect(await restartBackfill(s.db, "a.gov/0", WHO)).toEqual({
        kind: "going-on",
        source: "a.gov/0",
        pagesRead: 4,
        next: OLDER,
      });
      expect(await restartBackfill(s.db, "b.gov/0", WHO)).toEqual({
        kind: "unknown-source",
        source: "b.gov/0",
      });
    } finally {
      await s.close();
    }
  });

  it("P7: counts kept with the cursor (misses, failed nights, nights without an answer) are read back as written", async () => {
    const s = await openStore(await f.migrated());
    try {
      const store = new SqlNightStore(s.db);
      await store.syncSources(
        [{ id: "a.gov/0", government: "g", url: "https://a.gov/list", site: "a.gov" }],
        T0,
      );
      await store.openNight(NIGHT, T0, T0 + 6 * 3600_000);
      const going = {
        done: false,
        pagesRead: 2,
        cursor: { url: OLDER },
        misses: 1,
        failedNights: 2,
        unansweredNights: 7,
      };
      await store.commit(NIGHT, result(going));
      const h = (await store.histories("2026-11-06", ["a.gov/0"])).get("a.gov/0");
      expect(h?.backfill).toEqual(going);
      expect(await restartBackfill(s.db, "a.gov/0", WHO)).toMatchObject({ kind: "going-on" });
    } finally {
      await s.close();
    }
  });
  it("P7, P24: a restart made while a night is under way (two store handles: the night read the backfill given up, a person restarts it, the night saves a state of its own) is kept: the night's save holds only while no restart came since it read", async () => {
    const loc = await f.fresh();
    const night = await openStore(loc);
    const person = await openStore(loc);
    try {
      const store = new SqlNightStore(night.db);
      await store.syncSources(
        [{ id: "a.gov/0", government: "g", url: "https://a.gov/list", site: "a.gov" }],
        T0,
      );
      await store.openNight(NIGHT, T0, T0 + 6 * 3600_000);
      await store.commit(
        NIGHT,
        result({ done: true, pagesRead: 4, cursor: { url: OLDER }, ended: GAVE_UP }),
      );
      const NEXT = "2026-11-06";
      const T1 = T0 + 86_400_000;
      await store.openNight(NEXT, T1, T1 + 6 * 3600_000);
      const read = (await store.histories(NEXT, ["a.gov/0"])).get("a.gov/0")?.backfill;
      expect(read?.done).toBe(true);
      // The person's decision, through another handle, while the night is under way.
      expect(await restartBackfill(person.db, "a.gov/0", WHO)).toMatchObject({
        kind: "restarted",
      });
      // The night saves a state worked out from what it read (here: given up again).
      await store.commit(NEXT, {
        ...result({ done: true, pagesRead: 4, cursor: { url: OLDER }, ended: GAVE_UP }),
        startedAt: T1,
        endedAt: T1 + 500,
      });
      const now = (await new SqlNightStore(person.db).histories("2026-11-07", ["a.gov/0"])).get(
        "a.gov/0",
      )?.backfill;
      expect(now).toMatchObject({
        done: false,
        pagesRead: 4,
        cursor: { url: OLDER },
        restarted: { count: 1, by: "dana" },
      });
      expect(now?.ended).toBeUndefined();
      // A night that read the restart saves as ever.
      const N3 = "2026-11-07";
      const T2 = T1 + 86_400_000;
      await store.openNight(N3, T2, T2 + 6 * 3600_000);
      const fresh = (await store.histories(N3, ["a.gov/0"])).get("a.gov/0")?.backfill;
      await store.commit(N3, {
        ...result({
          done: false,
          pagesRead: 5,
          cursor: { url: `${OLDER}6` },
          restarted: { count: fresh?.restarted?.count ?? 0 },
        }),
        startedAt: T2,
        endedAt: T2 + 500,
      });
      expect(
        (await store.histories("2026-11-08", ["a.gov/0"])).get("a.gov/0")?.backfill,
      ).toMatchObject({ done: false, pagesRead: 5, cursor: { url: `${OLDER}6` } });
    } finally {
      await person.close();
      await night.close();
    }
  });

  it("P7, P24: a restart clears the source's open backfill-gave-up flag, by the person who restarted, when", async () => {
    const s = await openStore(await f.migrated());
    try {
      const store = new SqlNightStore(s.db);
      await store.syncSources(
        [{ id: "a.gov/0", government: "g", url: "https://a.gov/list", site: "a.gov" }],
        T0,
      );
      await store.openNight(NIGHT, T0, T0 + 6 * 3600_000);
      await store.commit(NIGHT, {
        ...result({ done: true, pagesRead: 4, cursor: { url: OLDER }, ended: GAVE_UP }),
        flags: [{ kind: "backfill-gave-up", detail: `its older pages gave up on ${OLDER}` }],
      });
      expect((await listFlags(s.db, false)).map((f) => f.kind)).toContain("backfill-gave-up");
      expect(await restartBackfill(s.db, "a.gov/0", WHO)).toMatchObject({
        kind: "restarted",
        clearedFlags: 1,
      });
      expect((await listFlags(s.db, false)).map((f) => f.kind)).not.toContain("backfill-gave-up");
    } finally {
      await s.close();
    }
  });
  it("P7: migrations 029 and 030 on a store an older version left with backfill rows (one done, one going on with its counts): read back as they were, never restarted; down to 028 and up again", async () => {
    const loc = await f.fresh();
    await leftAt(loc, "028-record-changed-at", async (db) => {
      await sql`insert into backfill (source_id, done, cursor, pages_read) values ('a.gov/0', 1, null, 7), ('b.gov/0', 0, ${JSON.stringify({ url: OLDER, misses: 1, failedNights: 2 })}, 3)`.execute(
        db,
      );
    });
    const s = await openStore(loc);
    try {
      const states = await backfillStates(s.db);
      expect(states.get("a.gov/0")).toEqual({ done: true, pagesRead: 7 });
      expect(states.get("b.gov/0")).toEqual({
        done: false,
        pagesRead: 3,
        cursor: { url: OLDER },
        misses: 1,
        failedNights: 2,
      });
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
      expect((await migrator.migrateTo("028-record-changed-at")).error).toBeUndefined();
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
      const rows = await sql<{
        source_id: string;
        restarts: number | string;
      }>`select source_id, restarts from backfill order by source_id`.execute(db);
      expect(rows.rows.map((r) => [r.source_id, Number(r.restarts)])).toEqual([
        ["a.gov/0", 0],
        ["b.gov/0", 0],
      ]);
    } finally {
      await db.destroy();
    }
  });
});
