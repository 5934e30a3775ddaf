import { describe, expect, it } from "vitest";
import { MAX_RETRIES, RETRY_AFTER_MAX_MS, RETRY_WAITS_MS } from "../../src/policy/constants.js";
import {
  parseRetryAfter,
  readRetryAfter,
  retryDecision,
  waitAfterCut,
} from "../../src/policy/retry.js";

const NOW = Date.UTC(2026, 10, 5, 8, 0, 0); // Thu, 05 Nov 2026 08:00:00 GMT

describe("parseRetryAfter (RFC 9110 §10.2.3)", () => {
  const cases: [string | undefined, number | undefined][] = [
    ["0", 0],
    ["5", 5_000],
    ["  60 ", 60_000],
    ["61", 61_000],
    ["86400", 86_400_000],
    ["Thu, 05 Nov 2026 08:00:30 GMT", 30_000],
    ["Thu, 05 Nov 2026 08:01:00 GMT", 60_000],
    ["Thu, 05 Nov 2026 07:00:00 GMT", 0], // in the past: clamped at 0
    ["Thursday, 05-Nov-26 08:00:45 GMT", 45_000], // RFC 850
    ["Thu Nov  5 08:00:10 2026", 10_000], // asctime, space-padded day
    ["Thu Nov 15 08:00:00 2026", 10 * 86_400_000],
    [undefined, undefined],
    ["", undefined],
    ["-5", undefined],
    ["1.5", undefined],
    ["5s", undefined],
    ["soon", undefined],
    ["Thu, 31 Feb 2026 08:00:00 GMT", undefined], // impossible date
    ["Thu, 05 Nov 2026 25:00:00 GMT", undefined],
    ["Thu, 05 Nov 2026 08:00:00 UTC", undefined], // must be GMT
    ["2026-11-05T08:00:30Z", undefined], // ISO is not an HTTP-date
  ];
  it.each(cases)("P15: Retry-After %j → %j ms", (value, ms) => {
    expect(parseRetryAfter(value, NOW)).toBe(ms);
  });

  const lists: [string, ReturnType<typeof readRetryAfter>][] = [
    ["30, 30", { kind: "delay", ms: 30_000 }],
    ["30,30", { kind: "delay", ms: 30_000 }],
    ["5, 45, 12", { kind: "delay", ms: 45_000 }],
    ["45, , 5", { kind: "delay", ms: 45_000 }], // empty list elements are ignored (§5.6.1)
    ["Thu, 05 Nov 2026 08:00:30 GMT, Thu, 05 Nov 2026 08:00:50 GMT", { kind: "delay", ms: 50_000 }],
    ["10, Thu, 05 Nov 2026 08:00:20 GMT", { kind: "delay", ms: 20_000 }],
    ["Thursday, 05-Nov-26 08:00:45 GMT, 3", { kind: "delay", ms: 45_000 }],
    ["Thu Nov  5 08:00:10 2026, 4", { kind: "delay", ms: 10_000 }],
    ["Thu, 05 Nov 2026 07:00:00 GMT, 7", { kind: "delay", ms: 7_000 }], // past date = 0
    ["45.0", { kind: "unreadable", value: "45.0" }],
    ["30, 45.0", { kind: "unreadable", value: "30, 45.0" }],
    ["30, -5", { kind: "unreadable", value: "30, -5" }],
    ["Thu", { kind: "unreadable", value: "Thu" }],
    ["30, Thu", { kind: "unreadable", value: "30, Thu" }],
    ["", { kind: "unreadable", value: "" }],
    [", ", { kind: "unreadable", value: ", " }],
    ["\v30", { kind: "unreadable", value: "\v30" }], // OWS is space and tab only
  ];
  it.each(lists)("P15: Retry-After list %j → %j", (value, expected) => {
    expect(readRetryAfter(value, NOW)).toEqual(expected);
  });

  it("P15: a missing Retry-After is absent, not unreadable", () => {
    expect(readRetryAfter(undefined, NOW)).toEqual({ kind: "absent" });
  });

  it("P15: an HTTP-date is waited the longer of its distance from our clock and from the server's Date (trusted within a day)", () => {
    const at = (ms: number) => new Date(ms).toUTCString();
    const hour = 60 * 60_000;
    // The server's clock is an hour behind: it asks for 30 s, which our clock reads as past.
    expect(parseRetryAfter(at(NOW - hour + 30_000), NOW)).toBe(0);
    expect(parseRetryAfter(at(NOW - hour + 30_000), NOW, at(NOW - hour))).toBe(30_000);
    // Ahead by an hour: our clock gives the longer wait (harmless: never sooner than asked).
    expect(parseRetryAfter(at(NOW + hour + 30_000), NOW, at(NOW + hour))).toBe(hour + 30_000);
    // A Date more than a day off, unreadable or sent twice says nothing: our clock alone.
    expect(parseRetryAfter(at(NOW - 2 * 86_400_000 + 30_000), NOW, at(NOW - 2 * 86_400_000))).toBe(
      0,
    );
    expect(parseRetryAfter(at(0), NOW, at(-30_000))).toBe(0);
    expect(parseRetryAfter(at(NOW - hour + 30_000), NOW, "yesterday")).toBe(0);
    expect(
      parseRetryAfter(at(NOW - hour + 30_000), NOW, `${at(NOW - hour)}, ${at(NOW - hour)}`),
    ).toBe(0);
    // Delta-seconds do not depend on any clock.
    expect(parseRetryAfter("30", NOW, at(NOW - hour))).toBe(30_000);
    // The longest element of a list still counts.
    expect(readRetryAfter(`5, ${at(NOW - hour + 40_000)}`, NOW, at(NOW - hour))).toEqual({
      kind: "delay",
      ms: 40_000,
    });
    // And the retry decision reads it the same way.
    expect(
      retryDecision({
        attempt: 1,
        status: 503,
        retryAfter: at(NOW - hour + 30_000),
        date: at(NOW - hour),
        now: NOW,
      }),
    ).toEqual({ retry: true, waitMs: 30_000 });
  });

  it("P15: an RFC 850 two-digit year more than 50 years ahead means the past century", () => {
    // From 2026, "99" is 2099 (73 years ahead) → 1999, far in the past → 0.
    expect(parseRetryAfter("Friday, 31-Dec-99 23:59:59 GMT", NOW)).toBe(0);
    // "30" is 2030, within 50 years → in the future.
    const ms = parseRetryAfter("Tuesday, 05-Nov-30 08:00:00 GMT", NOW);
    expect(ms).toBe(Date.UTC(2030, 10, 5, 8) - NOW);
  });
});

describe("retryDecision (P15)", () => {
  type Row = [string, Parameters<typeof retryDecision>[0], ReturnType<typeof retryDecision>];
  const rows: Row[] = [
    [
      "500, first attempt → 5 s",
      { attempt: 1, status: 500, now: NOW },
      { retry: true, waitMs: 5_000 },
    ],
    [
      "503, second attempt → 20 s",
      { attempt: 2, status: 503, now: NOW },
      { retry: true, waitMs: 20_000 },
    ],
    ["599 is a 5xx", { attempt: 1, status: 599, now: NOW }, { retry: true, waitMs: 5_000 }],
    ["429 → 5 s", { attempt: 1, status: 429, now: NOW }, { retry: true, waitMs: 5_000 }],
    [
      "closed early → 5 s",
      { attempt: 1, closedEarly: true, now: NOW },
      { retry: true, waitMs: 5_000 },
    ],
    [
      "third attempt ended → exhausted",
      { attempt: 3, status: 503, now: NOW },
      { retry: false, reason: "retries-exhausted" },
    ],
    [
      "closed early 3 times → exhausted",
      { attempt: 3, closedEarly: true, now: NOW },
      { retry: false, reason: "retries-exhausted" },
    ],
    [
      "Retry-After 0 → 0",
      { attempt: 1, status: 503, retryAfter: "0", now: NOW },
      { retry: true, waitMs: 0 },
    ],
    [
      "Retry-After 7 → 7 s exactly",
      { attempt: 1, status: 429, retryAfter: "7", now: NOW },
      { retry: true, waitMs: 7_000 },
    ],
    [
      "Retry-After 60 → 60 s",
      { attempt: 2, status: 429, retryAfter: "60", now: NOW },
      { retry: true, waitMs: 60_000 },
    ],
    [
      "Retry-After 61 → not tonight",
      { attempt: 1, status: 429, retryAfter: "61", now: NOW },
      { retry: false, reason: "retry-after-too-long" },
    ],
    [
      "Retry-After date 30 s ahead",
      { attempt: 1, status: 503, retryAfter: "Thu, 05 Nov 2026 08:00:30 GMT", now: NOW },
      { retry: true, waitMs: 30_000 },
    ],
    [
      "Retry-After date 2 min ahead → not tonight",
      { attempt: 1, status: 503, retryAfter: "Thu, 05 Nov 2026 08:02:00 GMT", now: NOW },
      { retry: false, reason: "retry-after-too-long" },
    ],
    [
      "garbage Retry-After → not tonight (when in doubt, do not send)",
      { attempt: 2, status: 503, retryAfter: "later", now: NOW },
      { retry: false, reason: "retry-after-unreadable" },
    ],
    [
      "Retry-After 45.0 on a 503 → not tonight, not the 5 s default",
      { attempt: 1, status: 503, retryAfter: "45.0", now: NOW },
      { retry: false, reason: "retry-after-unreadable" },
    ],
    [
      "Retry-After 45.0 on a 429 → not tonight",
      { attempt: 1, status: 429, retryAfter: "45.0", now: NOW },
      { retry: false, reason: "retry-after-unreadable" },
    ],
    [
      "Retry-After sent twice (30, 30) → 30 s, not the 5 s default",
      { attempt: 1, status: 503, retryAfter: "30, 30", now: NOW },
      { retry: true, waitMs: 30_000 },
    ],
    [
      "Retry-After 10, 40 on a 429 → the larger, 40 s",
      { attempt: 1, status: 429, retryAfter: "10, 40", now: NOW },
      { retry: true, waitMs: 40_000 },
    ],
    [
      "Retry-After 30, 90 → the larger is over 60 s: not tonight",
      { attempt: 1, status: 503, retryAfter: "30, 90", now: NOW },
      { retry: false, reason: "retry-after-too-long" },
    ],
    [
      "Retry-After 30, soon → one unreadable value: not tonight",
      { attempt: 1, status: 429, retryAfter: "30, soon", now: NOW },
      { retry: false, reason: "retry-after-unreadable" },
    ],
    [
      "an empty Retry-After → not tonight",
      { attempt: 1, status: 503, retryAfter: "", now: NOW },
      { retry: false, reason: "retry-after-unreadable" },
    ],
    [
      "unreadable Retry-After after the last retry → still exhausted",
      { attempt: 3, status: 503, retryAfter: "soon", now: NOW },
      { retry: false, reason: "retries-exhausted" },
    ],
    [
      "404 → not retried",
      { attempt: 1, status: 404, now: NOW },
      { retry: false, reason: "not-retryable" },
    ],
    [
      "403 → not retried",
      { attempt: 1, status: 403, now: NOW },
      { retry: false, reason: "not-retryable" },
    ],
    [
      "408 → not retried",
      { attempt: 1, status: 408, now: NOW },
      { retry: false, reason: "not-retryable" },
    ],
    [
      "200 → not retried",
      { attempt: 1, status: 200, now: NOW },
      { retry: false, reason: "not-retryable" },
    ],
    [
      "600 is not a 5xx",
      { attempt: 1, status: 600, now: NOW },
      { retry: false, reason: "not-retryable" },
    ],
    [
      "time-out / TLS / DNS (no status, not closed early)",
      { attempt: 1, now: NOW },
      { retry: false, reason: "not-retryable" },
    ],
    [
      "403 with Retry-After is still not retried",
      { attempt: 1, status: 403, retryAfter: "1", now: NOW },
      { retry: false, reason: "not-retryable" },
    ],
  ];
  it.each(rows)("P15: %s", (_name, input, expected) => {
    expect(retryDecision(input)).toEqual(expected);
  });

  it("P15: the whole schedule without Retry-After is 5 s, 20 s, then stop", () => {
    const waits: number[] = [];
    for (let attempt = 1; attempt <= 10; attempt++) {
      const d = retryDecision({ attempt, status: 502, now: NOW });
      if (!d.retry) {
        expect(d.reason).toBe("retries-exhausted");
        break;
      }
      waits.push(d.waitMs);
    }
    expect(waits).toEqual([...RETRY_WAITS_MS]);
    expect(waits).toHaveLength(MAX_RETRIES);
  });

  it("P15: never waits less than a Retry-After it accepts, and never accepts one over 60 s", () => {
    for (let s = 0; s <= 120; s++) {
      const d = retryDecision({ attempt: 1, status: 429, retryAfter: String(s), now: NOW });
      if (s * 1000 <= RETRY_AFTER_MAX_MS) expect(d).toEqual({ retry: true, waitMs: s * 1000 });
      else expect(d).toEqual({ retry: false, reason: "retry-after-too-long" });
    }
  });

  it("P15: a nonsensical attempt number is a bug and throws", () => {
    expect(() => retryDecision({ attempt: 0, status: 500, now: NOW })).toThrow(/attempt/);
    expect(() => retryDecision({ attempt: 1.5, status: 500, now: NOW })).toThrow(/attempt/);
  });
});

describe("a send cut short by the checker's own death (P15)", () => {
  it("P15: is tried again as a closed connection is: 5 s after the first send, 20 s after the second, not after the third", () => {
    expect([1, 2, 3, 0].map(waitAfterCut)).toEqual([5_000, 20_000, undefined, undefined]);
  });
});
