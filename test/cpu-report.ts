import { appendFileSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, expect } from "vitest";

/**
 * Opt-in (vitest.config.ts loads it only when NOR_TEST_CPU_REPORT names a file): after each
 * test file, one line appended to that file: the worker's own CPU (ms, every thread: main,
 * GC, compiler), the CPU of the child processes it reaped meanwhile (ms; the `nor` processes a
 * test spawns, chromium), the file's wall time (ms) and its path. The suite is CPU-bound on the
 * 2-core machine (docs/benchmarks.md "What the suite's CPU is spent on"), so CPU, not wall
 * time, says which files make it long. Then the file's end (epoch ms) and the worker's pid, to
 * lay the files out on a timeline (which ran beside which, where the cores sat idle). Linux
 * only: children's CPU from /proc/self/stat.
 */
const out = process.env["NOR_TEST_CPU_REPORT"];

/** CPU of reaped children, ms (cutime + cstime, in clock ticks of 10 ms). */
function childrenMs(): number {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return 0;
  }
}

let cpu = process.cpuUsage();
let children = childrenMs();
let wall = Date.now();

beforeAll(() => {
  cpu = process.cpuUsage();
  children = childrenMs();
  wall = Date.now();
});

afterAll(() => {
  if (out === undefined) return;
  const own = process.cpuUsage(cpu);
  const line = [
    Math.round((own.user + own.system) / 1000),
    childrenMs() - children,
    Date.now() - wall,
    expect.getState().testPath ?? "?",
    Date.now(),
    process.pid,
  ].join(" ");
  appendFileSync(out, `${line}\n`);
});
