import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { type Clock, systemClock } from "../../src/clock.js";
import { addDays, nightOf } from "../../src/policy/night-date.js";
import { DAY, feedNights } from "./feed-nights.js";

/**
 * fixahead: a copy (a stored answer, P8) archived by a night run while the host's clock ran two
 * days fast carries that clock's time. A later night whose window (its start to now) takes in
 * that time must not take the copy for its own answer: it was saved by another night.
 */
const f = feedNights("nor-fixahead-copy-", "Copy", "copy-feed");
const { dir, night, feedAsks } = f;

/** When the feed's latest copy was stored, as its stamp says. */
function feedCopyAt(data: string): number {
  const db = new Database(join(data, "nor.db"), { readonly: true });
  try {
    const row = db
      .prepare("select fetched_at from captures where url = ? order by fetched_at desc limit 1")
      .get(f.site.feed) as { fetched_at: string } | undefined;
    if (row === undefined) throw new Error("no copy of the feed");
    return Date.parse(row.fetched_at);
  } finally {
    db.close();
  }
}

describe("fixahead: a copy stamped by a clock two days fast", () => {
  it("P8, P27, P13: a copy another night stored, stamped inside a later night's window (its start to now), is not that night's answer: the later night asks its feed", async () => {
    const data = join(dir, "window");
    const tonight = nightOf(Date.now());
    // Yesterday's night caught up while the clock ran two days fast: its copy of the feed is
    // stamped two days ahead.
    const fast: Clock = { now: () => Date.now() + 2 * DAY, sleep: systemClock.sleep };
    const first = await night(data, fast, "--night", addDays(tonight, -1));
    expect(first.code, first.stderr).toBe(0);
    const stamp = feedCopyAt(data);
    // The night of that stamp's date begins at the very time the copy carries (a clock that
    // moves only by what the night sleeps): the copy is in its window (its start to now), but
    // no request of this night brought it.
    let t = stamp;
    const standing: Clock = {
      now: () => t,
      sleep: async (ms, signal) => {
        t += Math.max(0, ms);
        await systemClock.sleep(Math.min(ms, 5), signal);
      },
    };
    const before = feedAsks();
    const second = await night(data, standing);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain(`"night":"${nightOf(stamp)}"`);
    expect(feedAsks(), second.stderr).toBe(before + 1);
  });
});
