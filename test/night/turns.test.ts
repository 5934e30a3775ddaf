import { describe, expect, it } from "vitest";
import { turns } from "../../src/night/turns.js";

describe("turns", () => {
  it("P10: lets one waiter go per turn of the loop, in the order asked", async () => {
    const deferred: (() => void)[] = [];
    const turn = turns((fn) => deferred.push(fn));
    const went: string[] = [];
    const all = ["a", "b", "c"].map((name) => turn().then(() => went.push(name)));
    expect(deferred).toHaveLength(1); // one turn asked for, however many wait
    for (let i = 0; i < 3; i++) {
      const fn = deferred.shift();
      expect(fn).toBeDefined();
      fn?.();
      await Promise.resolve(); // the waiter's continuation runs before the next turn
      expect(went).toHaveLength(i + 1);
    }
    await Promise.all(all);
    expect(went).toEqual(["a", "b", "c"]);
    expect(deferred).toHaveLength(0); // nothing left waiting: no turn asked for
    // A waiter after the queue ran dry asks for a turn again.
    const late = turn();
    expect(deferred).toHaveLength(1);
    deferred.shift()?.();
    await late;
  });

  it("P10: a timer that falls due during one turn's work runs before the next turn (the real loop)", async () => {
    const turn = turns();
    const order: string[] = [];
    let timer: Promise<void> | undefined;
    const a = turn().then(() => {
      order.push("a");
      timer = new Promise<void>((r) => setTimeout(() => r(void order.push("timer")), 1));
      // The heavy synchronous work of one turn (reading a page), long enough for the timer
      // to fall due; bounded by the clock and by a count.
      const until = performance.now() + 5;
      for (let i = 0; i < 1e8 && performance.now() < until; i++);
    });
    const b = turn().then(() => order.push("b"));
    await Promise.all([a, b]);
    await timer;
    // Both let go in one turn, b would run straight after a, before the timer.
    expect(order).toEqual(["a", "timer", "b"]);
  });
});
