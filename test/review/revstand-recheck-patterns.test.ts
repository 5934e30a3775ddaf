import { describe, expect, it } from "vitest";
import { addDays } from "../../src/policy/night-date.js";
import { recheckTonight } from "../../src/policy/recheck.js";

/**
 * Reviewer (revstand), P25 against the pure calendar (policy/recheck.ts recheckTonight), over
 * many patterns of nights: each night after the marking the checker is off (no night in the
 * store), runs and does not reach the page (its site down, the deadline), or runs and reaches it
 * when asked. Once the weekly nights begin (night 4 on) the page is never reached two nights
 * running, two reaches are 4 nights apart or more, and while the checker runs and the site
 * answers, a reach is never more than 10 nights after the last (or the first night after the
 * marking). Reached before the marking (read until then) changes none of it.
 */
const M = "2026-01-01";
type Night = 0 | 1 | 2; // off, runs but not reached, runs and reached when asked

function reaches(pattern: readonly Night[], before?: number): number[] {
  let last = before === undefined ? undefined : addDays(M, before);
  const out: number[] = [];
  for (let n = 1; n <= pattern.length; n++) {
    if (pattern[n - 1] === 0) continue;
    const night = addDays(M, n);
    if (recheckTonight(M, night, last) && pattern[n - 1] === 2) {
      out.push(n);
      last = night;
    }
  }
  return out;
}

function problems(pattern: readonly Night[], before?: number): string[] {
  const r = reaches(pattern, before);
  const out: string[] = [];
  const from = [0, ...r];
  for (let i = 1; i < from.length; i++) {
    const a = from[i - 1] as number;
    const b = from[i] as number;
    if (a >= 4 && b - a < 4) out.push(`reached on ${a} and ${b}`);
  }
  for (const a of from) {
    const next = r.find((x) => x > a);
    const allUp = a + 10 <= pattern.length && pattern.slice(a, a + 10).every((x) => x === 2);
    if (allUp && !(next !== undefined && next <= a + 10))
      out.push(`nothing reached in the 10 nights after ${a}, all run and answered`);
  }
  return out.map((p) => `${pattern.join("")} (before ${before}): ${p}; reached ${r.join(",")}`);
}

describe("P25: the recheck calendar over patterns of nights (off, not reached, reached)", () => {
  it("P25: every pattern of 9 nights, and 3,000 seeded patterns of 60", () => {
    const found: string[] = [];
    const p: Night[] = new Array(9).fill(2);
    const all = (i: number): void => {
      if (i === p.length) {
        for (const before of [undefined, -1, 0]) found.push(...problems(p, before));
        return;
      }
      for (const s of [0, 1, 2] as const) {
        p[i] = s;
        all(i + 1);
      }
    };
    all(0);
    let seed = 6_166;
    const rnd = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    for (let t = 0; t < 3_000; t++) {
      const off = rnd() * 0.4;
      const down = rnd() * 0.6;
      const q: Night[] = [];
      for (let i = 0; i < 60; i++) {
        const x = rnd();
        q.push(x < off ? 0 : x < off + down ? 1 : 2);
      }
      found.push(...problems(q));
    }
    expect(found.slice(0, 5)).toEqual([]);
  }, 60_000);
});
