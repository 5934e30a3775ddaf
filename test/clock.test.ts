import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { ManualClock } from "../src/clock.js";

describe("ManualClock", () => {
  it("wakes sleepers in time order and moves time only when asked", async () => {
    const clock = new ManualClock(1_000);
    const woke: string[] = [];
    void clock.sleep(500).then(() => woke.push(`b@${clock.now()}`));
    void clock.sleep(100).then(() => woke.push(`a@${clock.now()}`));
    expect(clock.now()).toBe(1_000);
    await clock.advance(1_000);
    expect(woke).toEqual(["a@1100", "b@1500"]);
    expect(clock.now()).toBe(2_000);
  });
});

describe("ManualClock and the night's signal", () => {
  it("a sleep woken by time stops listening to its signal; one aborted rejects with its reason", async () => {
    const clock = new ManualClock(0);
    const stop = new AbortController();
    const sleeps = Array.from({ length: 50 }, (_, i) => clock.sleep(10 + i, stop.signal));
    expect(EventEmitter.getEventListeners(stop.signal, "abort")).toHaveLength(50);
    await clock.advance(100);
    await Promise.all(sleeps);
    expect(EventEmitter.getEventListeners(stop.signal, "abort")).toHaveLength(0);
    const late = clock.sleep(10, stop.signal);
    stop.abort(new Error("stopped"));
    await expect(late).rejects.toThrow("stopped");
    expect(clock.pending).toBe(0);
  });
});
