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
const world = testerWorld("nor-rev4-form-feed-count-");

describe("P11, P5, P7: what a form's backfill behind a feed costs a night", () => {
  it("P11, P5, P7: a form's backfill behind a feed that answers first costs a night the form page, its search and one older page (pagesPerNight: 1), each once; once done, no request to the form", async () => {
    const { asked, refused, data } = await formBehindFeed(world, [
      "2026-11-22",
      "2026-11-23",
      "2026-11-24",
      "2026-11-25",
      "2026-11-26",
      "2026-11-27",
      "2026-11-28",
    ]);
    expect(refused()).toBe(0);
    // Nights 1-2 the form alone (pages 2, 3 read); nights 3-5 behind the feed: pages 4, 5, 6.
    expect(asked.get(3)).toEqual(["GET", "POST search", "POST Page$4"]);
    expect(asked.get(4)).toEqual(["GET", "POST search", "POST Page$5"]);
    expect(asked.get(5)).toEqual(["GET", "POST search", "POST Page$6"]);
    for (const n of [6, 7, 8, 9]) expect(asked.get(n), `night ${n}`).toBeUndefined();
    expectAllStoredAndDone(data);
  }, 120_000);
});
