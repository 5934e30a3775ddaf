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
import { type Call, NotHeld, type Reply } from "../../../src/net/pipeline.js";
import {
  LATEST_SEND_MS,
  MIN_ADMIT_AHEAD_MS,
  SiteQueue,
  siteGate,
} from "../../../src/net/steps/site-gate.js";
import { MAX_AHEAD_MS } from "../../../src/policy/admission.js";
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
  async complete(id: string, _holder: string, c: Completion): Promise<boolean> {
    this.completed.push({ id, c });
    return true;
  }
  async waitAsked(): Promise<void> {}
  async answer(): Promise<StoredAnswer | undefined> {
    return this.stored;
  }
  /** The owner rules' token at sending: "r0" unless a test changes it meanwhile. */
  rules = "r0";
  /** Runs inside rulesNow, as a read waiting behind another write would take its time. */
  rulesDuring?: () => Promise<void>;
  async rulesNow(): Promise<string> {
    await this.rulesDuring?.();
    return this.rules;
  }
}

function gate(
  journal: JournalPort,
  over: { crawlDelayMs?: number | (() => number); clock?: ManualClock } = {},
) {
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
      crawlDelayMs: async () =>
        typeof over.crawlDelayMs === "function" ? over.crawlDelayMs() : (over.crawlDelayMs ?? 0),
    }),
  };
}

/** ManualClock's default start: a request admitted for now. */
const T0 = new ManualClock().now();

const go = (id = "1", startedAt = T0): Admitted => ({
  kind: "go",
  attempt: 1,
  priorAllClosed: false,
  id,
  startedAt,
  rules: "r0",
});

/**
 * Two requests to one site (example.gov) through the gate with `journal`, each answered 0.7 s
 * after it is sent and completed in the journal, the clock stepped until both are done: what
 * each gave, and when each was sent. `sending` runs as each leaves.
 */
async function twoToOneSite(
  journal: MemoryJournal,
  clock: ManualClock,
  sending: (c: Call) => void = () => {},
): Promise<{ replies: Reply[]; sent: { url: string; at: number }[] }> {
  const { step } = gate(journal, { clock });
  const sent: { url: string; at: number }[] = [];
  const handler = step(async (c) => {
    sent.push({ url: c.url, at: clock.now() });
    sending(c);
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
  return { replies: await both, sent };
}

describe("the site queue's lead for admissions", () => {
  it("P10: asks the journal ahead by twice its slowest recent admission, within the bounds", () => {
    const q = new SiteQueue();
    expect(q.aheadMs()).toBe(MIN_ADMIT_AHEAD_MS);
    q.admissionTook(3);
    expect(q.aheadMs()).toBe(MIN_ADMIT_AHEAD_MS);
    q.admissionTook(120);
    expect(q.aheadMs()).toBe(240);
    q.admissionTook(5_000);
    expect(q.aheadMs()).toBe(MAX_AHEAD_MS);
    // Only the last admissions count: a slow one is forgotten.
    for (let i = 0; i < 40; i++) q.admissionTook(10);
    expect(q.aheadMs()).toBe(MIN_ADMIT_AHEAD_MS);
  });
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

  it("P10: admitted ahead, the request is sent at its planned start, never before", async () => {
    const clock = new ManualClock();
    const planned = clock.now() + 200;
    const j = new ScriptedJournal([go("row-3", planned)]);
    const { next, calls } = fakeNext(ok("x"));
    const sentAt: number[] = [];
    const done = gate(j, { clock }).step(async (c) => {
      sentAt.push(clock.now());
      return next(c);
    })(call());
    for (let i = 0; i < 20; i++) await Promise.resolve();
    expect(j.intents[0]).toMatchObject({ aheadMs: MIN_ADMIT_AHEAD_MS });
    expect(calls).toHaveLength(0);
    await clock.advance(199);
    expect(calls).toHaveLength(0);
    await clock.advance(1);
    await done;
    expect(sentAt).toEqual([planned]);
    expect(calls[0]?.ticket).toMatchObject({ kind: "send", id: "row-3", startedAt: planned });
  });

  it("P16: a robots.txt copy that stops serving before the planned start: not sent, the row completed as not sent, robots-stale up to the robots gate; one already stale is not even admitted", async () => {
    const clock = new ManualClock();
    const j = new ScriptedJournal([go("row-7", clock.now() + 200)]);
    const { next, calls } = fakeNext(ok("x"));
    const done = gate(j, { clock }).step(next)(call({ robotsServesUntil: clock.now() + 150 }));
    for (let i = 0; i < 20; i++) await Promise.resolve();
    await clock.advance(200);
    expect(await done).toEqual({ kind: "robots-stale" });
    expect(calls).toHaveLength(0);
    expect(j.completed).toEqual([
      {
        id: "row-7",
        c: expect.objectContaining({ outcome: "interrupted", bytes: 0, status: null }),
      },
    ]);
    // Already past it when it comes: no admission, no row.
    const j2 = new ScriptedJournal([]);
    expect(await gate(j2, { clock }).step(next)(call({ robotsServesUntil: clock.now() }))).toEqual({
      kind: "robots-stale",
    });
    expect(j2.intents).toHaveLength(0);
    expect(calls).toHaveLength(0);
  });

  it("P10, P27: stopped while waiting for its planned start: not sent, the row completed as not sent", async () => {
    const clock = new ManualClock();
    const j = new ScriptedJournal([go("row-4", clock.now() + 200)]);
    const { next, calls } = fakeNext(ok("x"));
    const stop = new AbortController();
    const done = gate(j, { clock }).step(next)(call({ signal: stop.signal }));
    for (let i = 0; i < 20; i++) await Promise.resolve();
    stop.abort(new Error("stopped"));
    await expect(done).rejects.toThrow("stopped");
    expect(calls).toHaveLength(0);
    expect(j.completed).toEqual([
      {
        id: "row-4",
        c: expect.objectContaining({ outcome: "interrupted", bytes: 0, status: null }),
      },
    ]);
  });

  it("P27, P10: stopped before its planned start, the row never ends before it starts (the gap counts from the planned start)", async () => {
    const clock = new ManualClock();
    const planned = clock.now() + 200;
    const j = new ScriptedJournal([go("row-5", planned)]);
    const { next, calls } = fakeNext(ok("x"));
    const stop = new AbortController();
    const done = gate(j, { clock }).step(next)(call({ signal: stop.signal }));
    for (let i = 0; i < 20; i++) await Promise.resolve();
    await clock.advance(30);
    stop.abort(new Error("stopped"));
    await expect(done).rejects.toThrow("stopped");
    expect(calls).toHaveLength(0);
    expect(j.completed).toHaveLength(1);
    expect(j.completed[0]?.c.endedAt).toBeGreaterThanOrEqual(planned);
  });

  it("P27, P15: stopped before it is admitted, nothing is asked of the journal: no row for a request that never leaves", async () => {
    const j = new ScriptedJournal([go("row-6")]);
    const { next, calls } = fakeNext(ok("x"));
    const stop = new AbortController();
    stop.abort(new Error("the command was stopped (SIGTERM)"));
    await expect(gate(j).step(next)(call({ signal: stop.signal }))).rejects.toThrow(
      "the command was stopped",
    );
    expect(j.intents).toHaveLength(0);
    expect(j.completed).toHaveLength(0);
    expect(calls).toHaveLength(0);
  });

  it("P13: the deadline passes while the owner rules are read again at sending: not sent", async () => {
    const j = new ScriptedJournal([go("row-8")]);
    const { clock, step } = gate(j);
    j.rulesDuring = () => clock.advance(3_600_001);
    const { next, calls } = fakeNext(ok("x"));
    const reply = await step(next)(call());
    expect(calls).toHaveLength(0);
    expect(reply).toMatchObject({ kind: "final", outcome: { kind: "deadline" } });
    expect(j.completed).toEqual([
      { id: "row-8", c: expect.objectContaining({ outcome: "deadline", bytes: 0, final: false }) },
    ]);
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
      startedAt: T0,
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

  it("P10: the gap is read again at each admission: a Crawl-delay another process stored while the request waited is the one its row is admitted with", async () => {
    const clock = new ManualClock();
    const j = new ScriptedJournal([
      { kind: "wait", until: clock.now() + 2000, why: "lease" },
      { kind: "answered" },
      go(),
    ]);
    // Nothing known of the origin's robots.txt at first; 30 s once another machine's read of
    // it is stored (robots cache), as the request waits on that read's lease.
    // Its answer then stored without a copy here (another machine's archive): asked again.
    let delay = 0;
    const { next, calls } = fakeNext(ok("x"));
    const done = gate(j, { clock, crawlDelayMs: () => delay }).step(next)(call());
    await new Promise((r) => setTimeout(r, 0));
    delay = 30_000;
    await clock.advance(2000);
    await done;
    expect(calls.map((c) => c.ticket?.kind)).toEqual(["send"]);
    expect(j.intents.map((i) => i.gapMs)).toEqual([MIN_GAP_MS, 30_000, 30_000]);
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

  it("P8, P9: a request whose caller no longer holds its work (a lane taken over while the worker was frozen) is not admitted: NotHeld, no row, nothing sent", async () => {
    const j = new ScriptedJournal([go()]);
    const { next, calls } = fakeNext(ok("x"));
    let asked = 0;
    const held = async () => {
      asked++;
      return false;
    };
    await expect(gate(j).step(next)(call({ held }))).rejects.toBeInstanceOf(NotHeld);
    expect(asked).toBe(1);
    expect(j.intents).toHaveLength(0);
    expect(calls).toHaveLength(0);
    // Held, it goes as ever, the hold asked before its admission.
    const j2 = new ScriptedJournal([go()]);
    const sent = fakeNext(ok("x"));
    await gate(j2).step(sent.next)(call({ held: async () => true }));
    expect(sent.calls).toHaveLength(1);
  });

  it("P8, P9: a lane taken over while its worker was frozen between asking its hold and the admission's transaction (the hold said yes, the journal then said go): not sent, its row says why, NotHeld", async () => {
    const j = new ScriptedJournal([go()]);
    const { next, calls } = fakeNext(ok("x"));
    // The worker held its lane when it asked; it froze before the admission's transaction ran
    // and woke past its lease, the lane another's: the hold, asked again, says no.
    let taken = false;
    j.during = async () => {
      taken = true;
    };
    let asked = 0;
    const held = async () => {
      asked++;
      return !taken;
    };
    await expect(gate(j).step(next)(call({ held }))).rejects.toBeInstanceOf(NotHeld);
    expect(calls).toHaveLength(0);
    expect(asked).toBe(2);
    expect(j.completed).toEqual([
      {
        id: "1",
        c: expect.objectContaining({
          status: null,
          outcome: "interrupted",
          bytes: 0,
          final: false,
          failure: expect.stringMatching(/^not sent: .*lane/),
        }),
      },
    ]);
  });

  it("P9, P27: a lane's hold that cannot be read at sending (its claim failed: the store gone) leaves no row in flight holding the site: not sent, the failure thrown", async () => {
    const j = new ScriptedJournal([go()]);
    const { next, calls } = fakeNext(ok("x"));
    let asked = 0;
    const held = async () => {
      if (++asked > 1) throw new Error("connection terminated");
      return true;
    };
    await expect(gate(j).step(next)(call({ held }))).rejects.toThrow("connection terminated");
    expect(calls).toHaveLength(0);
    expect(j.completed).toEqual([
      {
        id: "1",
        c: expect.objectContaining({
          outcome: "interrupted",
          bytes: 0,
          failure: expect.stringMatching(/^not sent: .*hold could not be read/),
        }),
      },
    ]);
  });

  it("P8, P9: a hold said at once (a plain boolean, as a lane within its lease says it) or by any promise-like is read as said at both questions: false is never taken for held", async () => {
    // Said no at once, before the admission: NotHeld, no row.
    const j = new ScriptedJournal([go()]);
    const first = fakeNext(ok("x"));
    await expect(gate(j).step(first.next)(call({ held: () => false }))).rejects.toBeInstanceOf(
      NotHeld,
    );
    expect(j.intents).toHaveLength(0);
    expect(first.calls).toHaveLength(0);
    // Yes at once before the admission, no at once at sending: not sent, its row says why.
    const j2 = new ScriptedJournal([go()]);
    const second = fakeNext(ok("x"));
    let asked = 0;
    await expect(
      gate(j2).step(second.next)(call({ held: () => ++asked === 1 })),
    ).rejects.toBeInstanceOf(NotHeld);
    expect(second.calls).toHaveLength(0);
    expect(j2.completed).toEqual([
      { id: "1", c: expect.objectContaining({ failure: expect.stringMatching(/lane/) }) },
    ]);
    // A promise-like that is no native Promise (another realm's, a library's): awaited, never
    // taken for a yes because it is an object.
    const j3 = new ScriptedJournal([go()]);
    const third = fakeNext(ok("x"));
    // biome-ignore lint/suspicious/noThenProperty: a thenable on purpose, no native Promise
    const no = { then: (ok: (v: boolean) => void) => ok(false) } as unknown as Promise<boolean>;
    await expect(gate(j3).step(third.next)(call({ held: () => no }))).rejects.toBeInstanceOf(
      NotHeld,
    );
    expect(j3.intents).toHaveLength(0);
    expect(third.calls).toHaveLength(0);
    // Held at once, it goes as ever.
    const j4 = new ScriptedJournal([go()]);
    const fourth = fakeNext(ok("x"));
    await gate(j4).step(fourth.next)(call({ held: () => true }));
    expect(fourth.calls).toHaveLength(1);
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
    const { sent } = await twoToOneSite(new MemoryJournal(), clock);
    const started = sent.map((x) => x.at);
    expect(started).toHaveLength(2);
    expect(started[1]! - (started[0]! + 700)).toBeGreaterThanOrEqual(MIN_GAP_MS);
  });

  it("P26, P27: an owner's rule set between the admission and the planned start (another process's `nor site`): not sent, its row says why, and decided again under the rule", async () => {
    const j = new ScriptedJournal([
      go("row-4", 1_000),
      { kind: "closed", reason: "the site's owner asked not to be read" },
    ]);
    const clock = new ManualClock();
    const { step } = gate(j, { clock });
    // Committed while this request waited for its planned start.
    j.during = async () => {
      delete j.during;
      j.rules = "r1";
    };
    const { next, calls } = fakeNext(ok("x"));
    const replying = step(next)(call());
    for (let i = 0; i < 20; i++) {
      await new Promise((r) => setTimeout(r, 0));
      await clock.step();
    }
    const reply = await replying;
    expect(calls).toHaveLength(0);
    expect(reply).toMatchObject({ kind: "final", outcome: { kind: "site-closed" } });
    expect(j.intents).toHaveLength(2);
    expect(j.completed).toEqual([
      {
        id: "row-4",
        c: expect.objectContaining({
          outcome: "interrupted",
          failure:
            "not sent: the site's owner rules or its state tonight (closed, down) changed after it was admitted",
          bytes: 0,
          final: false,
        }),
      },
    ]);
  });

  it("P9: a request held up past its lease between its admission and its start (a paused process) is not sent, its row says why, and it is decided again", async () => {
    const j = new ScriptedJournal([go("row-7", 1_000), go("row-8", 200_000)]);
    const clock = new ManualClock(0);
    const { step } = gate(j, { clock });
    // The process stands still meanwhile: by the time it reads the rules, 61 s have passed.
    let paused = false;
    j.rulesDuring = async () => {
      if (paused) return;
      paused = true;
      await clock.advance(LATEST_SEND_MS + 1_000);
    };
    const { next, calls } = fakeNext(ok("x"));
    const replying = step(next)(call());
    for (let i = 0; i < 40; i++) {
      await new Promise((r) => setTimeout(r, 0));
      await clock.step();
    }
    await replying;
    expect(LATEST_SEND_MS).toBe(60_000);
    expect(j.completed).toEqual([
      {
        id: "row-7",
        c: expect.objectContaining({
          outcome: "interrupted",
          failure: "not sent: held up past its lease on the site (another process may hold it now)",
          bytes: 0,
        }),
      },
    ]);
    // Asked again under a new admission, and sent under that one.
    expect(j.intents).toHaveLength(2);
    expect(calls.map((c) => c.ticket?.kind === "send" && c.ticket.id)).toEqual(["row-8"]);
  });

  it("P10, P26: with the real journal, a request admitted ahead is not sent when the site is closed by its owner before its start; the rules unchanged, it is sent", async () => {
    const clock = new ManualClock();
    const journal = new MemoryJournal();
    const admit = journal.admit.bind(journal);
    let admissions = 0;
    journal.admit = async (intent, holder, at) => {
      const a = await admit(intent, holder, at);
      // The second request's admission (ahead of its start): then the owner's rule lands.
      if (++admissions === 2 && a.kind === "go") {
        journal.rules.set("example.gov", [{ kind: "not-read", reason: "asked", at: clock.now() }]);
      }
      return a;
    };
    const { replies, sent } = await twoToOneSite(journal, clock);
    const [a, b] = replies;
    expect(sent.map((x) => x.url)).toEqual(["https://www.records.example.gov/a"]);
    expect(a).toMatchObject({ kind: "final", outcome: { kind: "ok" } });
    expect(b).toMatchObject({ kind: "final", outcome: { kind: "site-closed" } });
    expect(journal.entries.map((e) => [e.url, e.outcome])).toEqual([
      ["https://www.records.example.gov/a", "ok"],
      ["https://permits.example.gov/b", "interrupted"],
    ]);
  });

  it("P9, P10, P27: with the real journal, the next request is admitted ahead (its row and lease first) and sent exactly at the end + the gap + 1 ms", async () => {
    const clock = new ManualClock();
    const journal = new MemoryJournal();
    const admittedAt: number[] = [];
    const admit = journal.admit.bind(journal);
    journal.admit = (intent, holder, at) => {
      admittedAt.push(clock.now());
      return admit(intent, holder, at);
    };
    const { sent } = await twoToOneSite(journal, clock, (c) => {
      // When it leaves, its row is written and the site held (P9, P27).
      expect(journal.entries.at(-1)).toMatchObject({ outcome: "in-flight", url: c.url });
      expect(journal.sites.get("example.gov")?.lease).toBeDefined();
    });
    const started = sent.map((x) => x.at);
    const start = started[0]! + 700 + MIN_GAP_MS + 1;
    expect(started).toEqual([admittedAt[0], start]);
    expect(admittedAt[1]).toBe(start - MIN_ADMIT_AHEAD_MS);
    expect(journal.entries.map((e) => e.startedAt)).toEqual(started);
  });
});
