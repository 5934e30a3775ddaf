import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.js";
import type { Transport } from "../../src/net/types.js";
import { buildSimulation, runSimulatedNight, type Simulation } from "../../src/night/simulate.js";
import { addDays } from "../../src/policy/night-date.js";
import { markedStores } from "./marked-stores.js";
import { recheckNightOpts, simAnswer } from "./sim-answers.js";

/**
 * P25, P13: a recheck in a lane the deadline cuts before its end night after night (its site's
 * pages that are read alone fill the night's time). The pages read come before the recheck
 * (a no it meets closes the site, P21), and last night's unreached go first (P13): so far the
 * recheck would wait behind them forever, owed every night and never asked.
 */
const N0 = "2026-11-05";
const DAY = 24 * 3600_000;

const makers = markedStores(N0, "tester");

/** busy.org's three pages (`/list/0` marked not read); `saysNo`: that one answers 403. */
function busy(clock: ManualClock, saysNo: boolean): Simulation {
  const base = buildSimulation(clock, [{ site: "busy.org", latencyMs: 100, sources: 3 }]);
  const transport: Transport = async (req) =>
    saysNo && new URL(req.url).pathname === "/list/0"
      ? simAnswer(clock, base, "busy.org", req, 403, { "content-type": "text/plain" }, "Forbidden")
      : base.transport(req);
  return { ...base, transport };
}

/**
 * Nights 1 to 24 after the marking; from night 10 (a weekly recheck night) on, a time limit of
 * `shortMs`: robots.txt and then as many requests as fit, 2 s apart (P10). The nights the
 * marked page was asked, and the longest run of nights from 10 on a page read was not asked.
 */
async function nights(
  maker: (typeof makers)[number],
  shortMs: number,
  saysNo = false,
): Promise<{ asked: number[]; longestRun: number; why: string }> {
  const { store, mark, close } = await maker.make();
  try {
    const clock = new ManualClock(Date.parse("2026-11-05T23:00:00Z"));
    const sim = busy(clock, saysNo);
    const opts = recheckNightOpts();
    await runSimulatedNight(clock, sim, store, { ...opts, night: N0 });
    await mark("busy.org/0", clock.now());
    const pathsOf = (from: number) =>
      sim.observed
        .slice(from)
        .map((r) => new URL(r.url).pathname)
        .filter((p) => p !== "/robots.txt");
    const log: string[] = [];
    const asked: number[] = [];
    const run = new Map<string, number>();
    let longestRun = 0;
    for (let k = 1; k <= 24; k++) {
      await clock.advance(DAY);
      const from = sim.observed.length;
      const deadlineMs = k >= 10 ? shortMs : opts.deadlineMs;
      const s = await runSimulatedNight(clock, sim, store, {
        ...opts,
        deadlineMs,
        night: addDays(N0, k),
      });
      const paths = pathsOf(from);
      log.push(`${k}: ${paths.join(" ")} ${JSON.stringify(s.outcomes)}`);
      if (paths.includes("/list/0")) asked.push(k);
      for (const p of ["/list/1", "/list/2"]) {
        const n = paths.includes(p) ? 0 : (run.get(p) ?? 0) + 1;
        run.set(p, n);
        if (k >= 10) longestRun = Math.max(longestRun, n);
      }
    }
    return { asked, longestRun, why: log.join("\n") };
  } finally {
    await close();
  }
}

describe.each(makers)("a recheck in a lane the deadline always cuts ($name)", (maker) => {
  it("P25, P13: a recheck whose lane the deadline cuts every night (its pages read fill the night) is asked on the third night it is owed, as a page read, not owed and unasked every night; the pages read still miss no two nights running", async () => {
    const { asked, longestRun, why } = await nights(maker, 5_000);
    // Soon after the marking: 1, 2, 3. Night 10's is cut, and night 11's (owed, after the pages
    // read); on night 12 it takes its turn as a page read, first (the longest since checked).
    // Night 17's (weekly: 12 is 5 nights before it, too many to stand for it) likewise on 19.
    expect(asked, why).toEqual([1, 2, 3, 12, 19]);
    expect(longestRun, why).toBeLessThanOrEqual(1);
  }, 120_000);

  it("P25, P13, P21: with time for one page a night (the pages read take turns), the recheck answering or meeting a no (which closes the site for the night, P21): it is asked on the fourth night it is owed all the same, and no page read goes unasked more than two nights running", async () => {
    for (const saysNo of [false, true]) {
      const { asked, longestRun, why } = await nights(maker, 3_000, saysNo);
      // Night 12 the page read not reached on night 11 goes before it (lanes.ts rechecksDue: it
      // has waited two nights, the page would then have waited two); night 13 it goes first.
      expect(asked, `${saysNo}\n${why}`).toEqual([1, 2, 3, 13, 20]);
      // Last night's unreached (a page read and the recheck) overfill a night of one page: one
      // of them waits a second night, as lanes.ts says; never a third.
      expect(longestRun, why).toBeLessThanOrEqual(2);
    }
  }, 120_000);
});
