import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildCli, ROOT } from "./run-nor.js";

/**
 * `nor demo` stopped by a signal at any time once its temporary directory exists (Ctrl-C, a
 * terminal closed, `kill`): the nights under way stop, the server and the store close, the
 * directory is removed, and the demo ends as it does when stopped while serving (exit 0). A
 * process of its own, since the signal is the point; each run gets its own TMPDIR, so what it
 * leaves behind is all that is in it afterwards. The nights run at the real 2 s pace, so the
 * stop lands while they run.
 */
const dir = mkdtempSync(join(tmpdir(), "nor-demo-signals-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Demo {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  ended: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function startDemo(env: Record<string, string>, extra: string[] = []): Demo {
  const base = { ...process.env };
  delete base["NOR_DATABASE_URL"];
  const child = spawn(
    process.execPath,
    [join(ROOT, "bin", "nor.js"), "demo", "--headless", "--port", "0", ...extra],
    { cwd: ROOT, env: { ...base, ...env }, stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  let err = "";
  child.stdout?.on("data", (c: Buffer) => {
    out += c.toString();
  });
  child.stderr?.on("data", (c: Buffer) => {
    err += c.toString();
  });
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.on("exit", (code, signal) => done({ code, signal })),
  );
  return { child, out: () => out, err: () => err, ended };
}

/** Polls `ok` every 50 ms, at most `tries` times; false if it never held. */
async function waitFor(ok: () => boolean, tries = 600): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    if (ok()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return ok();
}

/** The process's end, or undefined if it has not ended after the bounded wait (then killed). */
async function endOf(demo: Demo) {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((r) => {
    timer = setTimeout(() => r(undefined), 30_000);
  });
  const end = await Promise.race([demo.ended, late]);
  clearTimeout(timer);
  if (end === undefined) demo.child.kill("SIGKILL");
  return end;
}

const leftovers = (tmp: string) => readdirSync(tmp).filter((n) => n.startsWith("nor-demo-"));

describe("nor demo stopped by a signal", () => {
  const cases: { signal: NodeJS.Signals; when: "first line" | "mid-night" }[] = [
    { signal: "SIGINT", when: "mid-night" },
    { signal: "SIGTERM", when: "mid-night" },
    { signal: "SIGHUP", when: "mid-night" },
    { signal: "SIGTERM", when: "first line" },
  ];
  for (const { signal, when } of cases) {
    it(`${signal} at its ${when}: stops, removes its temporary directory, exit 0`, async () => {
      buildCli();
      const tmp = mkdtempSync(join(dir, `${signal}-`));
      const demo = startDemo({ TMPDIR: tmp });
      // The first line is said once the directory exists; a night's first outcome, mid-night.
      const ready =
        when === "first line"
          ? () => demo.out().includes("\n") && leftovers(tmp).length > 0
          : () => /^ {2}\d+\/\d+ /m.test(demo.out());
      const seen = await waitFor(ready);
      if (!seen) demo.child.kill("SIGKILL");
      expect(seen, `${demo.out()}\n${demo.err()}`).toBe(true);
      expect(leftovers(tmp)).toHaveLength(1);
      demo.child.kill(signal);
      const end = await endOf(demo);
      expect(end, `${demo.out()}\n${demo.err()}`).toEqual({ code: 0, signal: null });
      expect(leftovers(tmp), demo.out()).toEqual([]);
      expect(readdirSync(tmp)).toEqual([]);
      expect(demo.out()).toContain(`${signal}: stopping the demo`);
      expect(demo.out()).not.toContain("headless: the directory answered as expected");
      if (when === "mid-night")
        // Told before the nights, not only once they are over.
        expect(demo.out()).toMatch(
          /Ctrl-C stops the demo and removes \S*nor-demo-\S+[\s\S]*Night 1 of 2/,
        );
    });
  }

  it("a second stop while stopping (SIGINT and SIGTERM at once) stops it at once: said, its temporary directory removed, ended by the second signal (a shell says 130 or 143)", async () => {
    buildCli();
    // A stop in order can end before the second signal reaches it (the test's process held up
    // between its two kills on a busy machine): it exits 0, or, when the second signal comes
    // after the demo let go of its handlers and before it exited, that signal ends it unsaid.
    // Either way the pair is tried again, three times at most.
    let tmp = "";
    let made: string[] = [];
    let demo: ReturnType<typeof startDemo> | undefined;
    let end: Awaited<ReturnType<typeof endOf>> | undefined;
    for (let tries = 1; tries <= 3; tries++) {
      tmp = mkdtempSync(join(dir, "twice-"));
      demo = startDemo({ TMPDIR: tmp });
      const d = demo;
      const seen = await waitFor(() => /^ {2}\d+\/\d+ /m.test(d.out()));
      if (!seen) d.child.kill("SIGKILL");
      expect(seen, `${d.out()}\n${d.err()}`).toBe(true);
      made = leftovers(tmp);
      expect(made).toHaveLength(1);
      d.child.kill("SIGINT");
      d.child.kill("SIGTERM");
      end = await endOf(d);
      if (end?.code !== 0 && d.err().includes("while stopping")) break;
    }
    if (demo === undefined) throw new Error("no demo started");
    // Two signals pending at once are taken in either order: the one taken first stops in
    // order, the other is the second stop.
    const first = /SIGTERM: stopping the demo/.test(demo.out()) ? "SIGTERM" : "SIGINT";
    const second = first === "SIGINT" ? "SIGTERM" : "SIGINT";
    expect(end, `${demo.out()}\n${demo.err()}`).toEqual({ code: null, signal: second });
    expect(demo.out()).toContain(`${first}: stopping the demo`);
    expect(demo.err()).toContain(
      `nor demo: ${second} while stopping: stopped at once, not in order (${join(tmp, made[0] ?? "")} removed); exit status ${second === "SIGTERM" ? 143 : 130}`,
    );
    expect(demo.out()).not.toContain("Stopped;");
    expect(readdirSync(tmp)).toEqual([]);
  });

  it("one Ctrl-C under npm (SIGINT twice, a moment apart: the terminal's and npm's copy) still stops in order, exit 0", async () => {
    buildCli();
    const tmp = mkdtempSync(join(dir, "echo-"));
    const demo = startDemo({ TMPDIR: tmp });
    const seen = await waitFor(() => /^ {2}\d+\/\d+ /m.test(demo.out()));
    if (!seen) demo.child.kill("SIGKILL");
    expect(seen, `${demo.out()}\n${demo.err()}`).toBe(true);
    // npm passes its copy on a moment after the terminal's (about a millisecond).
    demo.child.kill("SIGINT");
    await new Promise((r) => setTimeout(r, 5));
    demo.child.kill("SIGINT");
    const end = await endOf(demo);
    expect(end, `${demo.out()}\n${demo.err()}`).toEqual({ code: 0, signal: null });
    expect(demo.out()).toContain("Stopped;");
    expect(demo.err()).not.toContain("stopped at once");
    expect(readdirSync(tmp)).toEqual([]);
  });

  it("SIGINT mid-night with --data: stops in order and keeps the directory it was given", async () => {
    buildCli();
    const tmp = mkdtempSync(join(dir, "data-"));
    const data = join(tmp, "kept");
    const demo = startDemo({ TMPDIR: tmp }, ["--data", data]);
    const seen = await waitFor(() => /^ {2}\d+\/\d+ /m.test(demo.out()));
    if (!seen) demo.child.kill("SIGKILL");
    expect(seen, `${demo.out()}\n${demo.err()}`).toBe(true);
    demo.child.kill("SIGINT");
    const end = await endOf(demo);
    expect(end, `${demo.out()}\n${demo.err()}`).toEqual({ code: 0, signal: null });
    expect(existsSync(join(data, "nor.db"))).toBe(true);
    expect(readdirSync(tmp)).toEqual(["kept"]);
    expect(demo.out()).toMatch(/Ctrl-C stops the demo\.[\s\S]*Night 1 of 2/);
  });
});
