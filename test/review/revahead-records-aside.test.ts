import { describe, expect, it } from "vitest";
import { addDays } from "../../src/policy/night-date.js";
import { setAsideNightsAhead } from "../../src/store/admin.js";
import { newRecords } from "../../src/store/read/new-records.js";
import { storeFactories } from "../store/stores.js";
import { AHEAD, AT, NOW, oneSource, TONIGHT, withNightAhead } from "./night-aside.js";

/**
 * The directory's "new on record" (what appeared since yesterday) under a night set aside
 * (recorded while the clock ran ahead, then set right): a record that night found appeared by
 * now, so it is new tonight at the latest; never hidden until a date still to come, then shown
 * new on a day no night found it.
 */

describe.each(storeFactories())("records of a night set aside ($name)", (f) => {
  it("P13, P26: a record first seen by a night set aside is new on record since yesterday tonight, not first on a date still to come", async () => {
    await withNightAhead(f, async (db) => {
      await oneSource(db);
      await db
        .insertInto("records")
        .values({
          source_id: "g1/agendas",
          record_id: "r1",
          title: "Council agenda",
          date: null,
          url: "https://a.gov/agendas/1",
          kind: null,
          first_seen_night: AHEAD,
          first_seen_at: AT,
        })
        .execute();
      await setAsideNightsAhead(db, TONIGHT, [], NOW);
      const since = { from: addDays(TONIGHT, -1), to: TONIGHT };
      const got = await newRecords(db, since, {});
      expect(got.items.map((r) => r.title)).toEqual(["Council agenda"]);
    });
  });

  it("P26: a record first seen by a night set aside is first seen now at the latest, never at a time still to come (feeds dated ahead, first in the newest lists for days), nor changed then", async () => {
    await withNightAhead(f, async (db) => {
      await oneSource(db);
      // Found by the night ahead (its time as that clock stamped it), and one found by a
      // night of the real calendar (first seen an hour ago): the one stamped ahead must not
      // read as appearing after now, nor ahead of everything found since.
      await db
        .insertInto("records")
        .values([
          {
            source_id: "g1/agendas",
            record_id: "ahead",
            title: "Found by the night ahead",
            date: null,
            url: "https://a.gov/agendas/1",
            kind: null,
            first_seen_night: AHEAD,
            first_seen_at: AT,
          },
          {
            source_id: "g1/agendas",
            record_id: "tonight",
            title: "Found an hour ago",
            date: null,
            url: "https://a.gov/agendas/2",
            kind: null,
            first_seen_night: TONIGHT,
            first_seen_at: new Date(NOW - 3_600_000).toISOString(),
          },
          {
            source_id: "g1/agendas",
            record_id: "retitled",
            title: "Retitled by the night ahead",
            date: null,
            url: "https://a.gov/agendas/3",
            kind: null,
            first_seen_night: "2026-10-29",
            first_seen_at: "2026-10-29T23:00:00.000Z",
            changed_at: AT,
          },
        ])
        .execute();
      await setAsideNightsAhead(db, TONIGHT, [], NOW);
      const rows = await db
        .selectFrom("records")
        .select(["record_id", "first_seen_at", "first_seen_night", "changed_at"])
        .orderBy("record_id")
        .execute();
      expect(rows).toEqual([
        {
          record_id: "ahead",
          first_seen_at: new Date(NOW).toISOString(),
          first_seen_night: TONIGHT,
          changed_at: null,
        },
        {
          record_id: "retitled",
          first_seen_at: "2026-10-29T23:00:00.000Z",
          first_seen_night: "2026-10-29",
          changed_at: new Date(NOW).toISOString(),
        },
        {
          record_id: "tonight",
          first_seen_at: new Date(NOW - 3_600_000).toISOString(),
          first_seen_night: TONIGHT,
          changed_at: null,
        },
      ]);
    });
  });
});
