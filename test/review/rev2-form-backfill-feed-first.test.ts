import { describe, expect, it } from "vitest";
import { testerWorld } from "../night/tester-nights.js";
import { expectAllStoredAndDone, formBehindFeed } from "./form-behind-feed-world.js";

/**
 * Review of b0a1177: a search form's backfill (P5, P7: its place a postback, carrying the state of
 * the result page it was turned from) waited "for a night its own way answers first". A feed put
 * before the form (P4) answers first every night: the backfill then waited for ever, never going
 * on nor ending, and `nor status` said it was going on. Now the form's search is asked tonight and
 * the place turned from it, with tonight's state.
 */
const world = testerWorld("nor-rev2-form-feed-");

describe("P5, P7, P4: a search form's backfill when a feed is put before the form", () => {
  it("P5, P7, P4: a form's backfill goes on to its last page with tonight's state when a feed put before the form answers first every night, no earlier night's state posted", async () => {
    const { refused, data } = await formBehindFeed(world, [
      "2026-11-22",
      "2026-11-23",
      "2026-11-24",
      "2026-11-25",
      "2026-11-26",
    ]);
    expect(refused()).toBe(0);
    expectAllStoredAndDone(data);
  }, 120_000);
});
