import { describe, expect, it } from "vitest";
import type { BackfillState, SourceResult } from "../../src/night/types.js";
import { backfillStates } from "../../src/store/backfill.js";
import { openStore } from "../../src/store/db.js";
import { SqlNightStore } from "../../src/store/night-store.js";
import { storeFactories } from "./stores.js";

/**
 * P7: a backfill paused "off" that a night ends for a reason of its own once the catalog asks
 * for older pages again (the list's first page shows no older page: its last page; or its
 * cut-off date) is kept ended as that night said, even where its pages read and cursor are the
 * same as the pause's (0 read, no cursor): the store's save compares why it ended too.
 */
const T0 = Date.parse("2026-11-05T06:00:00Z");
const DAY = 24 * 3600_000;

function result(backfill: BackfillState, at: number): SourceResult {
  return {
    sourceId: "a.gov/0",
    outcome: { kind: "ok", url: "https://a.gov/list" },
    records: [],
    validators: [],
    flags: [],
    startedAt: at,
    endedAt: at + 500,
    backfill,
  };
}

describe.each(storeFactories())("a pause ended by a night ($name)", (f) => {
  it("P7: a backfill paused off (0 read, no cursor) that the next night ends at its last page is kept ended 'last-page', not said 'off' for ever", async () => {
    const s = await openStore(await f.migrated());
    try {
      const store = new SqlNightStore(s.db);
      await store.syncSources(
        [{ id: "a.gov/0", government: "g", url: "https://a.gov/list", site: "a.gov" }],
        T0,
      );
      await store.openNight("2026-11-05", T0, T0 + 6 * 3600_000);
      await store.commit(
        "2026-11-05",
        result({ done: true, pagesRead: 0, ended: { why: "off" } }, T0),
      );
      await store.openNight("2026-11-06", T0 + DAY, T0 + DAY + 6 * 3600_000);
      await store.commit(
        "2026-11-06",
        result({ done: true, pagesRead: 0, ended: { why: "last-page" } }, T0 + DAY),
      );
      const b = (await backfillStates(s.db, ["a.gov/0"])).get("a.gov/0");
      expect(b?.ended).toEqual({ why: "last-page", night: "2026-11-06" });
    } finally {
      await s.close();
    }
  });
});
