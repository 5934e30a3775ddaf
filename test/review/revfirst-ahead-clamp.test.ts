import { describe, expect, it } from "vitest";
import { setAsideNightsAhead } from "../../src/store/admin.js";
import { openStore } from "../../src/store/db.js";
import { storeFactories } from "../store/stores.js";
import { AT, NOW, oneSource, TONIGHT } from "./night-aside.js";

/**
 * Review of 6788b9c5 (P26: a record's first-seen or changed time stamped after now reads now).
 * The clamp runs inside setAsideNightsAhead's loop, only once a night dated after tonight has
 * been set aside by this very call. Records stamped ahead with no such row left are never
 * clamped:
 *  - a store whose night ahead was set aside by a version before 6788b9c5 (the bug report this
 *    commit answers: its records stay first seen days ahead after the upgrade, feeds dated ahead
 *    and first in the newest lists until then: the upgrade mends nothing);
 *  - a clock that ran ahead by hours within the same New York date (nightOf), or that jumped
 *    ahead while a night of the right date ran (its commits stamped by the clock ahead, its
 *    night row dated right): no night is dated after tonight, so nothing is set aside.
 * Mended: the clamp runs at every night's opening, whatever it sets aside.
 */

describe.each(storeFactories())("records stamped ahead with no night ahead left ($name)", (f) => {
  // Was a DEFECT (6788b9c5, src/store/admin.ts setAsideNightsAhead, the `if (out.length === 0)` clamp
  // inside the loop): the clamp of first_seen_at/changed_at after now depends on a night row
  // dated after tonight being set aside by this call. A store whose night ahead was set aside
  // before the fix (or whose records were stamped ahead by a clock that never named a later
  // date) keeps records first seen, and changed, at a time still to come: the very symptom the
  // commit fixes (feeds dated ahead, first in every newest list until then) is left as it is.
  it("P26: a record first seen (or changed) at a time still to come reads now at the latest though no night ahead is left to set aside (set aside before the fix, or a clock ahead within tonight's date)", async () => {
    const s = await openStore(await f.migrated());
    try {
      const db = s.db;
      await oneSource(db, "2026-10-01T00:00:00.000Z");
      // Found by the night ahead set aside by the version before the fix: its first_seen_night
      // moved to that night's tonight ("2026-11-04"), its time left as that clock stamped it.
      await db
        .insertInto("records")
        .values([
          {
            source_id: "g1/agendas",
            record_id: "ahead",
            title: "Found by a night set aside before the fix",
            date: null,
            url: "https://a.gov/agendas/1",
            kind: null,
            first_seen_night: "2026-11-04",
            first_seen_at: AT,
          },
          {
            source_id: "g1/agendas",
            record_id: "retitled",
            title: "Retitled by it",
            date: null,
            url: "https://a.gov/agendas/3",
            kind: null,
            first_seen_night: "2026-10-29",
            first_seen_at: "2026-10-29T23:00:00.000Z",
            changed_at: AT,
          },
        ])
        .execute();
      // Tonight's `nor night` opening: nothing dated after tonight remains.
      const aside = await setAsideNightsAhead(db, TONIGHT, [], NOW);
      expect(aside).toEqual([]);
      const rows = await db
        .selectFrom("records")
        .select(["record_id", "first_seen_at", "changed_at"])
        .orderBy("record_id")
        .execute();
      const now = new Date(NOW).toISOString();
      // Still 2026-11-07T23:00:00.000Z, two days ahead of now: first in the newest lists and
      // dated ahead in every feed until then.
      expect(rows).toEqual([
        { record_id: "ahead", first_seen_at: now, changed_at: null },
        {
          record_id: "retitled",
          first_seen_at: "2026-10-29T23:00:00.000Z",
          changed_at: now,
        },
      ]);
    } finally {
      await s.close();
    }
  });
});
