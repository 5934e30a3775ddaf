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

const ACCESS_DENIED = {
  provider: "generic",
  verdict: "suspected",
  marker: 'status 403 + "access denied"',
} as const;

/** Each case: what it is, the outcome (a 403 unless said), the words the page says. */
type Case = Omit<Partial<Outcome>, "status"> & { status?: number | undefined };
const CASES: [string, Case, string][] = [
  [
    "a refusal page of no known vendor: no 'by generic', its status once",
    { reason: 'generic suspected: status 403 + "access denied"', evidence: ACCESS_DENIED },
    "no: refused a page that reads as a refusal (“access denied” or the like) (HTTP 403)",
  ],
  [
    "a vendor's challenge page names the vendor and its reference",
    {
      reason: "cloudflare challenge: cf-mitigated",
      evidence: {
        provider: "cloudflare",
        verdict: "challenge",
        marker: "cf-mitigated",
        reference: "8e1f-CMH",
      },
    },
    "no: refused a “prove you are human” page (by cloudflare, reference 8e1f-CMH, HTTP 403)",
  ],
  [
    "the site's own image CAPTCHA, or a bare 'prove you are human' page: no 'by image-captcha' nor 'by generic', its status once",
    {
      status: 200,
      reason: 'image-captcha challenge: whole page: captcha image + "prove you are human"',
      evidence: {
        provider: "image-captcha",
        verdict: "challenge",
        marker: 'whole page: captcha image + "prove you are human"',
      },
    },
    "no: refused a “prove you are human” page (HTTP 200)",
  ],
  [
    "a plain 403 says its status once",
    { reason: "HTTP 403", evidence: { provider: "http", verdict: "status", marker: "HTTP 403" } },
    "no: refused HTTP 403",
  ],
  [
    "a recheck that still meets such a page says it in the same words",
    {
      outcome: "recheck-still-no",
      reason: 'refused: generic suspected: status 403 + "access denied"',
      evidence: ACCESS_DENIED,
    },
    "recheck: still no a page that reads as a refusal (“access denied” or the like) (HTTP 403)",
  ],
  [
    "an answer cut off on every attempt says so, its status once (no 'connection closed … (HTTP 200)')",
    {
      status: 200,
      reason: "connection closed on every attempt",
      evidence: { provider: "connection", verdict: "closed", marker: "body cut short" },
    },
    "no: refused a connection closed before the answer was whole, on every attempt (the last began as HTTP 200)",
  ],
  [
    "a connection closed before any answer, on every attempt, has no status to say",
    {
      status: undefined,
      reason: "connection closed on every attempt",
      evidence: { provider: "connection", verdict: "closed", marker: "socket closed" },
    },
    "no: refused a connection closed before the answer was whole, on every attempt",
  ],
];

describe("P23: a night's no in words a resident reads", () => {
  it.each(CASES)("%s", async (_what, o, words) => {
    const { status = 403, ...rest } = o;
    const full =
      "status" in o && o.status === undefined ? { ...base, ...rest } : { ...base, ...rest, status };
    expect(await text(full as Outcome)).toBe(words);
  });
});
