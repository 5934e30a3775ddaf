import { describe, expect, it } from "vitest";
import { flagsFor } from "../../src/night/flags.js";
import type { NightOutcomeKind, SourceHistory, SourceResult } from "../../src/night/types.js";

/**
 * P24: "a no on three nights in a row" counts the nights the source was judged. A night it was
 * not asked (unreached), or cut short by the deadline before its check ended (cut-short, P13),
 * like a night the checker itself was offline, neither counts toward a run nor breaks one.
 */
const history = (recent: NightOutcomeKind[]): SourceHistory => ({
  reading: true,
  unreachedLast: false,
  recentOutcomes: recent,
  recordsKnown: 4,
});
const result = (kind: NightOutcomeKind): SourceResult => ({
  sourceId: "a.gov/0",
  outcome: { kind, reason: "http block: status 403", url: "https://a.gov/agendas" },
  records: [],
  validators: [],
  flags: [],
  startedAt: 0,
  endedAt: 0,
});
const kinds = (tonight: NightOutcomeKind, recent: NightOutcomeKind[]) =>
  flagsFor(result(tonight), history(recent)).map((f) => f.kind);

describe("a run of nos across nights not judged", () => {
  it("P24: a no, a night cut short, a night unreached, two nos: flagged on the third no", () => {
    expect(kinds("refused", ["cut-short", "refused", "refused"])).toEqual(["no-three-nights"]);
    expect(kinds("refused", ["unreached", "refused", "cut-short", "refused"])).toEqual([
      "no-three-nights",
    ]);
  });

  it("P24: nights not judged never make a run of their own, nor raise one tonight", () => {
    expect(kinds("refused", ["cut-short", "unreached", "refused"])).toEqual([]);
    expect(kinds("cut-short", ["refused", "refused", "refused"])).toEqual([]);
    expect(kinds("unreached", ["refused", "refused"])).toEqual([]);
    // A night read in full still breaks a run.
    expect(kinds("refused", ["refused", "ok", "refused"])).toEqual([]);
  });

  it("P24: robots.txt 'now disallows' looks past nights not judged to the last one judged", () => {
    const disallowed = (recent: NightOutcomeKind[]) =>
      flagsFor(
        {
          ...result("disallowed"),
          outcome: { kind: "disallowed", reason: "robots.txt disallows it" },
        },
        history(recent),
      ).map((f) => f.kind);
    // Disallowed before the cut-short night: not news.
    expect(disallowed(["cut-short", "disallowed", "ok"])).toEqual([]);
    // Read before the unreached night: news.
    expect(disallowed(["unreached", "ok"])).toEqual(["robots-disallows"]);
  });
});

describe("a source that has never shown a record", () => {
  const empty = (recent: NightOutcomeKind[], known = 0) =>
    flagsFor(
      { ...result("no-records"), outcome: { kind: "no-records", reason: "not a feed" } },
      { ...history(recent), recordsKnown: known },
    ).map((f) => `${f.kind}: ${f.detail}`);

  it("P24: opened empty on three nights in a row with no record ever: flagged for a person, once the run is three", () => {
    expect(empty([])).toEqual([]);
    expect(empty(["no-records"])).toEqual([]);
    expect(empty(["no-records", "no-records"])).toEqual([
      "no-records: opens but has shown no records on 3 nights in a row, and none ever",
    ]);
    // Nights not judged neither count nor break the run; a night with another outcome breaks it.
    expect(empty(["cut-short", "no-records", "unreached", "no-records"])).toHaveLength(1);
    expect(empty(["no-records", "error", "no-records"])).toEqual([]);
    // With records known from earlier nights, the flag says so from the first empty night.
    expect(empty([], 4)).toEqual([
      "no-records: opens but shows no records (4 known from earlier nights)",
    ]);
  });
});
