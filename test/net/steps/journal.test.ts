import { describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/clock.js";
import type { Completion, JournalPort } from "../../../src/net/journal.js";
import type { Judged, Reply, Ticket } from "../../../src/net/pipeline.js";
import { ClosedSites } from "../../../src/net/steps/closed-site.js";
import { journal } from "../../../src/net/steps/journal.js";
import { call, fakeNext, got, response } from "./fakes.js";

class RecordingJournal implements JournalPort {
  readonly completed: [string, Completion][] = [];
  async admit(): Promise<never> {
    throw new Error("the journal step never admits (the site gate does)");
  }
  async complete(id: string, _holder: string, c: Completion) {
    this.completed.push([id, c]);
    return true;
  }
  async waitAsked(): Promise<void> {}
  async answer() {
    return undefined;
  }
  async rulesNow() {
    return "";
  }
}

const sent: Ticket = {
  kind: "send",
  id: "row-3",
  night: "2026-11-05",
  attempt: 2,
  priorAllClosed: true,
  startedAt: 1000,
};

function setup() {
  const j = new RecordingJournal();
  const closed = new ClosedSites();
  const clock = new ManualClock();
  return { j, closed, clock, step: journal({ clock, journal: j, holder: "h", closed }) };
}

const judged = (over: Partial<Judged> = {}): Judged => ({
  label: "ok",
  final: true,
  closedEarly: false,
  ...over,
});

describe("step: journal (P27)", () => {
  it("P27, P8: the admitted row is completed with what the attempt came to, and its answer for replay", async () => {
    const { j, step } = setup();
    const answer = response(200, {
      headers: { etag: '"v2"', "last-modified": "Wed, 04 Nov 2026 10:00:00 GMT" },
      setCookies: ["sid=1"],
      body: "<li>bid</li>",
    });
    const reply: Reply = {
      kind: "final",
      outcome: { kind: "gone", url: "x", status: 404 },
      got: got(answer, { archived: true, judged: judged() }),
    };
    const { next } = fakeNext(reply);
    expect(await step(next)(call({ ticket: sent, source: "s1" }))).toBe(reply);
    expect(j.completed).toEqual([
      [
        "row-3",
        {
          endedAt: 1500,
          status: 200,
          bytes: 12,
          outcome: "ok",
          validatorsReceived: { etag: '"v2"', lastModified: "Wed, 04 Nov 2026 10:00:00 GMT" },
          final: true,
          closedEarly: false,
          answer: expect.objectContaining({
            kind: "response",
            status: 200,
            setCookies: ["sid=1"],
            archived: true,
            source: "s1",
            attempt: 2,
            priorAllClosed: true,
          }),
        },
      ],
    ]);
  });

  it("P15, RFC 9110 §10.2.3: a Retry-After on a 3xx holds the site that sent it; on a 304 or a 404 it does not", async () => {
    const holdOf = async (status: number) => {
      const { j, step } = setup();
      const answer = response(status, {
        headers: { location: "/notice", "retry-after": "30" },
      });
      const { next } = fakeNext({
        kind: "final",
        outcome: { kind: "error", url: "x", status, reason: "r" },
        got: got(answer, { judged: judged({ label: "redirect" }) }),
      });
      await step(next)(call({ ticket: sent }));
      return j.completed[0]?.[1].siteNotBefore;
    };
    expect(await holdOf(302)).toBe(31_500);
    expect(await holdOf(307)).toBe(31_500);
    expect(await holdOf(304)).toBeUndefined();
    expect(await holdOf(404)).toBeUndefined();
  });

  it("P15, P21: a retry's wait, a Retry-After's hold on the site, a no that closes it", async () => {
    const { j, closed, step } = setup();
    const answer = response(503, { headers: { "retry-after": "30" } });
    const { next } = fakeNext({
      kind: "retry",
      waitMs: 30_000,
      got: got(answer, { judged: judged({ label: "retry", final: false, retryWaitMs: 30_000 }) }),
    });
    await step(next)(call({ ticket: sent }));
    expect(j.completed[0]?.[1]).toMatchObject({ retryAt: 31_500, siteNotBefore: 31_500 });
    expect(j.completed[0]?.[1].answer).toBeUndefined();
    const no = fakeNext({
      kind: "final",
      outcome: { kind: "gone", url: "x", status: 403 },
      got: got(response(403), { judged: judged({ label: "refused", closeSite: "HTTP 403" }) }),
    });
    await step(no.next)(call({ ticket: sent }));
    expect(j.completed[1]?.[1].closeSite).toBe("HTTP 403");
    expect(closed.reason("2026-11-05", "example.gov")).toBe("HTTP 403");
  });

  it("P21: a no whose completion cannot be written (the store's connection lost, PostgreSQL restarting) still closes the site for the night in this process (its closed-site step answers the lane's next request), and the error goes up", async () => {
    const { closed, clock } = setup();
    const lost: JournalPort = {
      admit: async () => {
        throw new Error("never");
      },
      waitAsked: async () => {},
      answer: async () => undefined,
      rulesNow: async () => "",
      complete: async () => {
        throw new Error("Connection terminated unexpectedly");
      },
    };
    const step = journal({ clock, journal: lost, holder: "h", closed });
    const no = fakeNext({
      kind: "final",
      outcome: { kind: "gone", url: "x", status: 200 },
      got: got(response(200), {
        judged: judged({ label: "refused", closeSite: "challenge page (cloudflare)" }),
      }),
    });
    await expect(step(no.next)(call({ ticket: sent }))).rejects.toThrow("Connection terminated");
    expect(closed.reason("2026-11-05", "example.gov")).toBe("challenge page (cloudflare)");
  });

  it("P10, P27: when a step below throws, the row still gets its end (interrupted), then the error goes up", async () => {
    const { j, clock, step } = setup();
    const boom = async () => {
      throw new Error("socket exploded");
    };
    await expect(step(boom)(call({ ticket: sent }))).rejects.toThrow("socket exploded");
    expect(j.completed[0]?.[1]).toMatchObject({
      endedAt: clock.now(),
      outcome: "interrupted",
      failure: "internal: socket exploded",
      final: false,
    });
    // The archive's disk was full: the answer's own end is recorded.
    const full = new Error("ENOSPC");
    const { next } = fakeNext({ kind: "answer", got: got(response(200), { failed: full }) });
    await expect(step(next)(call({ ticket: sent }))).rejects.toBe(full);
    expect(j.completed[1]?.[1]).toMatchObject({
      endedAt: 1500,
      status: 200,
      outcome: "interrupted",
    });
  });

  it("P8: a replayed answer has no row of its own", async () => {
    const { j, step } = setup();
    const { next } = fakeNext({ kind: "final", outcome: { kind: "gone", url: "x", status: 404 } });
    const stored = { ...sent, kind: "replay" as const };
    await step(next)(
      call({
        ticket: {
          kind: "replay",
          night: stored.night,
          stored: {
            kind: "failure",
            failure: "reset",
            message: "",
            startedAt: 0,
            endedAt: 0,
            attempt: 1,
            priorAllClosed: false,
          },
        },
      }),
    );
    expect(j.completed).toEqual([]);
  });
});
