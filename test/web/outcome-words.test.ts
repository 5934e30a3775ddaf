import { describe, expect, it } from "vitest";
import { OutcomeText } from "../../src/web/public/pages/parts.js";
import type { Outcome } from "../../src/web/public/state.js";

/** The text of a rendered outcome, its tags taken out. */
async function text(o: Outcome): Promise<string> {
  const html = String(await OutcomeText({ o }));
  return html
    .replace(/<[^>]+>/g, "")
    .replace(/&#(\d+);/g, (_m, n) => String.fromCharCode(Number(n)));
}

const base: Outcome = {
  night: "2026-11-05",
  outcome: "refused",
  reason: null,
  newRecords: 0,
} as unknown as Outcome;

describe("P23: a night's no in words a resident reads", () => {
  it("a refusal page of no known vendor: no 'by generic', its status once", async () => {
    const t = await text({
      ...base,
      status: 403,
      reason: 'generic suspected: status 403 + "access denied"',
      evidence: {
        provider: "generic",
        verdict: "suspected",
        marker: 'status 403 + "access denied"',
      },
    } as Outcome);
    expect(t).toBe(
      "no: refused a page that reads as a refusal (“access denied” or the like) (HTTP 403)",
    );
  });

  it("a vendor's challenge page names the vendor and its reference", async () => {
    const t = await text({
      ...base,
      status: 403,
      reason: "cloudflare challenge: cf-mitigated",
      evidence: {
        provider: "cloudflare",
        verdict: "challenge",
        marker: "cf-mitigated",
        reference: "8e1f-CMH",
      },
    } as Outcome);
    expect(t).toBe(
      "no: refused a “prove you are human” page (by cloudflare, reference 8e1f-CMH, HTTP 403)",
    );
  });

  it("a plain 403 says its status once", async () => {
    const t = await text({
      ...base,
      status: 403,
      reason: "HTTP 403",
      evidence: { provider: "http", verdict: "status", marker: "HTTP 403" },
    } as Outcome);
    expect(t).toBe("no: refused HTTP 403");
  });

  it("a recheck that still meets such a page says it in the same words", async () => {
    const t = await text({
      ...base,
      outcome: "recheck-still-no",
      status: 403,
      reason: 'refused: generic suspected: status 403 + "access denied"',
      evidence: {
        provider: "generic",
        verdict: "suspected",
        marker: 'status 403 + "access denied"',
      },
    } as Outcome);
    expect(t).toBe(
      "recheck: still no a page that reads as a refusal (“access denied” or the like) (HTTP 403)",
    );
  });
});
