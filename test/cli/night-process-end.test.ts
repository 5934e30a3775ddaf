import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { endText, nightProcessEnd } from "../../src/cli/night-process.js";

/**
 * How `nor night --workers` hears that a worker ended (src/cli/night-process.ts): by its exit
 * code, by the signal that killed it (a child killed by one has no exit code), or by the error
 * that kept it from starting; whenever the end is asked for, and each bounded by the child's own
 * end (a `node -e` of a moment).
 */
const node = (code: string) => spawn(process.execPath, ["-e", code], { stdio: "ignore" });

describe("the end of a night's process", () => {
  it("a worker that exits non-zero: its code", async () => {
    const child = node("process.exit(3)");
    const end = await nightProcessEnd(child);
    expect(end).toEqual({ pid: child.pid, code: 3, signal: null });
    expect(endText(end)).toBe(`worker pid ${child.pid} exited with code 3`);
  });

  it("a worker killed by a signal, its 'exit' heard before the end is asked for: the signal", async () => {
    const child = node("setTimeout(() => {}, 60_000)");
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGKILL");
    await exited;
    expect(child.exitCode).toBeNull();
    const end = await nightProcessEnd(child);
    expect(end).toEqual({ pid: child.pid, code: null, signal: "SIGKILL" });
    expect(endText(end)).toBe(`worker pid ${child.pid} was killed by SIGKILL`);
  });

  it("a worker killed by a signal while its end is awaited: the signal", async () => {
    const child = node("setTimeout(() => {}, 60_000)");
    const ended = nightProcessEnd(child);
    child.kill("SIGKILL");
    expect(await ended).toEqual({ pid: child.pid, code: null, signal: "SIGKILL" });
  });

  it("a worker that could not be started: why, and no error left unheard to end this process", async () => {
    const child = spawn("/nonexistent/nor-night-node", [], { stdio: "ignore" });
    const end = await nightProcessEnd(child);
    expect(end.code).toBeNull();
    expect(end.signal).toBeNull();
    expect(end.error).toMatchObject({ code: "ENOENT" });
    expect(endText(end)).toMatch(/^a worker could not be started \(spawn .*ENOENT\)$/);
  });

  it("a worker that ended well: code 0", async () => {
    const child = node("");
    expect(await nightProcessEnd(child)).toEqual({ pid: child.pid, code: 0, signal: null });
  });
});
