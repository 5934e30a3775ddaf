import { describe, expect, it } from "vitest";
import { addDays } from "../../src/policy/night-date.js";
import { setAsideNightsAhead } from "../../src/store/admin.js";
import { newRecords } from "../../src/store/read/new-records.js";
import { storeFactories } from "../store/stores.js";
import { AHEAD, AT, TONIGHT, withNightAhead } from "./night-aside.js";

/**
 * The directory's "new on record" (what appeared since yesterday) under a night set aside
 * (recorded while the clock ran ahead, then set right): a record that night found appeared by
 * now, so it is new tonight at the latest; never hidden until a date still to come, then shown
 * new on a day no night found it.
 */

describe.each(storeFactories())("records of a night set aside ($name)", (f) => {
  it("P13, P26: a record first seen by a night set aside is new on record since yesterday tonight, not first on a date still to come", async () => {
    await withNightAhead(f, async (db) => {
      await db
        .insertInto("governments")
        .values({
          id: "g1",
          name: "Village of Ahead",
          kind: "village",
          county: "Franklin",
          website: null,
          entry: "{}",
          catalog_file: "c.yaml",
          first_seen_at: AT,
          updated_at: AT,
          retired_at: null,
        })
        .execute();
      await db
        .insertInto("sources")
        .values({
          id: "g1/agendas",
          government_id: "g1",
          records: "agendas",
          url: "https://a.gov/agendas",
          access: "page",
          platform: null,
          name: null,
          confirmed: 0,
          entry: "{}",
          catalog_file: "c.yaml",
          first_seen_at: AT,
          updated_at: AT,
          retired_at: null,
          renamed_to: null,
        })
        .execute();
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
      await setAsideNightsAhead(db, TONIGHT, []);
      const since = { from: addDays(TONIGHT, -1), to: TONIGHT };
      const got = await newRecords(db, since, {});
      expect(got.items.map((r) => r.title)).toEqual(["Council agenda"]);
    });
  });
});
