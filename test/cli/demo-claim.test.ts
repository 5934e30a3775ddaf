import { type ChildProcess, spawn } from "node:child_process";
import * as fs from "node:fs";
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { demoDataDir } from "../../src/cli/commands/demo.js";
import { buildCli, ROOT } from "./run-nor.js";

/**
 * `nor demo --data DIR` claims DIR before it starts anything: two demos started at the same
 * moment on one empty directory both found it empty and both went ahead, writing one store.
 * The claim is the demo's catalog file made with O_EXCL: only one process makes it; the other
 * is refused as for a directory not empty (exit 2).
 */

/**
 * What the demo sees when it lists a directory: while `blind` is set, its first look finds
 * nothing (a demo that looked a moment before the other made anything); later looks see all.
 */
let blind = false;
vi.mock("node:fs", async (original) => {
  const real = await original<typeof import("node:fs")>();
  const readdir = ((...args: Parameters<typeof real.readdirSync>) => {
    if (!blind) return real.readdirSync(...args);
    blind = false;
    return [];
  }) as typeof real.readdirSync;
  return { ...real, readdirSync: readdir, default: { ...real, readdirSync: readdir } };
});

const dir = mkdtempSync(join(tmpdir(), "nor-demo-claim-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("nor demo --data: the claim of the directory", () => {
  it("a second demo that found the directory empty in the same moment is refused once the first has claimed it; nothing of the first is touched", () => {
    const data = join(dir, "race");
    mkdirSync(data);
    expect(demoDataDir(data)).toBe(data);
    expect(fs.readdirSync(data)).toEqual(["demo-catalog.yaml"]);
    // The second looked before the first's claim, and found nothing.
    blind = true;
    try {
      expect(() => demoDataDir(data)).toThrow(
        `--data ${data} is not empty: the demo needs a new or empty directory`,
      );
    } finally {
      blind = false;
    }
    expect(fs.readdirSync(data)).toEqual(["demo-catalog.yaml"]);
    // And one that looks after it is refused alike.
    expect(() => demoDataDir(data)).toThrow(`--data ${data} is not empty`);
  });

  it("a directory made meanwhile with something else in it is let go: refused, and the claim removed", () => {
    const data = join(dir, "other");
    mkdirSync(data);
    fs.writeFileSync(join(data, "notes.txt"), "mine\n");
    blind = true;
    try {
      expect(() => demoDataDir(data)).toThrow(`--data ${data} is not empty`);
    } finally {
      blind = false;
    }
    expect(fs.readdirSync(data)).toEqual(["notes.txt"]);
  });
});

describe("two nor demo --data DIR started at once on one empty directory", () => {
  beforeAll(() => buildCli());

  it("one goes ahead, the other is refused (exit 2) with nothing started", async () => {
    const data = join(dir, "two");
    mkdirSync(data);
    const base = { ...process.env };
    delete base["NOR_DATABASE_URL"];
    const start = () => {
      const child = spawn(
        process.execPath,
        [
          join(ROOT, "bin", "nor.js"),
          ...["demo", "--headless", "--port", "0", "--gap-ms", "0", "--data", data],
        ],
        { cwd: ROOT, env: base, stdio: ["ignore", "pipe", "pipe"] },
      );
      let out = "";
      let err = "";
      child.stdout?.on("data", (c: Buffer) => {
        out += c.toString();
      });
      child.stderr?.on("data", (c: Buffer) => {
        err += c.toString();
      });
      const ended = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
      let code: number | null | undefined;
      void ended.then((c) => {
        code = c;
      });
      return { child, out: () => out, err: () => err, ended, code: () => code };
    };
    const demos = [start(), start()];
    const killAll = (all: { child: ChildProcess }[]) => {
      for (const d of all) if (d.child.exitCode === null) d.child.kill("SIGKILL");
    };
    try {
      // The first to end is the one refused; the other is then stopped in order (SIGTERM).
      let first: (typeof demos)[number] | undefined;
      for (let i = 0; i < 1200 && first === undefined; i++) {
        first = demos.find((d) => d.code() !== undefined);
        if (first === undefined) await new Promise((r) => setTimeout(r, 50));
      }
      expect(first, "neither demo ended").toBeDefined();
      const refused = first as (typeof demos)[number];
      const other = demos.find((d) => d !== refused) as (typeof demos)[number];
      expect(refused.code(), refused.err()).toBe(2);
      expect(refused.err()).toBe(
        `nor: --data ${data} is not empty: the demo needs a new or empty directory\n`,
      );
      expect(refused.out()).toBe("");
      other.child.kill("SIGTERM");
      let code: number | null | undefined;
      for (let i = 0; i < 600 && code === undefined; i++) {
        code = other.code();
        if (code === undefined) await new Promise((r) => setTimeout(r, 50));
      }
      expect(code, other.err()).toBe(0);
      expect(other.out()).toContain("New on Record demo");
      expect(readdirSync(data)).toContain("demo-catalog.yaml");
    } finally {
      killAll(demos);
    }
  }, 90_000);
});
