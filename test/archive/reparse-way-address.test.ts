/**
 * `nor reparse` (P8, P12): a copy is read by the way in whose address it was asked at. A catalog
 * address written otherwise than it is sent (its host in capitals, `%7E` for `~`, a default port,
 * a #fragment) is the same address: its copies, kept as sent, are that way's, not the first way's
 * on its origin.
 */
import { describe, expect, it } from "vitest";
import type { Source } from "../../src/sources/catalog/types.js";
import { wayFor } from "../../src/store/archive/reparse.js";

const FEED = "https://City.gov:443/%7Eclerk/feed";
const PAGE = "https://City.gov:443/%7Eclerk/list#notices";
const source: Source = {
  id: "s",
  government: "g",
  records: "notices",
  url: FEED,
  access: "feed",
  alternates: [{ url: PAGE, access: "page", extract: { items: "li", title: "a" } } as never],
  backfill: { pagesPerNight: 0 },
  confirmed: false,
} as never;

describe("P8, P12: reparse finds a copy's way by the address as sent", () => {
  it("P8, P12: reparse reads a copy kept under the address as sent with the way whose catalog address is written otherwise (host case, %7E, :443, #fragment), not the origin's first way", () => {
    expect(wayFor(source, "https://city.gov/~clerk/list").url).toBe(PAGE);
    expect(wayFor(source, "https://city.gov/~clerk/feed").url).toBe(FEED);
  });
});
