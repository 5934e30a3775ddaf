import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { addDays, nightOf } from "../../src/policy/night-date.js";
import { clockAt, DAY, feedNights } from "./feed-nights.js";

/**
 * Outside tester (tclock): the host's clock runs two days fast for one night (a VM restored
 * with a wrong clock, an RTC set wrong), then NTP sets it right. The nights after that, by the
 * real calendar, are owed their check (SPEC: each listed source once a night; P13: what was not
 * reached goes first the next night). The store's night dated two days ahead, and the site's
 * last request stamped two days ahead, must not keep the checker away from every source until
 * the wrong date comes round.
 */
const f = feedNights("nor-tclock-setback-", "Setback", "setback-feed");
const { dir, night, feedAsks } = f;

describe("tclock: a host clock set back after a night it ran two days fast", () => {
  it("P13, P11: the next night by the real calendar still runs and checks its source (not refused as a past night begun after a later one)", async () => {
    const data = join(dir, "fast-then-right");
    // Night 1: the clock two days fast. It is named two days ahead and asks the feed.
    const fast = clockAt(2 * DAY);
    const first = await night(data, fast);
    expect(first.code, first.stderr).toBe(0);
    const afterFirst = f.site.asked.filter((p) => p === "/feed.rss").length;
    expect(afterFirst).toBe(1);
    // The clock set right; a day later by the real calendar, tonight's night is run as ever.
    const tomorrow = clockAt(DAY);
    const second = await night(data, tomorrow);
    // What the operator sees: the night of nightOf(tomorrow) runs, and the feed is asked.
    expect(second.stderr).not.toContain("a past night is not started after a later one");
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain(`"night":"${nightOf(tomorrow.now())}"`);
    expect(f.site.asked.filter((p) => p === "/feed.rss").length).toBe(afterFirst + 1);
  });

  it("P8, P27, P13: a copy archived by a clock two days fast is not taken for tonight's answer: tonight's night asks the feed (a request on the log), never says it read it with no request sent", async () => {
    const data = join(dir, "gap-stamped-ahead");
    const real = clockAt(0);
    const tonight = nightOf(real.now());
    // Yesterday's night caught up while the clock ran two days fast: named yesterday, as the
    // operator asked, its request's end stamped two days ahead.
    const first = await night(data, clockAt(2 * DAY), "--night", addDays(tonight, -1));
    expect(first.code, first.stderr).toBe(0);
    const before = feedAsks();
    expect(before).toBeGreaterThan(0);
    // The clock set right: tonight's night runs (loopback: back to back) and asks the feed.
    // (On main it says the source was read, "ok", with 0 requests and no row on the request
    // log: the copy stamped two days ahead is "archived since tonight began".)
    const second = await night(data, real);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain(`"night":"${tonight}"`);
    expect(feedAsks()).toBe(before + 1);
  });
});
