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
