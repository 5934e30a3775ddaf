import { describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/clock.js";
import type {
  Admitted,
  Completion,
  JournalPort,
  SendIntent,
  StoredAnswer,
} from "../../../src/net/journal.js";
import { MemoryJournal } from "../../../src/net/memory-ports.js";
import type { Call, Reply } from "../../../src/net/pipeline.js";
import { SiteQueue, siteGate } from "../../../src/net/steps/site-gate.js";
import { MIN_GAP_MS } from "../../../src/policy/constants.js";
import { call, fakeNext, ok } from "./fakes.js";

/** A journal whose admissions are scripted; it records what it was asked. */
class ScriptedJournal implements JournalPort {
  readonly intents: SendIntent[] = [];
  readonly times: unknown[] = [];
  constructor(
    private readonly script: Admitted[],
    private readonly stored?: StoredAnswer,
  ) {}
  async admit(intent: SendIntent, _holder: string, now: unknown): Promise<Admitted> {
    this.intents.push(intent);
    this.times.push(now);
    const a = this.script.shift();
    if (!a) throw new Error("admitted more often than scripted");
    await this.during?.();
    return a;
  }
  readonly completed: { id: string; c: Completion }[] = [];
  /** Runs inside admit, as the transaction's commit would take its time. */
  during?: () => Promise<void>;
  async complete(id: string, _holder: string, c: Completion): Promise<void> {
    this.completed.push({ id, c });
  }
  async answer(): Promise<StoredAnswer | undefined> {
    return this.stored;
  }
}

function gate(journal: JournalPort, over: { crawlDelayMs?: number; clock?: ManualClock } = {}) {
  const clock = over.clock ?? new ManualClock();
  return {
    clock,
    step: siteGate({
      clock,
      journal,
      holder: "host:1:a",
      queue: new SiteQueue(),
      night: () => "2026-11-05",
      deadline: clock.now() + 3_600_000,
      floorGap: () => MIN_GAP_MS,
      crawlDelayMs: async () => over.crawlDelayMs ?? 0,
    }),
  };
}

const go = (id = "1"): Admitted => ({
  kind: "go",
  attempt: 1,
  priorAllClosed: false,
  id,
  startedAt: 5,
});

describe("step: site gate (P9, P10, P13)", () => {
  it("P10: after its own request to a site, the process sleeps the gap before asking the journal (no round trip only to hear wait)", async () => {
    const j = new ScriptedJournal([go("1"), go("2")]);
    const { clock, step } = gate(j);
    const { next } = fakeNext(ok("x"));
    await step(next)(call());
    const second = step(next)(call({ url: "https://www.records.example.gov/two" }));
    for (let i = 0; i < 20; i++) await Promise.resolve();
    expect(j.intents).toHaveLength(1);
    await clock.advance(MIN_GAP_MS + 1);
    await second;
    expect(j.intents).toHaveLength(2);
  });

  it("P13: the deadline passes while the row is written: not sent, and the row says why", async () => {
    const j = new ScriptedJournal([go("row-9")]);
    const { clock, step } = gate(j);
    // The decision was made before the deadline; the commit ended after it.
    j.during = () => clock.advance(3_600_001);
    const { next, calls } = fakeNext(ok("x"));
    const reply = await step(next)(call());
    expect(calls).toHaveLength(0);
    expect(reply).toMatchObject({ kind: "final", outcome: { kind: "deadline" } });
    expect(j.completed).toEqual([
      { id: "row-9", c: expect.objectContaining({ outcome: "deadline", bytes: 0, final: false }) },
    ]);
  });

  it("P10, P27: asks the journal with the gap (floor or Crawl-delay), the time read inside its transaction; on go the row's ticket goes down", async () => {
    const j = new ScriptedJournal([go("row-7")]);
    const { next, calls } = fakeNext(ok("x"));
    await gate(j, { crawlDelayMs: 9000 }).step(next)(call({ source: "s1", purpose: "backfill" }));
    expect(j.intents[0]).toMatchObject({
      night: "2026-11-05",
      site: "example.gov",
      origin: "https://www.records.example.gov",
      source: "s1",
      purpose: "backfill",
      gapMs: 9000,
      replayAllowed: true,
    });
    expect(typeof j.times[0]).toBe("function");
    expect(calls[0]?.ticket).toEqual({
      kind: "send",
      id: "row-7",
      night: "2026-11-05",
      attempt: 1,
      priorAllClosed: false,
      startedAt: 5,
    });
  });

  it("P10: 'wait' sleeps on the clock until then and asks again", async () => {
    const clock = new ManualClock();
    const j = new ScriptedJournal([{ kind: "wait", until: clock.now() + 2000, why: "gap" }, go()]);
    const { next, calls } = fakeNext(ok("x"));
    const done = gate(j, { clock }).step(next)(call());
    await new Promise((r) => setTimeout(r, 0));
    expect(calls).toHaveLength(0);
    await clock.advance(2000);
    await done;
    expect(calls).toHaveLength(1);
    expect(j.intents).toHaveLength(2);
  });

  it.each([
    [
      { kind: "closed", reason: "HTTP 403" },
      { kind: "site-closed", reason: "HTTP 403" },
    ],
    [
      { kind: "left-alone", reason: "owner" },
      { kind: "disallowed", reason: "owner" },
    ],
    [{ kind: "not-tonight", reason: "after the deadline" }, { kind: "deadline" }],
    [
      { kind: "exhausted", priorAllClosed: true },
      { kind: "error", status: null },
    ],
  ] as const)("P13, P21: admission %j sends nothing and answers %j", async (a, outcome) => {
    const j = new ScriptedJournal([a as Admitted]);
    const { next, calls } = fakeNext(ok("x"));
    expect(await gate(j).step(next)(call())).toMatchObject({ kind: "final", outcome });
    expect(calls).toHaveLength(0);
  });

  it("P8: an answer stored tonight is replayed; when its copy is gone, the request is asked again", async () => {
    const stored: StoredAnswer = {
      kind: "failure",
      failure: "reset",
      message: "x",
      startedAt: 1,
      endedAt: 2,
      attempt: 1,
      priorAllClosed: false,
    };
    const j = new ScriptedJournal([{ kind: "answered" }, go()], stored);
    const { next, calls } = fakeNext(
      (_c: Call, n: number): Reply => (n === 1 ? { kind: "unreplayable" } : ok("x")),
    );
    await gate(j).step(next)(call());
    expect(calls.map((c) => c.ticket?.kind)).toEqual(["replay", "send"]);
    expect(j.intents.map((i) => i.replayAllowed)).toEqual([true, false]);
  });

  it("P9, P10: with the real journal, a second request to the site starts no sooner than 2 s after the first ended", async () => {
    const clock = new ManualClock();
    const journal = new MemoryJournal();
    const { step } = gate(journal, { clock });
    const started: number[] = [];
    const handler = step(async (c) => {
      started.push(clock.now());
      await clock.sleep(700); // the answer takes 0.7 s to arrive
      const t = c.ticket?.kind === "send" ? c.ticket : undefined;
      await journal.complete(t?.id ?? "", "host:1:a", {
        endedAt: clock.now(),
        status: 200,
        outcome: "ok",
        bytes: 0,
        final: true,
        closedEarly: false,
      });
      return ok(c.url);
    });
    let done = false;
    const both = Promise.all([
      handler(call({ url: "https://www.records.example.gov/a" })),
      handler(call({ url: "https://permits.example.gov/b" })),
    ]).finally(() => {
      done = true;
    });
    for (let i = 0; i < 50 && !done; i++) {
      await new Promise((r) => setTimeout(r, 0));
      await clock.step();
    }
    await both;
    expect(started).toHaveLength(2);
    expect(started[1]! - (started[0]! + 700)).toBeGreaterThanOrEqual(MIN_GAP_MS);
  });
});
