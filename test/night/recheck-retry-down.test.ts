import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.js";
import {
  cutByTheDeadline,
  recheckHopReason,
  recheckRetryReason,
  TIME_LIMIT_PASSED,
} from "../../src/night/outcome.js";
import { runSimulatedNight } from "../../src/night/simulate.js";
import { addDays } from "../../src/policy/night-date.js";
import { outcomeLabel } from "../../src/web/public/format.js";
import { markedStores } from "./marked-stores.js";
import { recheckNightOpts, redirectFromADown } from "./sim-answers.js";

/**
 * P25, P15: a recheck whose own page answered 503, and whose retry was not sent because its site
 * had meanwhile been found down (another of that site's pages answered 503 after its retries at
 * the same time, from another lane): its page was asked and answered, as a recheck whose
 * redirect's site was down was. It owes nothing: the next recheck is the calendar's, not the
 * next night's (else the page would be asked every night the site stays down).
 *
 * a.org's marked page redirected (302) to b.org when last judged, so its recheck goes in b.org's
 * lane (P25, P9), beside a.org's own lane (its page read), two lanes at once.
 */
const N0 = "2026-11-05";
const DAY = 24 * 3600_000;

const makers = markedStores(N0, "tester");

describe.each(makers)("a recheck whose retry met its site down ($name)", (maker) => {
  it("P25, P15: a recheck whose own page answered 503 and whose retry was not sent (its site found down meanwhile by another lane) was reached: not owed the next night", async () => {
    const { store, mark, close } = await maker.make();
    try {
      const clock = new ManualClock(Date.parse("2026-11-05T23:00:00Z"));
      const { sim, down } = redirectFromADown(clock);
      const opts = { ...recheckNightOpts(), concurrency: 2 };
      await runSimulatedNight(clock, sim, store, { ...opts, night: N0 });
      await mark("a.org/0", clock.now());
      const log: string[] = [];
      const asks: number[] = [];
      for (let k = 1; k <= 12; k++) {
        await clock.advance(DAY);
        down.on = k === 10;
        const from = sim.observed.length;
        const s = await runSimulatedNight(clock, sim, store, { ...opts, night: addDays(N0, k) });
        const mine = sim.observed
          .slice(from)
          .filter((r) => r.site === "a.org" && new URL(r.url).pathname === "/list/0");
        log.push(
          `${k}: ${mine.map((r) => `${r.status}@${r.start - clock.now()}`).join(" ")} ${JSON.stringify(s.outcomes)}`,
        );
        if (mine.length > 0) asks.push(k);
      }
      const why = log.join("\n");
      // Night 10: its page answered 503, the retry refused (the site down): asked all the same.
      // (On PostgreSQL the store's real-time latency lets the simulated clock run ahead while a
      // lane waits on it, so which lane reaches a.org first is not fixed there: either it was
      // asked on 10, as here, or its site was found down before it was asked, and it is owed.)
      const asked10 = asks.includes(10);
      if (maker.name !== "postgres") expect(log[9], why).toMatch(/^10: 503@/);
      // The calendar's nights only: not again on 11 (nothing owed); owed only if not asked.
      expect(asks, why).toEqual(asked10 ? [1, 2, 3, 10] : [1, 2, 3, 11]);
      if (asked10) {
        const h = (await store.histories(addDays(N0, 11), ["a.org/0"])).get("a.org/0");
        expect(h?.lastReachedNight, why).toBe(addDays(N0, 10));
        expect(h?.recentOutcomes[0], why).toBe("cut-short");
      }
    } finally {
      await close();
    }
  }, 120_000);
});

describe("a recheck cut short, in its words", () => {
  it("P13, P25: a recheck's retry or redirect not sent as its site was down is not the deadline's cut; one the time limit stopped is, as a night's read cut short is", () => {
    const down =
      "the site was down tonight: it answered HTTP 503 after its retries (https://www.a.org/list/1)";
    const retry = recheckRetryReason("https://www.a.org/list/0", 503, down);
    expect(cutByTheDeadline(retry)).toBe(false);
    // Its source's page says so, not that a redirect led there (P26).
    expect(outcomeLabel("cut-short", retry).text).toBe(
      "cut short: the site was down that night (its retry not sent)",
    );
    expect(
      cutByTheDeadline(recheckHopReason("https://www.a.org/list/0", "https://www.b.org/x", down)),
    ).toBe(false);
    expect(
      cutByTheDeadline(
        recheckHopReason("https://www.a.org/list/0", "https://www.b.org/x", TIME_LIMIT_PASSED),
      ),
    ).toBe(true);
    expect(
      cutByTheDeadline(
        "answered HTTP 503; its retry (in 5 s) would have started after the night's time limit",
      ),
    ).toBe(true);
  });
});
