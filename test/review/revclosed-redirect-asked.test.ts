import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.js";
import type { Transport } from "../../src/net/types.js";
import { isSiteClosedReason } from "../../src/night/outcome.js";
import { buildSimulation, runSimulatedNight } from "../../src/night/simulate.js";
import { addDays } from "../../src/policy/night-date.js";
import { markedStores } from "../night/marked-stores.js";
import { recheckNightOpts, simAnswer } from "../night/sim-answers.js";

/**
 * Reviewer (revclosed), P13, P21: a source whose page on its own site WAS asked, and answered a
 * redirect into another site that said no earlier tonight (a vendor's host, say), ends the night
 * "refused: site said no earlier tonight: …" like a source never asked. It was reached: its
 * request went out. It is not last night's unreached (P13: its lane does not go first, nor it in
 * its lane, for a check it had), and its check that night counts as when it was last checked.
 */
const N0 = "2026-11-05";
const DAY = 24 * 3600_000;
const makers = markedStores(N0, "tester");

describe.each(makers)("a page redirected into a site closed tonight ($name)", (maker) => {
  it("P13, P21: a source whose own page was asked (its redirect hop found the other site closed) is not last night's unreached, and was checked that night", async () => {
    const { store, close } = await maker.make();
    try {
      const clock = new ManualClock(Date.parse("2026-11-05T23:00:00Z"));
      // vendor.org first (more sources, a longer lane), saying no to its first page; a.org's
      // first page redirects into vendor.org after that.
      const base = buildSimulation(clock, [
        { site: "vendor.org", latencyMs: 100, sources: 3 },
        { site: "a.org", latencyMs: 100, sources: 2 },
      ]);
      const transport: Transport = async (req) => {
        const u = new URL(req.url);
        if (u.host === "www.vendor.org" && u.pathname === "/list/0")
          return simAnswer(
            clock,
            base,
            "vendor.org",
            req,
            403,
            { "content-type": "text/plain" },
            "No",
          );
        if (u.host === "www.a.org" && u.pathname === "/list/0")
          return simAnswer(clock, base, "a.org", req, 302, {
            location: "https://www.vendor.org/portal/a",
          });
        return base.transport(req);
      };
      const sim = { ...base, transport };
      const opts = recheckNightOpts();
      const s = await runSimulatedNight(clock, sim, store, { ...opts, night: N0 });
      const asked = sim.observed.map(
        (r) => `${new URL(r.url).host}${new URL(r.url).pathname}:${r.status}`,
      );
      const why = `${asked.join(" ")} ${JSON.stringify(s.outcomes)}`;
      // The a.org page was asked (its 302 went out), then the hop met vendor.org's no.
      expect(asked, why).toContain("www.a.org/list/0:302");
      const tonight = (await store.tonightsOutcomes?.(N0)) ?? [];
      const a0 = tonight.find((o) => o.sourceId === "a.org/0");
      expect(a0?.kind, why).toBe("refused");
      const closedTold = isSiteClosedReason(a0?.reason ?? undefined);
      await clock.advance(DAY);
      const h = (await store.histories(addDays(N0, 1), ["a.org/0", "a.org/1"])).get("a.org/0");
      // Expected: reached (its request went out): not last night's unreached, checked that night.
      expect(
        { closedTold, unreachedLast: h?.unreachedLast, checked: h?.lastCheckedAt !== undefined },
        why,
      ).toEqual({
        closedTold,
        unreachedLast: false,
        checked: true,
      });
    } finally {
      await close();
    }
  }, 120_000);
});
