import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { runStart } from "../../src/cli/commands/start.js";
import { main } from "../../src/cli/main.js";
import { shellCommand, shellWord } from "../../src/cli/shell-words.js";
import { ManualClock } from "../../src/clock.js";
import { openStore } from "../../src/store/db.js";
import { nor } from "./cli-capture.js";

/**
 * The commands nor prints for a person to copy (`nor demo`'s "in another terminal" lines, the
 * console-off hint of `nor start` and `nor serve`) are quoted for a POSIX shell where a word
 * needs it: pasted, they hand nor the very data directory it used, a space, a quote or a letter
 * outside ASCII in its path included. Each is checked by the shell itself (`sh -c`).
 */

/** The words `sh` makes of a command line, as the program it runs would get them. */
function shellSplit(line: string): string[] {
  const r = spawnSync("sh", ["-c", `printf '%s\\0' ${line}`], { encoding: "utf8" });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.replace(/\0$/, "").split("\0");
}

/** The command between the backquotes of a hint. */
function quoted(line: string): string {
  const m = /`([^`]*)`/.exec(line);
  expect(m, line).not.toBeNull();
  return m![1]!;
}

const dirs: string[] = [];
function tmp(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("shellWord / shellCommand", () => {
  it("leaves plain words as they are and quotes the rest so sh reads back the same word", () => {
    for (const plain of ["/tmp/data", "nor", "--data", "bin/nor.js", "a-b_c.d:e,f=g+h@i%j", "0"])
      expect(shellWord(plain)).toBe(plain);
    const awkward = [
      "/tmp/x/dëmo dir",
      "/tmp/st art",
      "it's",
      "'",
      "''",
      'say "hi"',
      "$HOME",
      "$" + "{HOME}",
      "`id`",
      "$(id)",
      "back\\slash",
      "bang!",
      "*",
      "?",
      "[ab]",
      "~",
      "~/data",
      "a;b",
      "a&b",
      "a|b",
      "(x)",
      "<in",
      ">out",
      "#comment",
      "tab\there",
      "new\nline",
      "=cmd",
      "{a,b}",
      "",
    ];
    for (const w of awkward) {
      expect(shellWord(w)).toMatch(/^'.*'$/s);
      expect(shellSplit(shellCommand("x", w, "y")), JSON.stringify(w)).toEqual(["x", w, "y"]);
    }
    expect(shellWord("it's")).toBe("'it'\\''s'");
  });
});

describe("printed commands name the data directory, quoted for the shell", () => {
  it("nor demo --data with a space and a non-ASCII letter: its status and log lines paste back to the same path", async () => {
    const data = join(tmp("nor-quoted-demo-"), "dëmo dir");
    const r = await nor("demo", "--headless", "--port", "0", "--gap-ms", "0", "--data", data);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const lines = r.stdout.split("\n");
    const status = lines.find((l) => l.startsWith("  node bin/nor.js status "));
    const log = lines.find((l) => l.startsWith("  node bin/nor.js log "));
    expect(status).toBe(`  node bin/nor.js status --data '${data}'`);
    expect(shellSplit(status!.trim())).toEqual(["node", "bin/nor.js", "status", "--data", data]);
    expect(shellSplit(log!.trim())).toEqual([
      "node",
      "bin/nor.js",
      "log",
      "--data",
      data,
      "--source",
      "eastfield-township-minutes",
    ]);
  }, 120_000);

  it("nor start --data with a space, a quote and a non-ASCII letter: the set-password hint pastes back to the same path", async () => {
    const dir = tmp("nor-quoted-start-");
    const catalog = join(dir, "catalog.yaml");
    writeFileSync(
      catalog,
      `governments:
  - { id: village-of-start, name: Village of Start, kind: village, county: Franklin }
sources:
  - { id: start-agendas, government: village-of-start, records: agendas, url: "http://127.0.0.1:9/agendas.rss" }
`,
    );
    const data = join(dir, "st art's dätä");
    const lines: string[] = [];
    let hinted: () => void = () => {};
    const hint = new Promise<void>((done) => (hinted = done));
    const stop = new AbortController();
    const running = runStart(
      {
        catalog: [catalog],
        data,
        host: "127.0.0.1",
        port: "0",
        at: "01:00",
        zone: "America/New_York",
      },
      {
        // Midday in New York: the night is hours away.
        clock: new ManualClock(Date.UTC(2026, 10, 5, 17, 0, 0)),
        say: (line) => {
          lines.push(line);
          if (line.includes("the console is off")) hinted();
        },
        signal: stop.signal,
      },
    );
    await Promise.race([hint, running]);
    stop.abort();
    await running;
    const line = lines.find((l) => l.includes("the console is off"));
    expect(line, lines.join("\n")).toBe(
      `the console is off: no operator password is set (run \`npx nor operator set-password --data '${dir}/st art'\\''s dätä'\` in the project's folder, then restart)`,
    );
    expect(shellSplit(quoted(line!))).toEqual([
      "npx",
      "nor",
      "operator",
      "set-password",
      "--data",
      data,
    ]);
  }, 60_000);

  it("nor serve names the data directory it serves in its set-password hint, quoted", async () => {
    const data = join(tmp("nor-quoted-serve-"), "sërve dir");
    mkdirSync(data);
    await (await openStore({ kind: "sqlite", dir: data })).close();
    const out: string[] = [];
    const before = new Set(process.listeners("SIGTERM"));
    // Stopped as a SIGTERM would stop it, without a signal sent to this test process (from
    // within the command's own output, so its last line goes where the rest went).
    const stopServe = () =>
      setImmediate(() => {
        for (const l of process.listeners("SIGTERM"))
          if (!before.has(l)) (l as (s: NodeJS.Signals) => void)("SIGTERM");
      });
    const saved = process.env["NOR_DATABASE_URL"];
    delete process.env["NOR_DATABASE_URL"];
    try {
      const running = main(["node", "nor", "serve", "--data", data, "--port", "0"], {
        stdout: {
          isTTY: false,
          write: (c) => {
            out.push(String(c));
            if (String(c).includes("the console is off")) stopServe();
          },
        },
        stderr: { isTTY: false, write: (c) => void out.push(String(c)) },
        stdin: Readable.from([]),
      });
      expect(await running, out.join("")).toBe(0);
    } finally {
      if (saved !== undefined) process.env["NOR_DATABASE_URL"] = saved;
      process.exitCode = 0;
    }
    const line = out
      .join("")
      .split("\n")
      .find((l) => l.includes("the console is off"));
    expect(line, out.join("")).toBe(
      `nor serve: the console is off: no operator password is set (run \`npx nor operator set-password --data '${data}'\` in the project's folder, then restart)`,
    );
    expect(shellSplit(quoted(line!))).toEqual([
      "npx",
      "nor",
      "operator",
      "set-password",
      "--data",
      data,
    ]);
  }, 60_000);
});
