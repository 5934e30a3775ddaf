import { describe, expect, it } from "vitest";
import { robotsCopyServes } from "../../src/policy/robots/copy-age.js";
import { setAsideNightsAhead } from "../../src/store/admin.js";
import { SqlRobotsCache } from "../../src/store/robots-cache.js";
import { storeFactories } from "../store/stores.js";
import { AHEAD, AT, TONIGHT, withNightAhead } from "./night-aside.js";

/**
 * P20, P16 under a night set aside (recorded while the clock ran ahead, then set right): the
 * robots.txt answers it read carry its date. An unreachable one is held tonight, as a site it
 * closed is (when in doubt, not sent); a copy of rules it read, of an age no clock can tell, is
 * never that date's own read when the date comes (it may be days old by then: P16, P18).
 */

describe.each(storeFactories())("robots.txt answers of a night set aside ($name)", (f) => {
  it("P20, P16: an unreachable robots.txt the night set aside found holds tonight; its rules copy does not serve its date's night when it comes", async () => {
    await withNightAhead(f, async (db) => {
      const cache = new SqlRobotsCache(db);
      const fetchedAt = Date.parse(AT);
      await cache.put({
        origin: "https://down.gov",
        fetchedAt,
        state: "unreachable",
        status: 503,
        reason: "HTTP 503",
        night: AHEAD,
      });
      await cache.put({
        origin: "https://rules.gov",
        fetchedAt,
        state: "rules",
        status: 200,
        body: "User-agent: *\nDisallow: /private\n",
        night: AHEAD,
      });
      await setAsideNightsAhead(db, TONIGHT, [], Date.parse(`${TONIGHT}T22:00:00.000Z`));
      const tonightNow = Date.parse("2026-11-05T23:30:00.000Z");
      const down = await cache.get("https://down.gov");
      expect(down).toBeDefined();
      // Tonight (the real date of that answer, for all any clock can tell): held, not asked.
      expect(down && robotsCopyServes(down, tonightNow, TONIGHT)).toBe(true);
      // Its date's night, when it comes, reads robots.txt afresh (a copy read days before).
      const rules = await cache.get("https://rules.gov");
      expect(rules !== undefined && robotsCopyServes(rules, fetchedAt + 10 * 60_000, AHEAD)).toBe(
        false,
      );
      // Nor does the unreachable keep that night off the origin (it was not that night's).
      expect(down && robotsCopyServes(down, fetchedAt + 10 * 60_000, AHEAD)).toBe(false);
    });
  });
});
