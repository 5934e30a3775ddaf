import { describe, expect, it } from "vitest";
import { type PlannedSource, planLanes } from "../../src/night/lanes.js";
import type { SourceHistory } from "../../src/night/types.js";

/**
 * Reviewer (revclosed), P13, P23: in a night too short, a source the deadline kept from being
 * reached last night goes first (P13). A lane whose pages last night were not asked because its
 * site said no (P21) stays in the check "the same way and at the same pace" (P23): its pages go
 * first in their lane, but the lane does not take the night's first place from a page not
 * reached for time, which would then wait a second night running though last night's pages not
 * reached for time alone fit tonight.
 */
function src(id: string, site: string, h: Partial<SourceHistory>): PlannedSource {
  return {
    source: { id, government: site, url: `https://www.${site}/${id}` },
    history: { reading: true, unreachedLast: false, lastDurationMs: 7_000, ...h } as SourceHistory,
  };
}

describe("P13: last night's not reached for time before a site's no's unasked pages", () => {
  it("P13, P23: a page the deadline cut last night goes before a lane its site's no closed last night, in a night too short", () => {
    const closedNight = { unreachedLast: true, closedLast: true, lastCheckedAt: 1_000 };
    const items = [
      // no.org: its first page said no last night; the other five were not asked.
      src("no.org/0", "no.org", { lastCheckedAt: 5_000 }),
      ...[1, 2, 3, 4, 5].map((i) => src(`no.org/${i}`, "no.org", closedNight)),
      // far.org: its one page was not reached last night, the deadline came first.
      src("far.org/0", "far.org", { unreachedLast: true, unreachedRun: 1, lastDurationMs: 20_000 }),
      src("ok.org/0", "ok.org", { lastCheckedAt: 2_000 }),
    ];
    const lanes = planLanes(items, (s) => s.government, { concurrency: 1, availableMs: 30_000 });
    const order = lanes.map((l) => l.site);
    expect(order.indexOf("far.org"), order.join(" ")).toBeLessThan(order.indexOf("no.org"));
    // The pages its no kept from being asked still go first in their lane.
    const no = lanes.find((l) => l.site === "no.org");
    expect(no?.sources.at(-1)?.source.id).toBe("no.org/0");
  });
});
