import { describe, expect, it } from "vitest";
import { MemoryNightStore } from "../../src/night/memory-store.js";
import type { NightStore } from "../../src/night/ports.js";
import type { SourceResult } from "../../src/night/types.js";
import { openStore } from "../../src/store/db.js";
import { SqlNightStore } from "../../src/store/night-store.js";
import { storeFactories } from "./stores.js";

/**
 * P7, P4: a backfill's place is kept with the way whose list it is (BackfillState.way), beside an
 * overflow carried over with a way of its own (the same row): each read back as written, the same
 * over memory, SQLite and PostgreSQL; a place kept without its way reads back without one.
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
const PAGE = "https://a.gov/list";
const FEED = "https://a.gov/feed";

function result(sourceId: string, endedAt: number, more: Partial<SourceResult> = {}): SourceResult {
  return {
    sourceId,
    outcome: { kind: "ok", url: FEED },
    records: [],
    validators: [],
    flags: [],
    startedAt: endedAt - 500,
    endedAt,
    ...more,
  };
}

describe.each(makers)("a backfill's place and its way ($name)", (maker) => {
  it("P7, P4: a backfill's place is read back with its way and counts, an overflow's way beside it apart; a place kept without a way reads back without one", async () => {
    const { store, close } = await maker.make();
    try {
      const nights = ["2026-11-05", "2026-11-06", "2026-11-07"];
      for (const [i, n] of nights.entries())
        await store.openNight(n, T0 + i * DAY, T0 + i * DAY + 3_600_000);
      const going = {
        done: false,
        pagesRead: 2,
        cursor: { url: `${PAGE}?page=4` },
        way: PAGE,
        failedNights: 1,
        lastMiss: "error, HTTP 403",
      };
      await store.commit(nights[0] as string, result("a.gov/0", T0, { backfill: going }));
      let h = await store.histories(nights[1] as string, ["a.gov/0"]);
      expect(h.get("a.gov/0")?.backfill).toEqual(going);

      // Given up: its place kept with its way (for `nor backfill restart`).
      const gaveUp = {
        done: true,
        pagesRead: 2,
        cursor: { url: `${PAGE}?page=4` },
        way: PAGE,
        ended: { why: "gave-up" as const, url: `${PAGE}?page=4`, reason: "not the page" },
      };
      await store.commit(
        nights[1] as string,
        result("a.gov/0", T0 + DAY, {
          backfill: gaveUp,
          overflow: {
            pending: { since: nights[1] as string, cursor: { url: `${FEED}?p=2` }, way: FEED },
          },
        }),
      );
      h = await store.histories(nights[2] as string, ["a.gov/0"]);
      expect(h.get("a.gov/0")?.backfill).toMatchObject({
        done: true,
        cursor: { url: `${PAGE}?page=4` },
        way: PAGE,
      });
      expect(h.get("a.gov/0")?.overflow).toEqual({
        since: nights[1],
        cursor: { url: `${FEED}?p=2` },
        way: FEED,
      });

      // A place as an earlier version kept it: no way.
      await store.commit(
        nights[2] as string,
        result("a.gov/1", T0 + 2 * DAY, {
          backfill: { done: false, pagesRead: 1, cursor: { url: `${PAGE}?page=3` } },
        }),
      );
      h = await store.histories("2026-11-08", ["a.gov/1"]);
      expect(h.get("a.gov/1")?.backfill).toEqual({
        done: false,
        pagesRead: 1,
        cursor: { url: `${PAGE}?page=3` },
      });
    } finally {
      await close();
    }
  });
});
