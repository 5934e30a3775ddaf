import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCli, ROOT } from "./run-nor.js";

/**
 * `nor start` stops in order on SIGHUP (a terminal closed, `kill -HUP`) as on SIGINT and
 * SIGTERM: the server and the store closed, its lock removed, "stopped" said, exit 0. (It had no
 * handler: the process died of the signal, exit 129, its lock left behind.) A process of its own,
 * since the signal is the point.
 */
const dir = mkdtempSync(join(tmpdir(), "nor-start-hup-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeAll(() => buildCli());

const catalog = join(dir, "catalog.yaml");
writeFileSync(
  catalog,
  `governments:
  - { id: village-of-hup, name: Village of Hup, kind: village, county: Franklin }
sources:
  - { id: hup-agendas, government: village-of-hup, records: agendas, url: "http://127.0.0.1:9/agendas.rss" }
`,
);

/** Polls `ok` every 50 ms, at most `tries` times; false if it never held. */
async function waitFor(ok: () => boolean, tries = 600): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    if (ok()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return ok();
}

describe("nor start and its stop signals", () => {
  it.each(["SIGHUP", "SIGTERM"] as const)(
    "%s stops it in order: exit 0, 'stopped', DATA/start.lock removed",
    async (signal) => {
      const s = await started(`data-${signal}`);
      try {
        s.child.kill(signal);
        expect(await waitFor(() => s.io.exited, 400), `${s.io.out}\n${s.io.err}`).toBe(true);
        expect(await s.ended, s.io.err).toEqual({ code: 0, signal: null });
        expect(s.io.out).toMatch(/nor start: stopped\n$/);
        expect(existsSync(s.lock)).toBe(false);
      } finally {
        if (!s.io.exited) s.child.kill("SIGKILL");
      }
    },
    60_000,
  );

  /** `nor start` on its own data directory, up and waiting for its night; its output so far. */
  async function started(name: string) {
    const data = join(dir, name);
    const base = { ...process.env };
    delete base["NOR_DATABASE_URL"];
    const child = spawn(
      process.execPath,
      [
        join(ROOT, "bin", "nor.js"),
        ...["start", "--catalog", catalog, "--data", data, "--host", "127.0.0.1"],
        ...["--port", "0", "--at", "01:00", "--zone", "America/New_York"],
      ],
      { cwd: ROOT, env: base, stdio: ["ignore", "pipe", "pipe"] },
    );
    const io = { out: "", err: "", exited: false };
    child.stdout.on("data", (c: Buffer) => {
      io.out += c.toString();
    });
    child.stderr.on("data", (c: Buffer) => {
      io.err += c.toString();
    });
    const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
      child.on("exit", (code, sig) => done({ code, signal: sig })),
    );
    void ended.then(() => {
      io.exited = true;
    });
    const up = await waitFor(() => io.out.includes("the next night runs at") || io.exited);
    if (!up || io.exited) child.kill("SIGKILL");
    expect(up && !io.exited, `${io.out}\n${io.err}`).toBe(true);
    expect(existsSync(join(data, "start.lock"))).toBe(true);
    return { child, io, ended, lock: join(data, "start.lock") };
  }

  it("one Ctrl-C under npm start (SIGINT twice, a moment apart: the terminal's and npm's copy) stops it in order: exit 0, 'stopped', the lock removed", async () => {
    const s = await started("data-echo");
    try {
      // npm passes its copy on a moment after the terminal's (about a millisecond).
      s.child.kill("SIGINT");
      await new Promise((r) => setTimeout(r, 5));
      s.child.kill("SIGINT");
      expect(await waitFor(() => s.io.exited, 400), `${s.io.out}\n${s.io.err}`).toBe(true);
      expect(await s.ended, s.io.err).toEqual({ code: 0, signal: null });
      expect(s.io.out).toMatch(/nor start: stopped\n$/);
      expect(s.io.err).not.toContain("stopped at once");
      expect(existsSync(s.lock)).toBe(false);
    } finally {
      if (!s.io.exited) s.child.kill("SIGKILL");
    }
  }, 60_000);

  it("a second stop while stopping (SIGINT and SIGTERM at once) stops it at once: said, its lock let go, ended by the second signal (a shell says 130 or 143)", async () => {
    // A stop in order of a start waiting for its night takes milliseconds: a SIGTERM that
    // reaches it only once it has ended (the test's process held up between its two kills, on
    // a busy machine) finds nothing to stop (it exits 0, or, come after the start let go of
    // its handlers and before it exited, ends it unsaid), and the pair is tried again, three
    // times at most.
    let s = await started("data-twice-1");
    for (let tries = 1; ; tries++) {
      s.child.kill("SIGINT");
      s.child.kill("SIGTERM");
      expect(await waitFor(() => s.io.exited, 400), `${s.io.out}\n${s.io.err}`).toBe(true);
      const end = await s.ended;
      if ((end.code !== 0 && s.io.err.includes("while stopping")) || tries === 3) break;
      s = await started(`data-twice-${tries + 1}`);
    }
    try {
      // Two signals pending at once are taken in either order: the other is the second stop.
      const end = await s.ended;
      expect(["SIGTERM", "SIGINT"], s.io.err).toContain(end.signal);
      expect(end.code).toBeNull();
      expect(s.io.err).toContain(
        `nor start: ${end.signal} while stopping: stopped at once, not in order (its lock ${s.lock} let go); exit status ${end.signal === "SIGTERM" ? 143 : 130}`,
      );
      expect(existsSync(s.lock)).toBe(false);
    } finally {
      if (!s.io.exited) s.child.kill("SIGKILL");
    }
  }, 60_000);
});
