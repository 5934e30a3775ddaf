import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nightOf } from "../../src/policy/night-date.js";
import { markSource } from "../../src/store/admin.js";
import { openStore } from "../../src/store/db.js";
import { latestMarks } from "../../src/store/marks.js";
import { clockAt, DAY, feedNights } from "./feed-nights.js";

/**
 * fixahead: on SQLite one host's clock is the nights' and the marks' (P24). A page marked not
 * read while that clock ran two days fast carries a night two days ahead; once the clock is set
 * right, its rechecks (P25: up to three nights soon after, then weekly) must count from a night
 * that has come, not wait for the far one.
 */
const f = feedNights("nor-fixahead-mark-", "Marked", "marked-feed");
const { dir, night, feedAsks } = f;

describe("fixahead: a mark made while the one host's clock ran ahead (SQLite)", () => {
  it("P25, P24 (SQLite): a page marked not read by a host two days fast is rechecked the night after tonight once the clock is set right, not two days later", async () => {
    const data = join(dir, "mark");
    // Yesterday's night reads the feed: the source is known to the store.
    const first = await night(data, clockAt(-DAY));
    expect(first.code, first.stderr).toBe(0);
    // Marked not read while the host's clock ran two days fast (`nor mark`, the console).
    const store = await openStore({ kind: "sqlite", dir: data });
    const source = "marked-feed";
    try {
      const ahead = Date.now() + 2 * DAY;
      await markSource(store.db, {
        source,
        reading: false,
        reason: "the clerk asked us to stop",
        by: "dana",
        at: ahead,
        night: nightOf(ahead),
      });
    } finally {
      await store.close();
    }
    // The clock set right: tonight's night asks nothing of a page marked tonight (P25).
    const tonight = await night(data, clockAt(0));
    expect(tonight.code, tonight.stderr).toBe(0);
    // Its mark's night is tonight's, no longer two days away.
    const again = await openStore({ kind: "sqlite", dir: data });
    try {
      const mark = (await latestMarks(again.db, [source])).get(source);
      expect(mark?.night).toBe(nightOf(Date.now()));
    } finally {
      await again.close();
    }
    // The next night rechecks it (the first of the nights soon after).
    const before = feedAsks();
    const next = await night(data, clockAt(DAY));
    expect(next.code, next.stderr).toBe(0);
    expect(feedAsks(), next.stderr).toBe(before + 1);
  });
});
