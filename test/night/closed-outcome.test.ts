import { describe, expect, it } from "vitest";
import { ROBOTS_CLOSED } from "../../src/net/robots-answer.js";
import { closedOutcome, failureOutcome, SITE_CLOSED_REASON } from "../../src/night/outcome.js";
import { OWNERS_REQUEST } from "../../src/policy/admission.js";
import { reachEvidence } from "../../src/policy/offline.js";

/**
 * P20, P21, P26: a source of a site closed tonight is said by why the site closed. A robots.txt
 * of the site that could not be read (every origin of the site is then kept off, as the
 * published page says) is said as robots-unavailable with that robots.txt's origin and why, as
 * the source that met it is: never as a no the site said, so that a checker cut off from the
 * internet (every robots.txt unreachable) still reads as one (policy/offline.ts).
 */
describe("a source behind a site closed tonight", () => {
  it("P20: behind a robots.txt that could not be read: robots-unavailable, as the source that met it, and the same evidence of reach", () => {
    for (const why of [
      "HTTP 503",
      "refused: connect ECONNREFUSED 127.0.0.9:80",
      "dns: getaddrinfo ENOTFOUND www.x.gov",
    ]) {
      const met = failureOutcome({
        kind: "robots-unavailable",
        url: "https://www.x.gov/list",
        origin: "https://www.x.gov",
        reason: why,
      });
      const behind = closedOutcome(
        `${ROBOTS_CLOSED}https://www.x.gov: ${why}`,
        "https://agendas.x.gov/list",
      );
      expect(behind).toEqual({ ...met, url: "https://agendas.x.gov/list" });
      expect(reachEvidence(behind)).toBe(reachEvidence(met));
    }
    expect(
      reachEvidence(
        closedOutcome(
          `${ROBOTS_CLOSED}https://www.x.gov: refused: connect ECONNREFUSED 127.0.0.9:80`,
        ),
      ),
    ).toBe("failed");
  });

  it("P21, P26: behind a no the site said: refused; behind its owner's request: left alone", () => {
    expect(closedOutcome("HTTP 403")).toEqual({ kind: "refused", reason: SITE_CLOSED_REASON });
    const owners = `${OWNERS_REQUEST} (2026-11-01, by pat)`;
    expect(closedOutcome(owners).kind).toBe("left-alone");
  });
});
