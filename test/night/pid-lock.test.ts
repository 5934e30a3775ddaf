import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { acquireStartLock } from "../../src/night/night-lock.js";
import { ROOT } from "../cli/run-nor.js";

/**
 * The data directory's locks (the night's opening, `nor start`): never seen half made, never
 * held by two, and a lock whose process is gone (another boot, a pid now another program's)
 * taken over without a person.
 */
const dir = mkdtempSync(join(tmpdir(), "nor-pid-lock-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const live = () =>
  spawn(process.execPath, ["-e", "setTimeout(() => {}, 60_000)"], { stdio: "ignore" });

describe("a pid lock", () => {
  it("P9: a live holder's lock is refused; the same pid from another boot, or started at another time, is stale and taken over", () => {
    const holder = live();
    try {
      const pid = holder.pid as number;
      const d = mkdtempSync(join(dir, "who-"));
      const lock = join(d, "start.lock");
      writeFileSync(lock, `${pid}\n`);
      expect(() => acquireStartLock(d)).toThrow(`another nor start is running on ${d} (pid ${pid}`);
      const boot = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
      // Another boot: the pid, alive now, is some other program's.
      writeFileSync(lock, `${pid}\nanother-boot\n1\n`);
      let release = acquireStartLock(d);
      expect(readFileSync(lock, "utf8").split("\n")[0]).toBe(`${process.pid}`);
      release();
      // This boot, but the pid started at another time: reused by another program.
      writeFileSync(lock, `${pid}\n${boot}\n1\n`);
      release = acquireStartLock(d);
      release();
      expect(readdirSync(d)).toEqual([]);
    } finally {
      holder.kill("SIGKILL");
    }
  });

  it("P9: a lock being written in place (no pid yet) is not taken over while young; a holder in another pid namespace is held", () => {
    const d = mkdtempSync(join(dir, "young-"));
    const lock = join(d, "start.lock");
    writeFileSync(lock, "");
    expect(() => acquireStartLock(d)).toThrow(`cannot take the lock ${lock}`);
    expect(readFileSync(lock, "utf8")).toBe("");
    // Left so long ago: a leftover, taken over.
    utimesSync(lock, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    acquireStartLock(d)();
    const holder = live();
    try {
      const boot = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
      // Its pid, as the other namespace numbers it, says nothing here: held.
      writeFileSync(lock, `${holder.pid}\n${boot}\n1\npid:[4026531999]\n`);
      expect(() => acquireStartLock(d)).toThrow("another nor start is running");
      writeFileSync(lock, `999999\n${boot}\n1\npid:[4026531999]\n`);
      expect(() => acquireStartLock(d)).toThrow("another nor start is running");
      // From another boot, whatever its namespace: gone.
      writeFileSync(lock, `${holder.pid}\nanother-boot\n1\npid:[4026531999]\n`);
      acquireStartLock(d)();
    } finally {
      holder.kill("SIGKILL");
    }
  });

  it("P9: four processes taking and giving back one lock 40 times each never hold it at once, and none meets a half-made lock", async () => {
    const d = mkdtempSync(join(dir, "race-"));
    const log = join(d, "log");
    const module = pathToFileURL(join(ROOT, "dist", "night", "night-lock.js")).href;
    const script = `
      const { acquireStartLock } = await import(${JSON.stringify(module)});
      const { appendFileSync } = await import("node:fs");
      let held = 0;
      for (let tries = 0; held < 40 && tries < 200000; tries++) {
        let release;
        try { release = acquireStartLock(${JSON.stringify(d)}); }
        catch (e) { if (!/another nor start/.test(e.message)) throw e; continue; }
        appendFileSync(${JSON.stringify(log)}, "in " + process.pid + "\\n");
        appendFileSync(${JSON.stringify(log)}, "out " + process.pid + "\\n");
        release();
        held++;
      }
      if (held < 40) throw new Error("held only " + held);
    `;
    const ends = await Promise.all(
      Array.from({ length: 4 }, () => {
        const c = spawn(process.execPath, ["--input-type=module", "-e", script], {
          stdio: ["ignore", "ignore", "pipe"],
        });
        let err = "";
        c.stderr?.on("data", (b) => {
          err += b;
        });
        return new Promise<{ code: number | null; err: string }>((resolve) =>
          c.once("exit", (code) => resolve({ code, err })),
        );
      }),
    );
    for (const e of ends) expect(e.code, e.err).toBe(0);
    const lines = readFileSync(log, "utf8").trim().split("\n");
    expect(lines).toHaveLength(4 * 40 * 2);
    // Each "in" is followed by the same process's "out": no one held it while another did.
    for (let i = 0; i < lines.length; i += 2)
      expect(lines[i + 1], `line ${i + 2}`).toBe((lines[i] as string).replace("in ", "out "));
  }, 120_000);

  it("P9: six processes, each killed once while it holds the lock (the lock left behind): the stale lock is taken over by one at a time, never while another holds it", async () => {
    const d = mkdtempSync(join(dir, "deaths-"));
    const log = join(d, "log");
    const module = pathToFileURL(join(ROOT, "dist", "night", "night-lock.js")).href;
    const dieAt = (k: number) => 5 + 4 * k;
    const ends = await Promise.all(
      Array.from({ length: 6 }, (_, k) => {
        const script = `
          const { acquireStartLock } = await import(${JSON.stringify(module)});
          const { appendFileSync } = await import("node:fs");
          let held = 0;
          for (let tries = 0; tries < 400000; tries++) {
            let release;
            try { release = acquireStartLock(${JSON.stringify(d)}); }
            catch (e) { if (!/another nor start|cannot take/.test(e.message)) throw e; continue; }
            appendFileSync(${JSON.stringify(log)}, "in " + process.pid + "\\n");
            appendFileSync(${JSON.stringify(log)}, "out " + process.pid + "\\n");
            held++;
            if (held === ${dieAt(k)}) process.kill(process.pid, "SIGKILL");
            release();
          }
          throw new Error("never killed");
        `;
        const c = spawn(process.execPath, ["--input-type=module", "-e", script], {
          stdio: ["ignore", "ignore", "pipe"],
        });
        let err = "";
        c.stderr?.on("data", (b) => {
          err += b;
        });
        return new Promise<{ signal: NodeJS.Signals | null; err: string }>((resolve) =>
          c.once("exit", (_code, signal) => resolve({ signal, err })),
        );
      }),
    );
    for (const e of ends) expect(e.signal, e.err).toBe("SIGKILL");
    const lines = readFileSync(log, "utf8").trim().split("\n");
    expect(lines.length).toBe(2 * [0, 1, 2, 3, 4, 5].reduce((n, k) => n + dieAt(k), 0));
    for (let i = 0; i < lines.length; i += 2)
      expect(lines[i + 1], `line ${i + 2}`).toBe((lines[i] as string).replace("in ", "out "));
  }, 120_000);
});
