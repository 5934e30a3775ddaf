import { describe, expect, it } from "vitest";
import { compareSources, type PlannedSource } from "../../src/night/lanes.js";

/** The order of a site's sources in its lane (P13, P25). */
const planned = (
  id: string,
  h: { reading?: boolean; unreachedLast?: boolean; lastCheckedAt?: number },
): PlannedSource => ({
  source: { id, government: "g", url: `https://x.gov/${id}` },
  history: {
    reading: h.reading ?? true,
    unreachedLast: h.unreachedLast ?? false,
    recentOutcomes: [],
    recordsKnown: 0,
    ...(h.lastCheckedAt !== undefined ? { lastCheckedAt: h.lastCheckedAt } : {}),
  },
});

describe("a lane's order", () => {
  it("P13, P25: the pages read before the rechecks (a recheck last night did not reach too), unreached first within each, then the longest since last checked", () => {
    const sources = [
      planned("a-recheck", { reading: false, lastCheckedAt: 1 }),
      planned("b-read-late", { lastCheckedAt: 5 }),
      planned("c-recheck-unreached", { reading: false, unreachedLast: true }),
      planned("d-read-early", { lastCheckedAt: 2 }),
      planned("e-read-unreached", { unreachedLast: true, lastCheckedAt: 9 }),
    ];
    expect(sources.sort(compareSources).map((p) => p.source.id)).toEqual([
      "e-read-unreached",
      "d-read-early",
      "b-read-late",
      "c-recheck-unreached",
      "a-recheck",
    ]);
  });
});
