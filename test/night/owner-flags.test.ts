import { describe, expect, it } from "vitest";
import { flagsFor } from "../../src/night/flags.js";
import { failureOutcome } from "../../src/night/outcome.js";
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

describe("a night left alone at the owner's request, in a source's history (P24)", () => {
  const owner = failureOutcome({
    kind: "site-closed",
    reason: "the site's owner asked not to be read (2026-11-01: by e-mail)",
    url: "https://x.gov/a",
  });
  const ownerPath = failureOutcome({
    kind: "disallowed",
    reason: "the site's owner asked for /a to be left alone (2026-11-01: by e-mail)",
    url: "https://x.gov/a",
  });

  it("P26: an owner's request, for the whole site or a path, is its own outcome, left-alone, with the owner's words", () => {
    expect(owner).toMatchObject({
      kind: "left-alone",
      reason: expect.stringMatching(/^the site's owner asked not to be read/),
    });
    expect(ownerPath).toMatchObject({
      kind: "left-alone",
      reason: expect.stringMatching(/for \/a to be left alone/),
    });
    // robots.txt's own Disallow stays what it was.
    expect(failureOutcome({ kind: "disallowed", url: "https://x.gov/a" }).kind).toBe("disallowed");
  });

  it("P24: read, then nights left alone at the owner's request, then (the request lifted) robots.txt disallows: flagged 'robots.txt now disallows'", () => {
    const tonight = result({
      kind: "disallowed",
      reason: "robots.txt disallows it",
      url: "https://x.gov/a",
    });
    expect(
      flagsFor(tonight, history([owner.kind, ownerPath.kind, "ok"])).map((f) => f.kind),
    ).toEqual(["robots-disallows"]);
  });

  it("P24: a night left alone neither counts toward a run of nos nor breaks one", () => {
    const no = result({ kind: "refused", reason: "http block: status 403" });
    expect(flagsFor(no, history(["refused", owner.kind, "refused"])).map((f) => f.kind)).toEqual([
      "no-three-nights",
    ]);
    expect(flagsFor(no, history([owner.kind, owner.kind, "refused"]))).toEqual([]);
  });
});
