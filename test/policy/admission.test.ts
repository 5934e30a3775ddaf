import { describe, expect, it } from "vitest";
import {
  type AdmitInput,
  admit,
  gapWords,
  holdAsCounted,
  isWholeSiteRule,
  leavesAlone,
  MAX_AHEAD_MS,
  type OwnerRule,
} from "../../src/policy/admission.js";

/** The pure admission: what the journal decides from the durable state (P9, P10). */
const NOW = Date.parse("2026-11-05T06:00:00Z");
function input(extra: Partial<AdmitInput>): AdmitInput {
  return {
    night: "2026-11-05",
    now: NOW,
    holder: "host:1:me",
    gapMs: 2000,
    isRobots: false,
    path: "/agendas",
    site: {},
    rules: [],
    prior: [],
    replayAllowed: true,
    holderDead: () => false,
    ...extra,
  };
}

describe("admission while another live process holds the site", () => {
  it("P9: waits for its lease, asking again at most every 250 ms", () => {
    const a = admit(input({ site: { lease: { holder: "host:2:other", until: NOW + 60_000 } } }));
    expect(a).toEqual({ kind: "wait", until: NOW + 250, why: "in flight" });
    const soon = admit(input({ site: { lease: { holder: "host:2:other", until: NOW + 100 } } }));
    expect(soon).toMatchObject({ kind: "wait", until: NOW + 100 });
  });

  it("P9: a live holder past its lease (a slow body) is polled every 250 ms, never with a zero wait", () => {
    const a = admit(input({ site: { lease: { holder: "host:2:other", until: NOW - 5_000 } } }));
    expect(a).toEqual({ kind: "wait", until: NOW + 250, why: "in flight" });
  });

  it("P9, P13: a live holder past its lease (frozen mid-request) is not waited on past the night's deadline: not tonight", () => {
    const lease = { holder: "machine-a:2:other", until: NOW - 5_000 };
    expect(admit(input({ site: { lease }, deadline: NOW + 60_000 }))).toMatchObject({
      kind: "wait",
      why: "in flight",
    });
    for (const deadline of [NOW + 1_999, NOW, NOW - 1])
      expect(admit(input({ site: { lease }, deadline }))).toMatchObject({ kind: "not-tonight" });
  });
});

describe("admission under a clock set back", () => {
  it("P10, P13: a site's last end stamped more than a minute after now (a clock that ran ahead, then set right) counts as now: the gap from now, never days away; within the minute it is kept as written", () => {
    const DAY = 86_400_000;
    expect(admit(input({ site: { lastEnd: NOW + 2 * DAY } }))).toEqual({
      kind: "wait",
      until: NOW + 2001,
      why: "gap",
    });
    expect(
      admit(input({ site: { lastEnd: NOW + 2 * DAY }, gapMs: 0, aheadMs: 250 })),
    ).toMatchObject({
      kind: "go",
      startedAt: NOW + 1,
    });
    expect(admit(input({ site: { lastEnd: NOW + 30_000 } }))).toMatchObject({
      kind: "wait",
      until: NOW + 32_001,
    });
  });
});

describe("admission ahead of the start (admit ahead, send on time)", () => {
  const ended = { site: { lastEnd: NOW - 1_900 } }; // earliest start: NOW + 101

  it("P10: within aheadMs of the earliest start, go with that start as the planned one, never sooner", () => {
    expect(admit(input({ ...ended, aheadMs: 250 }))).toEqual({
      kind: "go",
      attempt: 1,
      priorAllClosed: true,
      startedAt: NOW + 101,
    });
    // Nothing in the way: the planned start is now.
    expect(admit(input({ aheadMs: 250 }))).toMatchObject({ kind: "go", startedAt: NOW });
  });

  it("P10: further off than aheadMs, wait until aheadMs before the start; without aheadMs, until the start", () => {
    expect(admit(input({ ...ended, aheadMs: 50 }))).toEqual({
      kind: "wait",
      until: NOW + 51,
      why: "gap",
    });
    expect(admit(input(ended))).toEqual({ kind: "wait", until: NOW + 101, why: "gap" });
    // An unreadable or huge aheadMs is 0 or the bound, never a go far ahead.
    expect(admit(input({ ...ended, aheadMs: Number.NaN }))).toMatchObject({
      kind: "wait",
      until: NOW + 101,
    });
    const far = { site: { lastEnd: NOW + 10_000 } };
    expect(admit(input({ ...far, aheadMs: 60_000 }))).toMatchObject({
      kind: "wait",
      until: NOW + 12_001 - MAX_AHEAD_MS,
    });
  });

  it("P13, P15: the deadline is judged by the planned start; a Retry-After or retry wait is kept to", () => {
    expect(admit(input({ ...ended, aheadMs: 250, deadline: NOW + 100 }))).toMatchObject({
      kind: "not-tonight",
    });
    expect(admit(input({ ...ended, aheadMs: 250, deadline: NOW + 101 }))).toMatchObject({
      kind: "go",
      startedAt: NOW + 101,
    });
    expect(
      admit(input({ site: { lastEnd: NOW - 1_900, notBefore: NOW + 200 }, aheadMs: 250 })),
    ).toMatchObject({ kind: "go", startedAt: NOW + 200 });
    expect(
      admit(
        input({
          aheadMs: 250,
          prior: [{ final: false, closedEarly: false, interrupted: false, retryAt: NOW + 5_000 }],
        }),
      ),
    ).toEqual({ kind: "wait", until: NOW + 4_750, why: "gap" });
  });
});

describe("one request's sends in a night (P15)", () => {
  const cut = { final: false, closedEarly: true, interrupted: true };
  const ended = { site: { lastEnd: NOW - 10_000 } };

  it("P15: attempts the checker's own death cut short count as sends: a third is the last, the fourth not sent", () => {
    // Numbered as the site saw them: the third; and not "closed on every attempt" by the site.
    expect(admit(input({ ...ended, prior: [cut, cut] }))).toMatchObject({
      kind: "go",
      attempt: 3,
      priorAllClosed: false,
    });
    expect(admit(input({ ...ended, prior: [cut, cut, cut] }))).toMatchObject({
      kind: "exhausted",
    });
    // With a try the site answered (a 503 and its wait) in the count too.
    const tried = { final: false, closedEarly: false, interrupted: false, retryAt: NOW - 1 };
    expect(admit(input({ ...ended, prior: [tried, cut, cut] }))).toMatchObject({
      kind: "exhausted",
    });
  });

  it("P15: an attempt stopped before it was sent (admitted ahead, then a stop or an owner's rule) is no send", () => {
    const unsent = { ...cut, closedEarly: false, notSent: true };
    expect(admit(input({ ...ended, prior: [unsent, unsent, unsent, cut, cut] }))).toMatchObject({
      kind: "go",
    });
  });
});

describe("an owner's path left alone, read as robots.txt reads a path", () => {
  const alone = (prefix: string): OwnerRule => ({
    kind: "leave-alone",
    prefix,
    reason: "owner, e-mail",
    at: NOW,
  });
  const kind = (prefix: string, path: string, isRobots = false) =>
    admit(input({ rules: [alone(prefix)], path, isRobots })).kind;

  it("P26: `*` is any run of characters and a final `$` the end of the path; without them a rule is a prefix", () => {
    expect(kind("/permits/*/feed", "/permits/2026/feed")).toBe("left-alone");
    expect(kind("/permits/*/feed", "/permits/2026/residential/feed.xml")).toBe("left-alone");
    expect(kind("/permits/*/feed", "/permits/list")).toBe("go");
    expect(kind("/x/feed.rss$", "/x/feed.rss")).toBe("left-alone");
    expect(kind("/x/feed.rss$", "/x/feed.rss?all=1")).toBe("go");
    expect(kind("/x/feed.rss$", "/x/feed.rss2")).toBe("go");
    expect(kind("/*.pdf$", "/minutes/2026/jan.pdf")).toBe("left-alone");
    expect(kind("/*.pdf$", "/minutes/2026/jan.pdf?v=2")).toBe("go");
    expect(kind("/permits/", "/permits/2026")).toBe("left-alone");
    expect(kind("/permits/", "/permit")).toBe("go");
    // A `$` that does not end the rule is a character of the path, as in robots.txt.
    expect(kind("/a$b", "/a$b/c")).toBe("left-alone");
    expect(kind("/a$b", "/a")).toBe("go");
    // Both sides in one percent-encoded form, patterns too.
    expect(kind("/public notices/*.pdf", "/public%20notices/2026/a.pdf")).toBe("left-alone");
  });

  it("P26: the reason names the rule as the owner wrote it", () => {
    expect(admit(input({ rules: [alone("/permits/*/feed")], path: "/permits/1/feed" }))).toEqual({
      kind: "left-alone",
      reason:
        "the site's owner asked for /permits/*/feed to be left alone (2026-11-05: owner, e-mail)",
    });
  });

  it("P26: robots.txt itself is left alone only by a rule that covers every path (`/`, `/*`, `/*$`)", () => {
    for (const whole of ["/", "/*", "/*$", "/**"]) {
      expect(isWholeSiteRule(whole), whole).toBe(true);
      expect(kind(whole, "/robots.txt", true), whole).toBe("left-alone");
    }
    for (const part of ["/$", "/robots.txt", "/*.txt", "/permits/*", "/r*"]) {
      expect(isWholeSiteRule(part), part).toBe(false);
      expect(kind(part, "/robots.txt", true), part).toBe("go");
    }
  });

  it("leavesAlone is the robots.txt matcher on the normal forms", () => {
    expect(leavesAlone("/permits/*/feed", "/permits/a/feed")).toBe(true);
    expect(leavesAlone("/x$", "/x")).toBe(true);
    expect(leavesAlone("/x$", "/xy")).toBe(false);
  });

  it("P26: a rule written with a #fragment means the path before it, as a request's path never holds one", () => {
    expect(leavesAlone("/permits/#list", "/permits/2026/list.aspx")).toBe(true);
    expect(isWholeSiteRule("/#top")).toBe(true);
    expect(kind("/permits/#feeds", "/permits/feed.xml")).toBe("left-alone");
  });
});

describe("what held a request past the night, in words (P13)", () => {
  it("P13: a site's wait of two days with no deadline says it is more than a day away, not after a deadline", () => {
    const a = admit(input({ site: { lastEnd: NOW - 10_000, notBefore: NOW + 2 * 86_400_000 } }));
    expect(a).toMatchObject({ kind: "not-tonight" });
    const held = a.kind === "not-tonight" ? a.held : undefined;
    expect(held).toMatch(
      /^the site asked to wait until .* New York time \(.*\), more than a day away$/,
    );
  });

  it("P10, P13: an owner's day-long gap is said in hours, with the owner's words", () => {
    const rules: OwnerRule[] = [
      { kind: "gap", gapMs: 86_400_000, reason: "once a day please", at: NOW - 86_400_000 },
    ];
    const a = admit(input({ rules, site: { lastEnd: NOW - 60_000 }, deadline: NOW + 3_600_000 }));
    const held = a.kind === "not-tonight" ? a.held : undefined;
    expect(held).toMatch(
      /^the site's owner asked for at least 24 h between requests \(\d{4}-\d\d-\d\d: once a day please\): .*, after the night's deadline$/,
    );
    expect([gapWords(86_400_000), gapWords(5_400_000), gapWords(90_000), gapWords(45_000)]).toEqual(
      ["24 h", "1.5 h", "1.5 min", "45 s"],
    );
  });
});

describe("an answer that cannot be replayed (P8, P15)", () => {
  const answered = { final: true, closedEarly: false, interrupted: false };
  const retry = { final: false, closedEarly: false, interrupted: false, retryAt: NOW - 1 };

  it("P15: asked again when its copy cannot be read back, its answered send counts among the three", () => {
    // Once answered: asked once more, as the second send.
    expect(admit(input({ prior: [answered], replayAllowed: false }))).toMatchObject({
      kind: "go",
      attempt: 2,
      priorAllClosed: false,
    });
    // Answered on the third send (two 503s before it): no fourth.
    expect(admit(input({ prior: [retry, retry, answered], replayAllowed: false }))).toEqual({
      kind: "exhausted",
      priorAllClosed: false,
    });
    // Replayable, it is replayed as ever.
    expect(admit(input({ prior: [retry, retry, answered] }))).toEqual({ kind: "answered" });
  });
});

describe("admission on a site down tonight (P15, the project's stricter rule beside it)", () => {
  const down = { night: "2026-11-05", reason: "HTTP 503 after its retries", source: "s1" };

  it("P15, P4: the source whose request found the site down may still try its next way in; every other source is not sent", () => {
    expect(admit(input({ source: "s1", site: { down } })).kind).toBe("go");
    expect(admit(input({ source: "s2", site: { down } }))).toEqual({
      kind: "down",
      reason: "HTTP 503 after its retries",
    });
    // A request of no source (a recheck, a canary) is not the one that found it: not sent.
    expect(admit(input({ site: { down } })).kind).toBe("down");
    // Down without the source that found it: nothing more is sent tonight.
    const { source: _, ...anyone } = down;
    expect(admit(input({ source: "s1", site: { down: anyone } })).kind).toBe("down");
  });

  it("P15, P13: down on an earlier night holds nothing tonight", () => {
    const lastNight = { ...down, night: "2026-11-04" };
    expect(admit(input({ source: "s2", site: { down: lastNight } })).kind).toBe("go");
  });
});

describe("a site's hold after a clock set back (holdAsCounted)", () => {
  const now = Date.parse("2026-11-05T20:00:00Z");
  const DAY = 86_400_000;
  it("P10, P15, P20: a hold stamped with an end two days ahead lasts as long past that end, from now; one whose end is taken as written stays as written", () => {
    const end = now + 2 * DAY;
    expect(holdAsCounted(end + 120_000, end, now)).toBe(now + 120_000);
    // Never less than asked: an hour's hold is an hour from now.
    expect(holdAsCounted(end + 3_600_000, end, now)).toBe(now + 3_600_000);
    // An end within a minute of now is taken as written (END_AHEAD_KEPT_MS), and so is its hold.
    expect(holdAsCounted(now + 30_000 + 120_000, now + 30_000, now)).toBe(now + 150_000);
    expect(holdAsCounted(now + 2 * DAY, now - 1000, now)).toBe(now + 2 * DAY);
    expect(holdAsCounted(undefined, end, now)).toBeUndefined();
  });
});
