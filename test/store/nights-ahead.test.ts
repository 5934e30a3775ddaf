import { describe, expect, it } from "vitest";
import { addDays, nightOf } from "../../src/policy/night-date.js";
import { resumableNight, setAsideNightsAhead } from "../../src/store/admin.js";
import { openStore } from "../../src/store/db.js";
import { storeFactories } from "./stores.js";

/**
 * P13, P11: a night dated after tonight was recorded while the clock ran ahead. Set aside, it
 * stands for no night of its date: its row, lanes and outcomes go; its requests stay on the log
 * (P27) with no night named, so none is replayed as that night's answer (P8); a site it found
 * closed or down is held so tonight (never sent to sooner than it could have been).
 */
const factories = storeFactories();
const TONIGHT = "2026-11-05";
const AHEAD = addDays(TONIGHT, 2);

describe.each(factories)("nights recorded ahead ($name)", (f) => {
  it("P13, P11, P21, P27: a night dated after tonight, finished or interrupted, is set aside (row, lanes, outcomes); its requests stay on the log with no night; a site it closed is closed tonight; its copies are no night's; a live one is left", async () => {
    const s = await openStore(await f.migrated());
    try {
      const db = s.db;
      const at = "2026-11-07T23:00:00.000Z";
      const killed = addDays(TONIGHT, 4);
      for (const night of [AHEAD, addDays(TONIGHT, 3), killed, addDays(TONIGHT, -1)])
        await db
          .insertInto("nights")
          .values({
            night,
            started_at: at,
            deadline_at: at,
            finished_at: night === AHEAD ? at : null,
            runs: 1,
            user_agent: null,
            catalog_note: null,
          })
          .execute();
      await db
        .insertInto("night_sources")
        .values({
          night: AHEAD,
          source_id: "a.gov/0",
          outcome: "no",
          reason: "403",
          evidence: null,
          status: 403,
          url: "https://a.gov/list",
          way: null,
          records_found: 0,
          new_records: 0,
          started_at: at,
          ended_at: at,
          duration_ms: 0,
        })
        .execute();
      await db
        .insertInto("night_lanes")
        .values({ night: AHEAD, site: "a.gov", holder: null, lease_until: null, done_at: at })
        .execute();
      await db
        .insertInto("request_log")
        .values({
          started_at: at,
          ended_at: at,
          method: "GET",
          url: "https://a.gov/list",
          status: 403,
          outcome: "no",
          failure: null,
          bytes: 10,
          site: "a.gov",
          origin: "https://a.gov",
          source: "a.gov/0",
          purpose: "page",
          attempt: 1,
          night: AHEAD,
          validators_sent: null,
          validators_received: null,
          evidence: null,
        })
        .execute();
      await db
        .insertInto("site_state")
        .values({
          site: "a.gov",
          last_end_at: at,
          updated_at: at,
          closed_night: AHEAD,
          closed_reason: "403 Forbidden",
        })
        .execute();
      await db
        .insertInto("captures")
        .values({
          record_id: "<urn:uuid:1>",
          url: "https://a.gov/list",
          fetched_at: at,
          file: "a.warc.gz",
          offset: 0,
          length: 1,
          request_offset: null,
          request_length: null,
          record_type: "response",
          method: "GET",
          status: 200,
          mime: null,
          payload_digest: "sha256:x",
          payload_length: 1,
          etag: null,
          last_modified: null,
          source: "a.gov/0",
          purpose: "page",
          refers_to: null,
          refers_file: null,
          refers_offset: null,
          refers_length: null,
          night: AHEAD,
        })
        .execute();
      const live = addDays(TONIGHT, 3);
      const aside = await setAsideNightsAhead(
        db,
        TONIGHT,
        [live],
        Date.parse(`${TONIGHT}T22:00:00.000Z`),
      );
      expect(aside).toEqual([
        { night: AHEAD, startedAt: at, finishedAt: at, outcomes: 1, requests: 1 },
        { night: killed, startedAt: at, finishedAt: null, outcomes: 0, requests: 0 },
      ]);
      const nights = await db.selectFrom("nights").select("night").orderBy("night").execute();
      expect(nights.map((n) => n.night)).toEqual([addDays(TONIGHT, -1), live]);
      expect(
        await db.selectFrom("night_sources").selectAll().where("night", "=", AHEAD).execute(),
      ).toEqual([]);
      expect(
        await db.selectFrom("night_lanes").selectAll().where("night", "=", AHEAD).execute(),
      ).toEqual([]);
      const log = await db.selectFrom("request_log").select(["night", "url", "status"]).execute();
      expect(log).toEqual([{ night: null, url: "https://a.gov/list", status: 403 }]);
      // Its stored copy stays (P8), saved by no night: no night's answer (migration 038).
      const copies = await db.selectFrom("captures").select(["url", "night"]).execute();
      expect(copies).toEqual([{ url: "https://a.gov/list", night: null }]);
      const state = await db
        .selectFrom("site_state")
        .select(["closed_night", "closed_reason", "last_end_at"])
        .executeTakeFirstOrThrow();
      expect(state).toEqual({
        closed_night: TONIGHT,
        closed_reason: "403 Forbidden",
        last_end_at: at,
      });
    } finally {
      await s.close();
    }
  });

  it("P13, P11: an interrupted night dated after tonight, its time by the clock ahead not over, is never the night to resume (nor start's resumableNight)", async () => {
    const s = await openStore(await f.migrated());
    try {
      const now = Date.parse("2026-11-05T23:00:00.000Z");
      await s.db
        .insertInto("nights")
        .values({
          night: addDays(nightOf(now), 2),
          started_at: new Date(now + 2 * 86_400_000).toISOString(),
          deadline_at: new Date(now + 2 * 86_400_000 + 3_600_000).toISOString(),
          finished_at: null,
          runs: 1,
          user_agent: null,
          catalog_note: null,
        })
        .execute();
      expect(await resumableNight(s.db, now)).toBeUndefined();
    } finally {
      await s.close();
    }
  });
});
