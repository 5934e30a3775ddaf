import { describe, expect, it } from "vitest";
import type { SourceResult } from "../../src/night/types.js";
import { restartBackfill } from "../../src/store/backfill.js";
import { openStore } from "../../src/store/db.js";
import { SqlNightStore } from "../../src/store/night-store.js";
import { storeFactories } from "./stores.js";

/**
 * P7 over SQLite and PostgreSQL: why a backfill ended is kept with the night that committed it
 * (migration 029), read back by the night, and `nor backfill restart` (restartBackfill) makes
 * one that gave up go on from its page, the nights counted against it forgotten.
 */
const factories = storeFactories();
const NIGHT = "2026-11-05";
const T0 = Date.parse("2026-11-05T06:00:00Z");
const OLDER = "https://a.gov/list?page=5";

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
    const s = await openStore(await f.fresh());
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

      expect(await restartBackfill(s.db, "a.gov/0")).toEqual({
        kind: "restarted",
        source: "a.gov/0",
        pagesRead: 4,
        was: { ...ended, night: NIGHT },
        from: OLDER,
      });
      const after = (await store.histories("2026-11-06", ["a.gov/0"])).get("a.gov/0");
      expect(after?.backfill).toEqual({ done: false, pagesRead: 4, cursor: { url: OLDER } });
      expect(await restartBackfill(s.db, "a.gov/0")).toEqual({
        kind: "going-on",
        source: "a.gov/0",
        pagesRead: 4,
        next: OLDER,
      });
      expect(await restartBackfill(s.db, "b.gov/0")).toEqual({
        kind: "unknown-source",
        source: "b.gov/0",
      });
    } finally {
      await s.close();
    }
  });

  it("P7: counts kept with the cursor (misses, failed nights, nights without an answer) are read back as written", async () => {
    const s = await openStore(await f.fresh());
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
      expect(await restartBackfill(s.db, "a.gov/0")).toMatchObject({ kind: "going-on" });
    } finally {
      await s.close();
    }
  });
});
