import { describe, expect, it } from "vitest";
import { flagsFor } from "../../src/night/flags.js";
import type { NightOutcome, SourceHistory, SourceResult } from "../../src/night/types.js";
import { outcomeLabel } from "../../src/web/public/format.js";

/**
 * An owner's request is the operator's own decision, carried out: a site not read shows its
 * reason on the source, but is not "a no on three nights", and a path left alone is not
 * "robots.txt now disallows" (P24: flags are for what a person has not decided yet).
 */
const history = (recent: SourceHistory["recentOutcomes"]): SourceHistory => ({
  reading: true,
  unreachedLast: false,
  recentOutcomes: recent,
  recordsKnown: 4,
});
const result = (outcome: NightOutcome): SourceResult => ({
  sourceId: "a.gov/0",
  outcome,
  records: [],
  validators: [],
  flags: [],
  startedAt: 0,
  endedAt: 0,
});

describe("flags after an owner's request", () => {
  it("P24: the whole site not read, three nights running, raises no no-three-nights flag", () => {
    const reason = "the site's owner asked not to be read (2026-11-01: by e-mail)";
    expect(flagsFor(result({ kind: "refused", reason }), history(["refused", "refused"]))).toEqual(
      [],
    );
    // The site's own no still does.
    const no = flagsFor(
      result({ kind: "refused", reason: "http block: status 403" }),
      history(["refused", "refused"]),
    );
    expect(no.map((f) => f.kind)).toEqual(["no-three-nights"]);
  });

  it("P24: a path left alone by request is not 'robots.txt now disallows'", () => {
    const reason = "the site's owner asked for /permits/ to be left alone (2026-11-01: by e-mail)";
    expect(flagsFor(result({ kind: "disallowed", reason }), history(["ok"]))).toEqual([]);
    const robots = flagsFor(
      result({ kind: "disallowed", reason: "robots.txt disallows it" }),
      history(["ok"]),
    );
    expect(robots.map((f) => f.kind)).toEqual(["robots-disallows"]);
  });
});

describe("an owner's request in the directory's words", () => {
  it("P26: a site its owner asked not to be read is shown as left alone at the owner's request, never as the site's no (a store's earlier nights kept it as refused)", () => {
    const reason = "the site's owner asked not to be read (2026-11-01: by e-mail)";
    for (const kind of ["disallowed", "refused"]) {
      expect(outcomeLabel(kind, reason)).toEqual({
        text: "left alone at the site owner's request",
        tone: "skip",
      });
    }
    expect(outcomeLabel("refused", "http block: status 403").tone).toBe("no");
  });
});
