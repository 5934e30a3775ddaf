import { describe, expect, it } from "vitest";
import { DurableWindow } from "../../src/night/durable-window.js";

describe("the durability window a night reports (P8, P27)", () => {
  it("P27: nothing recorded, nothing reported", () => {
    expect(new DurableWindow().summary()).toBeUndefined();
  });

  it("P27: the median, 99th percentile and longest, in whole milliseconds", () => {
    const w = new DurableWindow();
    for (let i = 1; i <= 100; i++) w.record(i);
    expect(w.summary()).toEqual({ count: 100, p50: 50, p99: 99, max: 100 });
  });

  it("P27: a wait past the histogram's range is still its longest, and a clock step back counts as 0", () => {
    const w = new DurableWindow();
    w.record(-3);
    w.record(4.4);
    w.record(60_000);
    expect(w.summary()).toEqual({ count: 3, p50: 4, p99: 60_000, max: 60_000 });
  });

  it("P27: only answers are counted: a row completed with nothing read (not sent, no connection) has no last byte", () => {
    const w = new DurableWindow();
    w.completed({ status: 200, endedAt: 1_000 }, 1_040);
    w.completed({ status: null, endedAt: 2_000 }, 2_000);
    w.completed({ status: null, endedAt: 3_000 }, 2_990);
    expect(w.summary()).toEqual({ count: 1, p50: 40, p99: 40, max: 40 });
  });
});
