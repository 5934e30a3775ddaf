import { describe, expect, it } from "vitest";
import { OWNER_PACE, SITE_WAIT } from "../../src/policy/admission.js";
import { nightTotals, recentNights } from "../../src/store/admin.js";
import { openStore } from "../../src/store/db.js";
import { storeFactories } from "./stores.js";

/**
 * P13 (6b3a03b): the sources their site's own wait or its owner's pace held past the night are
 * counted apart from those the night's time left, by one SQL expression over their outcomes'
 * reasons (LIKE with the reasons' openings, one of them holding an apostrophe), on SQLite and
 * PostgreSQL alike: `nor status`'s night line and the night's end summary read it.
 */
const NIGHT = "2026-12-05";
const at = "2026-12-06T01:00:00.000Z";

describe.each(storeFactories().map((f) => [f.name, f] as const))("%s store", (_name, factory) => {
  it("P13: the night's held sources (the site's wait, the owner's pace) are counted apart from the deadline's, in nor status and the night's summary", async () => {
    const store = await openStore(await factory.migrated());
    try {
      await store.db
        .insertInto("nights")
        .values({
          night: NIGHT,
          started_at: at,
          deadline_at: "2026-12-06T06:00:00.000Z",
          finished_at: "2026-12-06T01:05:00.000Z",
          runs: 1,
          user_agent: null,
          catalog_note: null,
        })
        .execute();
      const rows: [string, string, string | null][] = [
        [
          "s1",
          "unreached",
          `${SITE_WAIT} 2026-12-06 09:00 New York time (a Retry-After), after the night`,
        ],
        [
          "s2",
          "unreached",
          `${OWNER_PACE} 24 h between requests (2026-12-01: asked by mail): its next request may start at …`,
        ],
        ["s3", "unreached", "the night's time limit passed before it was reached"],
        ["s4", "ok", null],
        // Not unreached: a reason that happens to open alike is not counted.
        ["s5", "error", `${SITE_WAIT} 2026-12-06 09:00 New York time`],
        // Case matters: PostgreSQL's LIKE is case-sensitive, SQLite's not for ASCII.
        ["s6", "unreached", SITE_WAIT.toUpperCase()],
      ];
      await store.db
        .insertInto("night_sources")
        .values(
          rows.map(([id, outcome, reason]) => ({
            night: NIGHT,
            source_id: id,
            outcome,
            reason,
            evidence: null,
            status: null,
            url: null,
            way: null,
            records_found: 0,
            new_records: 0,
            started_at: at,
            ended_at: at,
            duration_ms: 0,
          })),
        )
        .execute();
      const totals = await nightTotals(store.db, NIGHT);
      expect(totals.outcomes).toEqual({ unreached: 4, ok: 1, error: 1 });
      expect(totals.held).toBe(2);
      const [row] = await recentNights(store.db, 1);
      expect(row).toMatchObject({ night: NIGHT, unreached: 4, held: 2 });
    } finally {
      await store.close();
    }
  });
});
