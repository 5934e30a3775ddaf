import { describe, expect, it } from "vitest";
import { runMain } from "../cli/cli-capture.js";
import { testerWorld } from "../night/tester-nights.js";
import { expectAllStoredAndDone, formBehindFeed } from "./form-behind-feed-world.js";

/**
 * Review of b0a1177: a search form's backfill (P5, P7: its place a postback, carrying the state of
 * the result page it was turned from) waited "for a night its own way answers first". A feed put
 * before the form (P4) answers first every night: the backfill then waited for ever, never going
 * on nor ending, and `nor status` said it was going on. Now the form's search is asked tonight and
 * the place turned from it, with tonight's state.
 */
const world = testerWorld("nor-rev4-form-feed-reparse-");

describe("P8, P5: nor reparse of a source whose form's backfill went on behind a feed", () => {
  it("P8, P5: nor reparse of a source whose form's backfill went on behind a feed leaves the form's blank page out (no note that it is not a feed's list), as it does when the form answers first", async () => {
    const { refused, data, feedFirst } = await formBehindFeed(world, [
      "2026-11-22",
      "2026-11-23",
      "2026-11-24",
      "2026-11-25",
      "2026-11-26",
      "2026-11-27",
      "2026-11-28",
    ]);
    const re = await runMain(["reparse", "--data", data, "--catalog", feedFirst]);
    expect(re.stdout).not.toContain("not a feed");
    expect(re.stdout).not.toMatch(/would remove [1-9]/);
    expect(refused()).toBe(0);
    expectAllStoredAndDone(data);
  }, 120_000);
});
