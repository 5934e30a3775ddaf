import { describe, expect, it } from "vitest";
import { flagsFor } from "../../src/night/flags.js";
import type { NightOutcomeKind, SourceHistory, SourceResult } from "../../src/night/types.js";
import {
  canaryFailed,
  judgeReach,
  networkFailureIn,
  OFFLINE_WINDOW,
  reachEvidence,
} from "../../src/policy/offline.js";

describe("P20, P23: telling our outage from a site's silence", () => {
  it("reads DNS and connect failures from the reasons the fetcher writes", () => {
    expect(networkFailureIn("https://x.gov: dns: ENOTFOUND: getaddrinfo ENOTFOUND x.gov")).toBe(
      "dns",
    );
    expect(networkFailureIn("dns: getaddrinfo EAI_AGAIN x.gov")).toBe("dns");
    expect(networkFailureIn("unreachable: refused: connect ECONNREFUSED 1.2.3.4:80")).toBe(
      "connect",
    );
    expect(networkFailureIn("other: connect ENETUNREACH 1.2.3.4:443")).toBe("connect");
    expect(networkFailureIn("https://x.gov: HTTP 503")).toBeUndefined();
    expect(networkFailureIn("tls: CERT_HAS_EXPIRED")).toBeUndefined();
    expect(networkFailureIn(undefined)).toBeUndefined();
  });

  it("counts only a source's own check as evidence, and a time-out as none", () => {
    expect(reachEvidence({ kind: "robots-unavailable", reason: "https://a: dns: ENOTFOUND" })).toBe(
      "failed",
    );
    expect(reachEvidence({ kind: "robots-unavailable", reason: "https://a: HTTP 503" })).toBe(
      "answered",
    );
    expect(reachEvidence({ kind: "unreachable", reason: "reset: ECONNRESET" })).toBe("answered");
    expect(reachEvidence({ kind: "ok" })).toBe("answered");
    expect(reachEvidence({ kind: "timed-out", reason: "no headers within 30 s" })).toBe("none");
    // Left alone at its site owner's request (P26): nothing was asked, so nothing to go by.
    expect(
      reachEvidence({ kind: "left-alone", reason: "the site's owner asked not to be read (x)" }),
    ).toBe("none");
    expect(reachEvidence({ kind: "unreached" })).toBe("none");
  });

  it("P25: a recheck that met a bot wall answered; one whose connection was refused or whose name did not resolve failed", () => {
    // night/recheck.ts writes the failed outcome's kind before its reason.
    expect(
      reachEvidence({
        kind: "recheck-still-no",
        status: 403,
        reason: "refused: cloudflare challenge: cf-mitigated",
      }),
    ).toBe("answered");
    expect(
      reachEvidence({
        kind: "recheck-still-no",
        reason: "refused: connection closed on every attempt",
      }),
    ).toBe("answered");
    expect(
      reachEvidence({
        kind: "recheck-still-no",
        reason: "unreachable: refused: connect ECONNREFUSED 127.0.0.1:80",
      }),
    ).toBe("failed");
    expect(
      reachEvidence({
        kind: "recheck-still-no",
        reason: "robots-unavailable: https://a: dns: ENOTFOUND",
      }),
    ).toBe("failed");
  });

  it("offline only when at least 5 sites were heard from and at least 80% failed", () => {
    expect(judgeReach([true, true, true, true]).offline).toBe(false); // too few to tell
    expect(judgeReach([true, true, true, true, false])).toEqual({
      offline: true,
      failed: 4,
      of: 5,
    });
    expect(judgeReach([true, true, true, false, false]).offline).toBe(false);
    // One dead site among healthy ones is that site's problem.
    expect(judgeReach([false, false, true, false, false, false]).offline).toBe(false);
    // Only the latest sites count: an outage during the night is seen.
    const healthyThenCut = [...Array(40).fill(false), ...Array(OFFLINE_WINDOW - 2).fill(true)];
    expect(judgeReach(healthyThenCut)).toEqual({
      offline: true,
      failed: OFFLINE_WINDOW - 2,
      of: OFFLINE_WINDOW,
    });
  });

  it("a canary fails when no answer came back; any HTTP answer means the internet is there", () => {
    expect(canaryFailed({ kind: "unreachable", reason: "dns: ENOTFOUND" })).toBe(true);
    expect(canaryFailed({ kind: "timed-out" })).toBe(true);
    expect(canaryFailed({ kind: "robots-unavailable", reason: "https://c: refused: x" })).toBe(
      true,
    );
    expect(
      canaryFailed({ kind: "robots-unavailable", reason: "https://c: timeout-headers: x" }),
    ).toBe(true);
    expect(canaryFailed({ kind: "robots-unavailable", reason: "https://c: HTTP 500" })).toBe(false);
    expect(canaryFailed({ kind: "refused", reason: "HTTP 403" })).toBe(false);
    expect(canaryFailed({ kind: "error", reason: "HTTP 404" })).toBe(false);
  });
});

describe("P24: a checker-offline night is no night for the flag rules", () => {
  const result = (kind: NightOutcomeKind): SourceResult => ({
    sourceId: "s",
    outcome: { kind },
    records: [],
    validators: [],
    flags: [],
    startedAt: 0,
    endedAt: 0,
  });
  const history = (recentOutcomes: NightOutcomeKind[]): SourceHistory => ({
    reading: true,
    unreachedLast: false,
    recentOutcomes,
    recordsKnown: 3,
  });

  it("raises nothing itself, even after two nights of no", () => {
    expect(flagsFor(result("checker-offline"), history(["robots-unavailable", "refused"]))).toEqual(
      [],
    );
  });

  it("neither counts toward nor breaks a run of nos", () => {
    const flags = flagsFor(
      result("refused"),
      history(["checker-offline", "refused", "checker-offline", "refused"]),
    );
    expect(flags.map((f) => f.kind)).toEqual(["no-three-nights"]);
    expect(flagsFor(result("refused"), history(["checker-offline", "refused", "ok"]))).toEqual([]);
  });
});
