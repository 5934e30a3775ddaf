import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.js";
import { CounterIds } from "../../src/ids.js";
import { createFetcher } from "../../src/net/fetcher.js";
import { MemoryJournal, MemoryRobotsCache } from "../../src/net/memory-ports.js";
import type { NightStore } from "../../src/night/ports.js";
import { type NightSummary, runNight } from "../../src/night/run-night.js";
import { buildSimulation, MemoryNightStore, simReader } from "../../src/night/simulate.js";
import { LANE_LEASE_MS } from "../../src/policy/constants.js";
import { isRecheckNight } from "../../src/policy/recheck.js";
import { siteOf } from "../../src/policy/site.js";

/**
 * A worker frozen past its lane's lease (SIGSTOP, a long pause, a machine cut off from the
 * database for a minute) on one machine, while a `nor night` on another machine sharing the
 * PostgreSQL store takes the lane over. Once it wakes, the lane is the other's: it must not go
 * on asking that lane's sources alongside the new holder, each asking what the other is about
 * to ask (or has just stored).
 *
 * Found from outside (ot-pg): two `nor night` processes on one PostgreSQL store, the second
 * in another UTS namespace (another host name); the first SIGSTOPped for 90 s between two
 * requests, then SIGCONTed: from then on both worked each of its four sites' lanes in
 * alternation, and 36 feeds were asked twice, each answered 200 both times (P8).
 */
const NIGHT = "2026-11-05";
// Holders on two other hosts: only their leases tell whether they are alive.
const A = "machine-a:101:aaaa";
const B = "machine-b:102:bbbb";

/**
 * A takes the lane and is frozen where `freeze` (given A's store and a function that freezes A
 * until released) says; B, on another machine, starts once A is frozen; A wakes once B has asked
 * three of the lane's sources. What each asked (robots.txt aside), and the two nights' ends.
 */
async function frozenAndTakenOver(
  freeze: (store: MemoryNightStore, storeA: NightStore, freezeA: () => Promise<void>) => void,
) {
  const clock = new ManualClock();
  const sim = buildSimulation(clock, [{ site: "shared.org", latencyMs: 100, sources: 12 }]);
  const store = new MemoryNightStore();
  const journal = new MemoryJournal();
  const robotsCache = new MemoryRobotsCache();
  const byHolder: { holder: string; url: string }[] = [];

  let release: () => void = () => {};
  const frozen = new Promise<void>((r) => {
    release = r;
  });
  let isFrozen = false;
  const storeA: NightStore = Object.create(store) as NightStore;
  freeze(store, storeA, async () => {
    isFrozen = true;
    await frozen;
  });

  const run = (holder: string, s: NightStore) =>
    runNight(
      sim.catalog,
      {
        store: s,
        clock,
        reader: simReader,
        validators: store,
        siteOf,
        isRecheckNight,
        holder,
        makeFetcher: async (state) =>
          createFetcher({
            clock,
            ids: new CounterIds(),
            journal,
            robotsCache,
            holder,
            transport: async (req) => {
              if (!req.url.endsWith("/robots.txt")) byHolder.push({ holder, url: req.url });
              return sim.transport(req);
            },
            deadline: state.deadlineAt,
            night: NIGHT,
            gapMs: 2_000,
          }),
      },
      { night: NIGHT, deadlineMs: 60 * 60_000, concurrency: 1 },
    );

  const settled = new Set<string>();
  const runA = run(A, storeA).finally(() => settled.add("a"));
  runA.catch(() => {});
  let runB: Promise<NightSummary> | undefined;
  let frozenAt = 0;
  // Bounded: every step wakes one sleeper.
  for (let steps = 0; steps < 200_000 && settled.size < 2; steps++) {
    if (isFrozen && runB === undefined) {
      frozenAt = clock.now();
      runB = run(B, store).finally(() => settled.add("b"));
      runB.catch(() => {});
    }
    // A wakes once B has taken the lane over and asked a few of its sources.
    const bAsked = byHolder.filter((r) => r.holder === B).length;
    if (runB !== undefined && bAsked >= 3) release();
    if (!(await clock.step())) await new Promise<void>((r) => setImmediate(r));
  }
  await runA;
  await runB;
  // B took the lane only after A's lease had run out.
  expect(clock.now() - frozenAt).toBeGreaterThan(LANE_LEASE_MS);
  // Every source asked once, by one of them.
  const urls = byHolder.map((r) => r.url);
  expect(urls.length).toBe(12);
  expect(new Set(urls).size).toBe(12);
  for (const src of sim.catalog.sources)
    expect(store.outcomeOf(src.id, NIGHT)?.kind, src.id).toBe("ok");
  return byHolder;
}

describe("a worker woken after its lane was taken over (run-night)", () => {
  it("P8, P9: a worker frozen past its lane's lease, the lane taken over by another machine's worker, asks none of that lane's sources once it wakes", async () => {
    // A's store freezes A (as SIGSTOP would) at its third source's turn, until released (the
    // mark is read again for a source's requests too, P24: the turns are told by their ids).
    const byHolder = await frozenAndTakenOver((store, storeA, freezeA) => {
      const turns = new Set<string>();
      storeA.sourceNow = async (night, id) => {
        if (!turns.has(id)) {
          turns.add(id);
          if (turns.size === 3) await freezeA();
        }
        return store.sourceNow(night, id);
      };
    });
    // A asked its first two, nothing after it woke.
    expect(byHolder.filter((r) => r.holder === A)).toHaveLength(2);
  });

  it("P8, P9: a worker frozen just as its claim of a lane came back (before the lane's first source), the lane taken over meanwhile, asks none of its sources once it wakes", async () => {
    // Frozen after the claim committed, before it came back (a SIGSTOP during the round trip).
    const byHolder = await frozenAndTakenOver((store, storeA, freezeA) => {
      storeA.claimLanes = async (night, sites, h, now) => {
        const claimed = await store.claimLanes(night, sites, h, now);
        await freezeA();
        return claimed;
      };
    });
    expect(byHolder.filter((r) => r.holder === A)).toHaveLength(0);
  });
});
