import { describe, expect, it } from "vitest";
import { ECHO_MS, exitStatusOf, stopHandler } from "../../src/cli/stop-signals.js";

/**
 * How `nor start` and `nor demo` take their stop signals (src/cli/stop-signals.ts), on a clock
 * of the test's own: the first stops in order; the same signal again within ECHO_MS is its echo
 * (one Ctrl-C under `npm start` arrives twice, from the terminal and from npm) and changes
 * nothing; a second stop, a second Ctrl-C or another signal, stops at once, says so and ends the
 * process by that signal.
 */
function harness() {
  let t = 0;
  const seen: string[] = [];
  const handler = stopHandler({
    command: "nor demo",
    inOrder: (s) => seen.push(`in order ${s}`),
    atOnce: () => {
      seen.push("at once");
      return "/tmp/nor-demo-x removed";
    },
    now: () => t,
    end: (s) => seen.push(`ended by ${s}`),
    say: (line) => seen.push(line),
  });
  return {
    seen,
    signal: (s: NodeJS.Signals, afterMs = 0) => {
      t += afterMs;
      handler(s);
    },
  };
}

describe("the stop signals of nor start and nor demo", () => {
  it("the first signal stops in order; its echo (the same signal within a second: npm's copy of one Ctrl-C) changes nothing", () => {
    const h = harness();
    h.signal("SIGINT");
    h.signal("SIGINT", 1);
    h.signal("SIGINT", ECHO_MS - 2);
    expect(h.seen).toEqual(["in order SIGINT"]);
  });

  it("Ctrl-C twice: the second stops at once, what must go goes, it is said with the exit status 130, and the process ends by SIGINT", () => {
    const h = harness();
    h.signal("SIGINT");
    h.signal("SIGINT", ECHO_MS);
    expect(h.seen).toEqual([
      "in order SIGINT",
      "at once",
      "nor demo: SIGINT while stopping: stopped at once, not in order (/tmp/nor-demo-x removed); exit status 130",
      "ended by SIGINT",
    ]);
    // Nothing after the end.
    h.signal("SIGINT", ECHO_MS);
    expect(h.seen).toHaveLength(4);
  });

  it("another stop signal while stopping stops at once, however soon (SIGTERM: exit status 143)", () => {
    const h = harness();
    h.signal("SIGINT");
    h.signal("SIGTERM", 0);
    expect(h.seen.slice(1)).toEqual([
      "at once",
      "nor demo: SIGTERM while stopping: stopped at once, not in order (/tmp/nor-demo-x removed); exit status 143",
      "ended by SIGTERM",
    ]);
  });

  it("the exit status a shell says for each stop signal: 128 + its number", () => {
    expect(exitStatusOf("SIGINT")).toBe(130);
    expect(exitStatusOf("SIGTERM")).toBe(143);
    expect(exitStatusOf("SIGHUP")).toBe(129);
  });
});

describe("the echo of the first stop signal, once the stop in order is done", () => {
  it("still taken as an echo after the command let its signals go (the process ending: its sockets, its threads), never ending it by the signal (exit status 130 after a stop in order)", async () => {
    const { onStopSignals } = await import("../../src/cli/stop-signals.js");
    const before = process.listenerCount("SIGINT");
    let t = 0;
    const seen: string[] = [];
    const off = onStopSignals({
      command: "nor demo",
      inOrder: (s) => seen.push(`in order ${s}`),
      now: () => t,
      end: (s) => seen.push(`ended by ${s}`),
      say: (line) => seen.push(line),
    });
    process.emit("SIGINT", "SIGINT");
    // The stop in order is done: the command lets its signals go, and ends a moment later.
    off();
    // npm's copy of that one Ctrl-C arrives now: something must take it, or its default ends
    // the process by SIGINT.
    expect(process.listenerCount("SIGINT")).toBeGreaterThan(before);
    t += 300;
    process.emit("SIGINT", "SIGINT");
    expect(seen).toEqual(["in order SIGINT"]);
    // Past the echo's time it is let go: a signal then is a signal.
    t += ECHO_MS;
    process.emit("SIGINT", "SIGINT");
    expect(seen).toEqual(["in order SIGINT", "ended by SIGINT"]);
    expect(process.listenerCount("SIGINT")).toBe(before);
  });

  it("not taken when nothing stopped it (the command ended on its own)", async () => {
    const { onStopSignals } = await import("../../src/cli/stop-signals.js");
    const before = process.listenerCount("SIGINT");
    const off = onStopSignals({ command: "nor demo", inOrder: () => {}, end: () => {} });
    off();
    expect(process.listenerCount("SIGINT")).toBe(before);
  });
});
