import { expect, it } from "vitest";
import { ManualClock } from "../../src/clock.js";
import { CounterIds } from "../../src/ids.js";
import { createFetcher } from "../../src/net/fetcher.js";
import type { JournalPort } from "../../src/net/journal.js";
import { MemoryJournal, MemoryRobotsCache } from "../../src/net/memory-ports.js";
import type { TransportResult } from "../../src/net/types.js";
import { type NightSummary, runNight } from "../../src/night/run-night.js";
import { buildSimulation, MemoryNightStore, simReader } from "../../src/night/simulate.js";
import { LANE_LEASE_MS } from "../../src/policy/constants.js";
import { isRecheckNight } from "../../src/policy/recheck.js";
import { siteOf } from "../../src/policy/site.js";

/**
 * A worker frozen in the middle of a source's check (here in the wait before a retry: its
 * page answered 503 with Retry-After), past its lane's lease, while a `nor night` on another
 * machine sharing the PostgreSQL store takes the lane over and finishes that source. Once it
 * wakes, the lane is the other's: it must send nothing more for that source, nor any other of
 * the lane (P8, P9), whatever its archive holds.
 *
 * Found from outside (ot-workers): two `nor night` processes on one PostgreSQL store, each in a
 * UTS namespace of its own (host names m1, m2) with a data directory of its own; m1 SIGSTOPped
 * for 75 s while it waited to retry a 503 and to send a Crawl-delay's next request. Woken, it
 * asked both pages again, though m2 had taken the lanes over, asked them, and committed their
 * sources: each page answered twice (P8), the 503 one sent a fourth time (P15).
 */
const NIGHT = "2026-11-05";
// Holders on two other hosts: only their leases tell whether they are alive.
const A = "machine-a:101:aaaa";
const B = "machine-b:102:bbbb";

type Sim = ReturnType<typeof buildSimulation>;

/** One site's lane on two machines sharing one store, journal and robots.txt cache. */
function machines(sources: number) {
  const clock = new ManualClock();
  const sim = buildSimulation(clock, [{ site: "shared.org", latencyMs: 100, sources }]);
  return {
    clock,
    sim,
    store: new MemoryNightStore(),
    journal: new MemoryJournal(),
    robotsCache: new MemoryRobotsCache(),
    busy: sim.catalog.sources[2]?.url as string,
  };
}

/**
 * `journal` with each admission first awaiting `before` (a freeze, a wake), as a process that
 * stops there would.
 */
function admitsAfter(
  journal: MemoryJournal,
  before: (intent: Parameters<JournalPort["admit"]>[0]) => Promise<void>,
): JournalPort {
  return {
    admit: async (intent, holder, now) => {
      await before(intent);
      return journal.admit(intent, holder, now);
    },
    waitAsked: (id, w) => journal.waitAsked(id, w),
    complete: (id, holder, c) => journal.complete(id, holder, c),
    answer: (night, key) => journal.answer(night, key),
    rulesNow: (site) => journal.rulesNow(site),
  };
}

/** A freeze a test ends (SIGSTOP, then SIGCONT). */
function freeze() {
  let release: () => void = () => {};
  const until = new Promise<void>((r) => {
    release = r;
  });
  const f = { on: false, release, until };
  return f;
}

/** The night as `holder`'s machine runs it, one lane at a time, over `transport`. */
function nightAs(
  m: ReturnType<typeof machines>,
  holder: string,
  j: JournalPort,
  transport: (req: Parameters<Sim["transport"]>[0]) => Promise<TransportResult>,
  onSourceError?: (id: string, err: unknown) => void,
): Promise<NightSummary> {
  const { clock, sim, store, robotsCache } = m;
  return runNight(
    sim.catalog,
    {
      store,
      clock,
      reader: simReader,
      validators: store,
      siteOf,
      isRecheckNight,
      holder,
      ...(onSourceError ? { onSourceError } : {}),
      makeFetcher: async (state) =>
        createFetcher({
          clock,
          ids: new CounterIds(),
          journal: j,
          robotsCache,
          holder,
          transport,
          deadline: state.deadlineAt,
          night: NIGHT,
          gapMs: 2_000,
        }),
    },
    { night: NIGHT, deadlineMs: 60 * 60_000, concurrency: 1 },
  );
}

/**
 * A's night, and B's once A is frozen (`frozen()`), stepped on the manual clock until both end
 * (bounded: every step wakes one sleeper); `each` runs before each step.
 */
async function bothNights(
  m: ReturnType<typeof machines>,
  a: () => Promise<NightSummary>,
  b: () => Promise<NightSummary>,
  frozen: () => boolean,
  each: (bStarted: boolean, bEnded: boolean) => void = () => {},
): Promise<{ frozenAt: number }> {
  const settled = new Set<string>();
  const runA = a().finally(() => settled.add("a"));
  runA.catch(() => {});
  let runB: Promise<NightSummary> | undefined;
  let frozenAt = 0;
  for (let steps = 0; steps < 200_000 && settled.size < 2; steps++) {
    if (frozen() && runB === undefined) {
      frozenAt = m.clock.now();
      runB = b().finally(() => settled.add("b"));
      runB.catch(() => {});
    }
    each(runB !== undefined, settled.has("b"));
    if (!(await m.clock.step())) await new Promise<void>((r) => setImmediate(r));
  }
  await runA;
  await runB;
  expect(settled.size).toBe(2);
  return { frozenAt };
}

/** A transport whose first answer to `busy` is a 503 asking to retry in 5 s. */
function busy503(
  m: ReturnType<typeof machines>,
  holder: string,
  sent: { holder: string; url: string; status: number }[],
  after200?: (req: Parameters<Sim["transport"]>[0]) => Promise<void>,
) {
  return async (req: Parameters<Sim["transport"]>[0]): Promise<TransportResult> => {
    if (req.url.endsWith("/robots.txt")) return m.sim.transport(req);
    if (req.url === m.busy && !sent.some((s) => s.url === m.busy)) {
      sent.push({ holder, url: req.url, status: 503 });
      await m.clock.sleep(100, req.signal);
      return {
        kind: "response",
        status: 503,
        headers: { "retry-after": "5" },
        body: (async function* () {})(),
      };
    }
    sent.push({ holder, url: req.url, status: 200 });
    await after200?.(req);
    return m.sim.transport(req);
  };
}

it.each([
  ["while the other holds the lane", "taken"],
  ["after the other finished the lane and let it go", "finished"],
] as const)(
  "P8, P9, P15: a worker frozen past its lane's lease in the middle of a source (waiting to retry a 503) sends nothing more once it wakes %s: the machine that took the lane over has asked and recorded it",
  async (_when, wake) => {
    const m = machines(8);
    const sent: { holder: string; url: string; status: number }[] = [];
    const f = freeze();
    // A's journal: after the page answered 503, A freezes (a SIGSTOP in its wait to retry it).
    const journalA = admitsAfter(m.journal, async (intent) => {
      if (intent.url === m.busy && sent.some((s) => s.url === m.busy && s.status === 503)) {
        f.on = true;
        await f.until;
      }
    });
    const { frozenAt } = await bothNights(
      m,
      () => nightAs(m, A, journalA, busy503(m, A, sent)),
      () => nightAs(m, B, m.journal, busy503(m, B, sent)),
      () => f.on,
      // A wakes once B has taken the lane over and asked the busy page and two more, or once
      // B has finished the lane (and let it go: a finished lane may be claimed again).
      (bStarted, bEnded) => {
        const bAsked = sent.filter((r) => r.holder === B).length;
        if (bStarted && (wake === "taken" ? bAsked >= 3 : bEnded)) f.release();
      },
    );
    const { clock, sim, store, busy } = m;
    // B took the lane only after A's lease had run out, and asked the busy page once more.
    expect(clock.now() - frozenAt).toBeGreaterThan(LANE_LEASE_MS);
    expect(sent.filter((s) => s.url === busy).map((s) => `${s.holder} ${s.status}`)).toEqual([
      `${A} 503`,
      `${B} 200`,
    ]);
    // Every other page asked once, by one of them; every source recorded as read.
    const others = sent.filter((s) => s.url !== busy).map((s) => s.url);
    expect(others).toHaveLength(7);
    expect(new Set(others).size).toBe(7);
    for (const src of sim.catalog.sources)
      expect(store.outcomeOf(src.id, NIGHT)?.kind, src.id).toBe("ok");
  },
);

it("P8, P9: a worker frozen between asking its lane's hold and its admission's transaction, woken once the machine that took the lane over is about to ask the same page, does not send it: the hold is asked again at sending", async () => {
  const m = machines(6);
  const sent: { holder: string; url: string }[] = [];
  const f = freeze();
  let woken = false;
  // A's hold said yes; A freezes before its admission's transaction runs (a SIGSTOP there).
  const journalA = admitsAfter(m.journal, async (intent) => {
    if (intent.url === m.busy && !woken) {
      f.on = true;
      await f.until;
    }
  });
  // B, having taken the lane over, is about to ask that page: A wakes just then, and its
  // admission runs first.
  const journalB = admitsAfter(m.journal, async (intent) => {
    if (intent.url === m.busy && !woken) {
      woken = true;
      f.release();
      for (let i = 0; i < 50; i++) await new Promise<void>((r) => setImmediate(r));
    }
  });
  const transport =
    (holder: string) =>
    async (req: Parameters<Sim["transport"]>[0]): Promise<TransportResult> => {
      if (!req.url.endsWith("/robots.txt")) sent.push({ holder, url: req.url });
      return m.sim.transport(req);
    };
  // B starts once A is frozen; its lease on the lane runs out meanwhile.
  await bothNights(
    m,
    () => nightAs(m, A, journalA, transport(A)),
    () => nightAs(m, B, journalB, transport(B)),
    () => f.on,
  );
  const { sim, store, busy } = m;
  // The page asked once, by the lane's new holder; every page once.
  expect(sent.filter((s) => s.url === busy).map((s) => s.holder)).toEqual([B]);
  expect(sent).toHaveLength(6);
  expect(new Set(sent.map((s) => s.url)).size).toBe(6);
  for (const src of sim.catalog.sources)
    expect(store.outcomeOf(src.id, NIGHT)?.kind, src.id).toBe("ok");
});

it("P8, P23: a worker frozen in the middle of a source wakes while the machine that took its lane over is asking that source's page: it records nothing for the source (no checker error), and the new holder's answer is the source's outcome", async () => {
  const m = machines(5);
  const sent: { holder: string; url: string; status: number }[] = [];
  const errors: string[] = [];
  const f = freeze();
  // A's journal: after the page answered 503, A freezes in its wait to retry it.
  const journalA = admitsAfter(m.journal, async (intent) => {
    if (intent.url === m.busy && sent.some((s) => s.url === m.busy && s.status === 503)) {
      f.on = true;
      await f.until;
    }
  });
  // The new holder's answer to that page is slow: A wakes meanwhile.
  const slowBusy = async (req: Parameters<Sim["transport"]>[0]) => {
    if (req.url !== m.busy) return;
    f.release();
    await m.clock.sleep(10_000, req.signal);
  };
  const onError = (holder: string) => (id: string, err: unknown) =>
    errors.push(`${holder} ${id} ${String(err)}`);
  await bothNights(
    m,
    () => nightAs(m, A, journalA, busy503(m, A, sent, slowBusy), onError(A)),
    () => nightAs(m, B, m.journal, busy503(m, B, sent, slowBusy), onError(B)),
    () => f.on,
  );
  const { sim, store, busy } = m;
  expect(sent.filter((s) => s.url === busy).map((s) => `${s.holder} ${s.status}`)).toEqual([
    `${A} 503`,
    `${B} 200`,
  ]);
  expect(errors).toEqual([]);
  for (const src of sim.catalog.sources)
    expect(store.outcomeOf(src.id, NIGHT), src.id).toMatchObject({ kind: "ok" });
});

it.each([
  ["while the other is still asking that page", "asking"],
  ["after the other finished the lane", "finished"],
] as const)(
  "P8, P27: a worker frozen with a request on the wire past its lane's and its request's leases, woken %s, leaves the row the other marked interrupted so (what the site answered written on it, said as late), and records nothing for the source",
  async (_when, wake) => {
    const m = machines(4);
    const sent: { holder: string; url: string }[] = [];
    const errors: string[] = [];
    const f = freeze();
    // A freezes with the busy page's request on the wire (a SIGSTOP after it was sent): the
    // site answers meanwhile, and A reads that answer once it wakes.
    const transport =
      (holder: string) =>
      async (req: Parameters<Sim["transport"]>[0]): Promise<TransportResult> => {
        if (req.url.endsWith("/robots.txt")) return m.sim.transport(req);
        sent.push({ holder, url: req.url });
        if (holder === A && req.url === m.busy) {
          f.on = true;
          await f.until;
        }
        return m.sim.transport(req);
      };
    const onError = (holder: string) => (id: string, err: unknown) =>
      errors.push(`${holder} ${id} ${String(err)}`);
    await bothNights(
      m,
      () => nightAs(m, A, m.journal, transport(A), onError(A)),
      () => nightAs(m, B, m.journal, transport(B), onError(B)),
      () => f.on,
      (bStarted, bEnded) => {
        const bAsked = sent.some((s) => s.holder === B && s.url === m.busy);
        if (bStarted && (wake === "asking" ? bAsked : bEnded)) f.release();
      },
    );
    const { sim, store, busy, journal } = m;
    // B took the page over once A's request lease ran out, and marked A's row interrupted; A's
    // late answer left it so (counted as sent, not replayed), with what the site said on it.
    const rows = journal.entries.filter((e) => e.url === busy);
    expect(rows.map((e) => e.outcome)).toEqual(["interrupted", "ok"]);
    expect(rows[0]?.endedAt).toEqual(expect.any(Number));
    expect(rows[0]?.status).toBe(200);
    expect(rows[0]?.failure).toMatch(/^answered late \(ok\)/);
    // The site's last end is at least the late answer's (P10).
    expect(journal.lastEnd(rows[0]?.site ?? "")).toBeGreaterThanOrEqual(rows[0]?.endedAt ?? 0);
    expect(errors).toEqual([]);
    for (const src of sim.catalog.sources)
      expect(store.outcomeOf(src.id, NIGHT), src.id).toMatchObject({ kind: "ok" });
  },
);
