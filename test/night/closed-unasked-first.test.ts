import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.js";
import type { Transport } from "../../src/net/types.js";
import { isSiteClosedReason } from "../../src/night/outcome.js";
import { buildSimulation, runSimulatedNight } from "../../src/night/simulate.js";
import { addDays } from "../../src/policy/night-date.js";
import { markedStores } from "./marked-stores.js";
import { recheckNightOpts, simAnswer } from "./sim-answers.js";

/**
 * P13, P21, P23: a site whose first page says no (403) every night. Its no closes the site for
 * the night (P21): its other pages are not asked, and their pages show that night's no (P23).
 * Not asked, they were not reached: they go first the next night (P13), before the page that
 * says no, so they are read every night after the first.
 */
const N0 = "2026-11-05";
const DAY = 24 * 3600_000;

const makers = markedStores(N0, "tester");

describe.each(makers)("a site whose first page says no every night ($name)", (maker) => {
  it("P13, P21, P23: the pages its no kept from being asked go first the next night, and nothing is asked after a no in the same night", async () => {
    const { store, close } = await maker.make();
    try {
      const clock = new ManualClock(Date.parse("2026-11-05T23:00:00Z"));
      const base = buildSimulation(clock, [{ site: "nope.org", latencyMs: 100, sources: 4 }]);
      const transport: Transport = async (req) =>
        new URL(req.url).pathname === "/list/0"
          ? simAnswer(clock, base, "nope.org", req, 403, { "content-type": "text/plain" }, "No")
          : base.transport(req);
      const sim = { ...base, transport };
      const opts = recheckNightOpts();
      const log: string[] = [];
      for (let k = 0; k <= 5; k++) {
        if (k > 0) await clock.advance(DAY);
        const night = addDays(N0, k);
        const from = sim.observed.length;
        const s = await runSimulatedNight(clock, sim, store, { ...opts, night });
        const asked = sim.observed
          .slice(from)
          .filter((r) => new URL(r.url).pathname !== "/robots.txt");
        const paths = asked.map((r) => `${new URL(r.url).pathname}:${r.status}`);
        log.push(`${k}: ${paths.join(" ")} ${JSON.stringify(s.outcomes)}`);
        const why = log.join("\n");
        // P21: the no is the night's last request to the site, whatever came before it.
        expect(paths.at(-1), why).toBe("/list/0:403");
        expect(
          paths.filter((p) => p.endsWith(":403")),
          why,
        ).toHaveLength(1);
        if (k === 0) {
          // Never checked, in id order: the page that says no first, the rest not asked.
          expect(paths, why).toEqual(["/list/0:403"]);
          expect(s.outcomes, why).toEqual({ refused: 4 });
          // P23: their pages show that night's no, as before.
          const tonight = (await store.tonightsOutcomes?.(night)) ?? [];
          const closed = tonight.filter((o) => o.sourceId !== "nope.org/0");
          expect(closed, why).toHaveLength(3);
          for (const o of closed) {
            expect(o.kind, why).toBe("refused");
            expect(isSiteClosedReason(o.reason ?? undefined), why).toBe(true);
          }
        } else {
          // P13: not asked last night (its no closed the site), they go first: all are read.
          expect(paths, why).toEqual(["/list/1:200", "/list/2:200", "/list/3:200", "/list/0:403"]);
          expect(s.outcomes, why).toEqual({ ok: 3, refused: 1 });
        }
      }
    } finally {
      await close();
    }
  }, 120_000);
});
