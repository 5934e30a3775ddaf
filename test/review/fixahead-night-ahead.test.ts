import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { addDays, nightOf } from "../../src/policy/night-date.js";
import { clockAt, DAY, feedNights } from "./feed-nights.js";

/**
 * fixahead: the host's clock runs two days fast for one night, then NTP sets it right. The
 * night it recorded is dated two days ahead; when that date really comes, its sources are owed
 * that night's check (P13: each source once a night) like any other night's.
 */
const f = feedNights("nor-fixahead-", "Ahead", "ahead-feed");
const { dir, night, feedAsks } = f;

/** The night's row as a process killed while running it leaves it: not finished. */
function unfinish(data: string, night: string): void {
  const db = new Database(join(data, "nor.db"));
  try {
    db.prepare("update nights set finished_at = null where night = ?").run(night);
  } finally {
    db.close();
  }
}

describe("fixahead: a night recorded two days ahead, then the clock set right", () => {
  it("P13, P11: when the date of a night recorded ahead really comes, its sources are checked that night (the row recorded ahead does not stand for it)", async () => {
    const data = join(dir, "date-comes");
    const ahead = nightOf(clockAt(2 * DAY).now());
    const first = await night(data, clockAt(2 * DAY));
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain(`"night":"${ahead}"`);
    // The clock set right: tonight's night runs and asks the feed.
    const second = await night(data, clockAt(0));
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain(`night ${ahead} was recorded by a clock running ahead`);
    expect(second.stderr).toContain(`so that night ${ahead} is run when its date comes`);
    const before = feedAsks();
    // Two days later by the real calendar, the night of that date asks its feed.
    const third = await night(data, clockAt(2 * DAY));
    expect(third.code, third.stderr).toBe(0);
    expect(third.stderr).toContain(`"night":"${ahead}"`);
    expect(feedAsks()).toBe(before + 1);
  });

  it("P13, P11: a night begun two days ahead and interrupted is not resumed under its date once the clock is set right: tonight's night runs and asks its sources", async () => {
    const data = join(dir, "resumed");
    const tonight = nightOf(Date.now());
    const ahead = addDays(tonight, 2);
    const first = await night(data, clockAt(2 * DAY));
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain(`"night":"${ahead}"`);
    // Killed before its end: its row begun and not finished, as a killed process leaves it.
    unfinish(data, ahead);
    const before = feedAsks();
    const second = await night(data, clockAt(0));
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).not.toContain(`"night":"${ahead}","resumed":true`);
    expect(second.stderr).toContain(`night ${ahead} was recorded by a clock running ahead`);
    expect(second.stderr).toContain(`"night":"${tonight}"`);
    expect(feedAsks()).toBe(before + 1);
  });
});
