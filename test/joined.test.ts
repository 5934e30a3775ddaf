import { mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cliModule, INPUTS_FILE } from "../src/joined.js";

/**
 * Which build bin/nor.js loads (src/joined.ts): the joined engine only while every module it was
 * joined from is the file it was then. A dist/ of its own in a temporary directory.
 */
let dist: string;
const url = () => pathToFileURL(`${dist}/`);
const write = (file: string, text: string) => {
  mkdirSync(join(dist, file, ".."), { recursive: true });
  writeFileSync(join(dist, file), text);
};
const list = (files: string[]) =>
  write(
    INPUTS_FILE,
    JSON.stringify({
      modules: files.map((file) => {
        const s = statSync(join(dist, file));
        return { file, size: s.size, mtimeMs: s.mtimeMs };
      }),
    }),
  );
const compiled = () => pathToFileURL(join(dist, "cli", "main.js")).href;
const joined = () => pathToFileURL(join(dist, "engine", "main.js")).href;

beforeEach(() => {
  dist = mkdtempSync(join(tmpdir(), "nor-joined-"));
  write("cli/main.js", "export const main = 1;\n");
  write("cli/commands/log.js", "export const log = 1;\n");
  write("engine/main.js", "export const main = 2;\n");
});
afterEach(() => rmSync(dist, { recursive: true, force: true }));

describe("the joined engine runs only while it is up to date", () => {
  it("runs the joined engine when every module listed is unchanged", () => {
    list(["cli/main.js", "cli/commands/log.js"]);
    expect(cliModule(url())).toEqual({ url: new URL(joined()), joined: true });
  });

  it("runs the compiled modules when there is no list (never joined, or not finished)", () => {
    expect(cliModule(url())).toEqual({ url: new URL(compiled()), joined: false });
    write(INPUTS_FILE, "{ not json");
    expect(cliModule(url()).joined).toBe(false);
    write(INPUTS_FILE, JSON.stringify({ modules: [] }));
    expect(cliModule(url()).joined).toBe(false);
  });

  it("runs the compiled modules when one module was rewritten since (a `tsc --watch` of one file)", () => {
    list(["cli/main.js", "cli/commands/log.js"]);
    const s = statSync(join(dist, "cli/commands/log.js"));
    // The same size, a later time: as a rewrite with an edit of the same length.
    utimesSync(join(dist, "cli/commands/log.js"), s.atime, new Date(s.mtimeMs + 5));
    expect(cliModule(url())).toEqual({ url: new URL(compiled()), joined: false });
  });

  it("runs the compiled modules when a module's size differs at the same time, or it is gone", () => {
    const at = (file: string) => {
      const s = statSync(join(dist, file));
      return { file, size: s.size, mtimeMs: s.mtimeMs };
    };
    const log = at("cli/commands/log.js");
    write(
      INPUTS_FILE,
      JSON.stringify({ modules: [at("cli/main.js"), { ...log, size: log.size + 1 }] }),
    );
    expect(cliModule(url()).joined).toBe(false);
    list(["cli/main.js", "cli/commands/log.js"]);
    expect(cliModule(url()).joined).toBe(true);
    rmSync(join(dist, "cli/commands/log.js"));
    expect(cliModule(url())).toEqual({ url: new URL(compiled()), joined: false });
  });
});
