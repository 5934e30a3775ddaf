import { describe, expect, it } from "vitest";
import type { Reply } from "../../../src/net/pipeline.js";
import { retries } from "../../../src/net/steps/retries.js";
import { call, fakeNext, got, ok, response } from "./fakes.js";

const retry = (replayed = false): Reply => ({
  kind: "retry",
  waitMs: 5000,
  got: got(response(503), { replayed }),
});

describe("step: retries (P15)", () => {
  it("P15: asks again, the same request, while classify says retry; earlier answers go up too", async () => {
    const { next, calls } = fakeNext((c, n) => (n < 3 ? retry() : ok(c.url)));
    const out = await retries()(next)(call());
    expect(calls).toHaveLength(3);
    expect(new Set(calls)).toEqual(new Set([calls[0]]));
    expect(out).toMatchObject({ kind: "final", outcome: { kind: "ok" } });
    expect(
      out.kind === "final" && out.earlier?.map((a) => a.kind === "response" && a.status),
    ).toEqual([503, 503]);
  });

  it("P15: bounded even if every answer said retry (the journal's count is the real limit)", async () => {
    const { next, calls } = fakeNext(() => retry());
    const out = await retries()(next)(call());
    expect(calls.length).toBeLessThanOrEqual(5);
    expect(out).toMatchObject({ outcome: { kind: "error", reason: "retries exhausted" } });
  });

  it("P8: a replayed answer is never looped on", async () => {
    const { next, calls } = fakeNext(() => retry(true));
    const out = await retries()(next)(call());
    expect(calls).toHaveLength(1);
    expect(out).toMatchObject({ outcome: { kind: "error", reason: "answered earlier tonight" } });
  });
});
