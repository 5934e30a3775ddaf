import { describe, expect, it } from "vitest";
import { nightLine } from "../../src/cli/commands/status.js";
import { type NightEnd, summaryRecord } from "../../src/cli/night-report.js";
import { recheckHopReason, recheckRetryReason } from "../../src/night/outcome.js";
import { siteDownReason } from "../../src/policy/admission.js";
import type { NightReport } from "../../src/store/read/night-report.js";
import { ReportView } from "../../src/web/console/nights.js";

/**
 * Review of the words the branch left: a recheck cut short as its site was down (its redirect's
 * next request, or its own retry, not sent) owes nothing and is not asked the next night (P25),
 * and is not the deadline's (P13).
 */
const DOWN = siteDownReason(503, "retries", "https://www.a.org/list/1");

describe("a recheck cut short by its site down, in the night's words", () => {
  it("P25, P13: `nor status` does not say a night whose only cut short is a recheck its site's being down stopped goes first next night", () => {
    const base = {
      night: "2026-11-05",
      startedAt: "2026-11-05T06:00:00.000Z",
      deadlineAt: "2026-11-05T10:00:00.000Z",
      finishedAt: "2026-11-05T06:02:00.000Z",
      runs: 1,
      checked: 3,
      closedIncomplete: false,
      unreached: 0,
      held: 0,
      cutShort: 1,
      cutNotByDeadline: 1,
    };
    const line = nightLine(base);
    expect(line).toContain("1 of them cut short");
    // Reached, owing nothing: not asked the next night at all, let alone first.
    expect(line).not.toContain("they go first next night");
    // One the deadline cut does go first.
    expect(nightLine({ ...base, cutNotByDeadline: 0 })).toContain("(they go first next night)");
  });

  it("P25, P15: the console's night report heads its cut short so as to name a recheck whose own retry was not sent (its site down), not only the deadline and a redirect", async () => {
    const retry = recheckRetryReason("https://www.a.org/list/0", 503, DOWN);
    const hop = recheckHopReason("https://www.a.org/list/0", "https://www.b.org/x", DOWN);
    const r: NightReport = {
      night: "2026-11-05",
      startedAt: "2026-11-05T06:00:00.000Z",
      deadlineAt: "2026-11-05T10:00:00.000Z",
      finishedAt: "2026-11-05T06:02:00.000Z",
      closedIncomplete: false,
      runs: 1,
      sources: 2,
      catalogNote: null,
      byKind: [{ kind: "cut-short", count: 2 }],
      nos: [],
      nosBySite: [],
      unreached: [],
      cutShort: [retry, hop].map((reason, i) => ({
        source: `a.org/${i}`,
        government: "g",
        site: "a.org",
        outcome: "cut-short",
        reason,
        status: 503,
        url: "https://www.a.org/list/0",
        evidence: null,
      })),
      requests: [],
      totalRequests: 2,
      ended: [],
    };
    const html = String(await ReportView({ r, names: new Map() }));
    const head = /<h2>\s*(Cut short[^<]*)<\/h2>/.exec(html)?.[1] ?? "";
    expect(head).toMatch(/retry/);
  });
});

describe("the summary's deadlineReached, counted", () => {
  const start = Date.parse("2026-11-05T06:00:00Z");
  const end = (over: Partial<NightEnd>): NightEnd => ({
    night: "2026-11-05",
    resumed: false,
    planned: 6,
    alreadyDone: 0,
    skippedNotRead: 0,
    outcomes: {},
    newRecords: 0,
    requests: 6,
    flagsRaised: 0,
    startedAt: start,
    deadlineAt: start + 4 * 3600_000,
    endedAt: start + 600_000,
    ...over,
  });
  it("P13, P15, P25: a night the deadline cut that also had a site down, a site's wait or a recheck cut short by its site down says true; one with only those says false", () => {
    const reached = (e: NightEnd) => summaryRecord(e)["deadlineReached"];
    // Site down (2) and the deadline (1) in one night: the deadline's.
    expect(reached(end({ outcomes: { ok: 3, unreached: 3 }, down: 2 }))).toBe(true);
    expect(reached(end({ outcomes: { ok: 3, unreached: 3 }, down: 2, held: 1 }))).toBe(false);
    // A read cut short by the deadline beside a recheck cut short by its site down.
    expect(reached(end({ outcomes: { ok: 4, "cut-short": 2 }, cutNotByDeadline: 1 }))).toBe(true);
    expect(
      reached(
        end({ outcomes: { ok: 4, "cut-short": 1, unreached: 1 }, cutNotByDeadline: 1, down: 1 }),
      ),
    ).toBe(false);
    // Ended past the deadline: true whatever was kept.
    expect(reached(end({ outcomes: { ok: 6 }, endedAt: start + 4 * 3600_000 }))).toBe(true);
  });
});
