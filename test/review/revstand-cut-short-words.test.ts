import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.js";
import type { Fetcher } from "../../src/net/types.js";
import { recheckSource } from "../../src/night/recheck.js";
import { SITE_WAIT, siteDownReason } from "../../src/policy/admission.js";
import type { Source } from "../../src/sources/catalog/types.js";
import { outcomeLabel } from "../../src/web/public/format.js";

/**
 * Reviewer (revstand), P25 and P23 (the directory's words): since 226884aa a recheck whose page
 * answered with a redirect, and whose next request was not sent because the site it leads to
 * was down that night, is `cut-short`. No deadline came. The directory's words for it must not
 * blame the night's time limit.
 */
const source = {
  id: "marked-page",
  government: "g",
  records: "agendas",
  access: "html",
  url: "https://a.example.org/agendas",
  alternates: [],
  backfill: { pagesPerNight: 0 },
  confirmed: true,
} as unknown as Source;

describe("P25, P23: a recheck cut short because its redirect's site was down, in the directory's words", () => {
  it("P25: its label says the site the redirect leads to was down that night, not that the night ran out of time", async () => {
    const hop = "https://b.example.org/agendas";
    const fetcher: Fetcher = {
      fetch: async () => ({
        kind: "site-down",
        url: hop,
        reason: siteDownReason(503, "retries-exhausted", "https://b.example.org/other"),
      }),
    };
    const r = await recheckSource(fetcher, new ManualClock(), source);
    expect(r.outcome.kind).toBe("cut-short");
    const label = outcomeLabel(r.outcome.kind, r.outcome.reason);
    expect(label.text).not.toMatch(/ran out of time/);
    expect(label.text).toMatch(/down/);
    expect(label.tone).toBe("skip");
  });

  it("P25: one whose redirect's site asked for a wait past the night is said as that, not the night's time", async () => {
    const fetcher: Fetcher = {
      fetch: async () => ({
        kind: "deadline",
        url: "https://b.example.org/agendas",
        reason: `${SITE_WAIT} 23:40 New York time (a Retry-After, or the wait before a retry), after the night's deadline`,
      }),
    };
    const r = await recheckSource(fetcher, new ManualClock(), source);
    expect(r.outcome.kind).toBe("cut-short");
    expect(outcomeLabel(r.outcome.kind, r.outcome.reason).text).toBe(
      "cut short: the site its redirect leads to asked to wait",
    );
  });

  it("P13: a cut short by the time limit is still said as the night running out of time", () => {
    expect(
      outcomeLabel(
        "cut-short",
        "answered HTTP 503; its retry (in 30 s) would have started after the night's time limit",
      ).text,
    ).toBe("cut short (the night ran out of time)");
  });
});
