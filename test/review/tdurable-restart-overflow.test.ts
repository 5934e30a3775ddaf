import { describe, expect, it } from "vitest";
import type { SourceResult } from "../../src/night/types.js";
import { restartBackfill } from "../../src/store/backfill.js";
import { openStore } from "../../src/store/db.js";
import { SqlNightStore } from "../../src/store/night-store.js";
import { storeFactories } from "../store/stores.js";

/**
 * tdurable (outside tester): `nor backfill restart` of a backfill that ended at its last page
 * reads the list from page 1 again and clears an overflow left unfinished ("not read on again
 * after it", store/backfill.ts restartBackfill). A night under way that read the backfill before
 * the restart must not write its own state over the person's decision: the backfill's columns
 * are saved by compare-and-set on the restarts it read (KEEP_BACKFILL), but the overflow's
 * columns are written by a plain UPDATE (store/night-store.ts, `if (r.overflow)`), so the
 * overflow the restart cleared comes back, and the next nights read the list from page 1 AND
 * read on from the overflow's page: pages asked twice, against the person's decision.
 */
const factories = storeFactories();
const N1 = "2026-11-05";
const N2 = "2026-11-06";
const T0 = Date.parse("2026-11-05T06:00:00Z");
const T1 = T0 + 86_400_000;
const WHO = { by: "dana", at: Date.parse("2026-11-06T07:00:00Z") };
const LAST = { why: "last-page" as const, url: "https://a.gov/list?page=9" };

function result(r: Partial<SourceResult>, at: number): SourceResult {
  return {
    sourceId: "a.gov/0",
    outcome: { kind: "ok", url: "https://a.gov/list" },
    records: [],
    validators: [],
    flags: [],
    startedAt: at,
    endedAt: at + 500,
    ...r,
  };
}

describe.each(factories)("tdurable: a restart beside a night's overflow ($name)", (f) => {
  it("P7, P24: a backfill restart made while a night is under way clears the source's pending overflow for good: the night's save of the overflow it read before the restart does not bring it back", async () => {
    const loc = await f.fresh();
    const night = await openStore(loc);
    const person = await openStore(loc);
    try {
      const store = new SqlNightStore(night.db);
      await store.syncSources(
        [{ id: "a.gov/0", government: "g", url: "https://a.gov/list", site: "a.gov" }],
        T0,
      );
      // Night 1: the backfill ended at its last page; the first page overflowed and the night
      // left an overflow pending at page 3.
      await store.openNight(N1, T0, T0 + 6 * 3600_000);
      await store.commit(
        N1,
        result(
          {
            backfill: { done: true, pagesRead: 9, ended: LAST },
            overflow: {
              pending: { since: N1, cursor: { url: "https://a.gov/list?page=3" } },
            },
          },
          T0,
        ),
      );
      // Night 2 opens and reads the source's state (overflow pending, restarts 0).
      await store.openNight(N2, T1, T1 + 6 * 3600_000);
      const read = (await store.histories(N2, ["a.gov/0"])).get("a.gov/0");
      expect(read?.overflow?.cursor.url).toBe("https://a.gov/list?page=3");
      expect(read?.backfill?.done).toBe(true);
      // The person restarts the backfill (another process): from page 1, overflow cleared.
      expect(await restartBackfill(person.db, "a.gov/0", WHO)).toMatchObject({
        kind: "restarted",
      });
      const afterRestart = (await new SqlNightStore(person.db).histories(N2, ["a.gov/0"])).get(
        "a.gov/0",
      );
      expect(afterRestart?.overflow).toBeUndefined();
      // The night, working from what it read, read on from page 3 and saves its overflow.
      await store.commit(
        N2,
        result(
          {
            backfill: { done: true, pagesRead: 9, ended: { ...LAST, night: N1 } },
            overflow: {
              pending: { since: N1, cursor: { url: "https://a.gov/list?page=5" } },
            },
          },
          T1,
        ),
      );
      const now = (await new SqlNightStore(person.db).histories("2026-11-07", ["a.gov/0"])).get(
        "a.gov/0",
      );
      // The restart holds for the backfill (compare-and-set) ...
      expect(now?.backfill).toMatchObject({ done: false, restarted: { count: 1, by: "dana" } });
      // ... and for the overflow it cleared.
      expect(now?.overflow).toBeUndefined();
    } finally {
      await person.close();
      await night.close();
    }
  });
});
