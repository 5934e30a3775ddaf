import { describe, expect, it } from "vitest";
import { compareSources, type PlannedSource, planLanes } from "../../src/night/lanes.js";

/** The order of a site's sources in its lane (P13, P25). */
const planned = (
  id: string,
  h: { reading?: boolean; unreachedLast?: boolean; lastCheckedAt?: number; unreachedRun?: number },
): PlannedSource => ({
  source: { id, government: "g", url: `https://x.gov/${id}` },
  history: {
    reading: h.reading ?? true,
    unreachedLast: h.unreachedLast ?? false,
    recentOutcomes: [],
    recordsKnown: 0,
    ...(h.lastCheckedAt !== undefined ? { lastCheckedAt: h.lastCheckedAt } : {}),
    ...(h.unreachedRun !== undefined ? { unreachedRun: h.unreachedRun } : {}),
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

  it("P25, P13, P21: a recheck not reached two nights running goes among the pages read, after last night's unreached ones, before them once it has waited more nights than they would then have", () => {
    const order = (run: number, pageRun: number) =>
      planLanes(
        [
          planned("a-recheck", { reading: false, unreachedLast: true, unreachedRun: run }),
          planned("b-read", { lastCheckedAt: 1 }),
          planned("c-read-unreached", {
            unreachedLast: true,
            lastCheckedAt: 5,
            ...(pageRun > 0 ? { unreachedRun: pageRun } : {}),
          }),
        ],
        () => "x.gov",
      )[0]?.sources.map((p) => p.source.id);
    // Not reached two nights: after the page read not reached last night, before the rest.
    expect(order(2, 1)).toEqual(["c-read-unreached", "a-recheck", "b-read"]);
    // Last night's unreached page not asked as its site's no closed it (no unreachedRun): alike.
    expect(order(2, 0)).toEqual(["c-read-unreached", "a-recheck", "b-read"]);
    // Three nights against the page's one (two with the night it would cost): first.
    expect(order(3, 1)).toEqual(["a-recheck", "c-read-unreached", "b-read"]);
    // The page not reached two nights itself: the recheck waits for a fourth.
    expect(order(3, 2)).toEqual(["c-read-unreached", "a-recheck", "b-read"]);
    // Once only: behind the pages read, as ever.
    expect(order(1, 1)).toEqual(["c-read-unreached", "b-read", "a-recheck"]);
  });
});
