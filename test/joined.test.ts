import { mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cliModule, INPUTS_FILE } from "../src/joined.js";

/**
 * Which build bin/nor.js loads (src/joined.ts): the joined engine only while every module it was
 * joined from is the file it was then, and older than the list. A dist/ of its own in a
 * temporary directory; its modules dated ten seconds back, as tsc wrote them before the build.
 */
let dist: string;
const url = () => pathToFileURL(`${dist}/`);
const write = (file: string, text: string, at?: Date) => {
  mkdirSync(join(dist, file, ".."), { recursive: true });
  writeFileSync(join(dist, file), text);
  if (at) utimesSync(join(dist, file), at, at);
};
const ENTRY = "main-Ab12_-x.js";
const at = (file: string) => {
  const s = statSync(join(dist, file));
  return { file, size: s.size, mtimeMs: s.mtimeMs };
};
const listAs = (modules: object[], entry: string = ENTRY) =>
  write(INPUTS_FILE, JSON.stringify({ entry, modules }));
const list = (files: string[]) => listAs(files.map(at));
const compiled = () => ({ url: pathToFileURL(join(dist, "cli", "main.js")), joined: false });
const joined = () => ({ url: pathToFileURL(join(dist, "engine", ENTRY)), joined: true });

beforeEach(() => {
  dist = mkdtempSync(join(tmpdir(), "nor-joined-"));
  const then = new Date(Date.now() - 10_000);
  write("cli/main.js", "export const main = 1;\n", then);
  write("cli/commands/log.js", "export const log = 1;\n", then);
  write(`engine/${ENTRY}`, "export const main = 2;\n");
});
afterEach(() => rmSync(dist, { recursive: true, force: true }));

describe("the joined engine runs only while it is up to date", () => {
  it("runs the joined engine when every module listed is unchanged and older than the list", () => {
    list(["cli/main.js", "cli/commands/log.js"]);
    expect(cliModule(url())).toEqual(joined());
  });

  it("runs the compiled modules when there is no list (never joined, or not finished), or it makes no sense", () => {
    expect(cliModule(url())).toEqual(compiled());
    write(INPUTS_FILE, "{ not json");
    expect(cliModule(url())).toEqual(compiled());
    listAs([]);
    expect(cliModule(url())).toEqual(compiled());
    listAs([at("cli/main.js")], "../../elsewhere.js");
    expect(cliModule(url())).toEqual(compiled());
    write(INPUTS_FILE, JSON.stringify({ modules: [at("cli/main.js")] }));
    expect(cliModule(url())).toEqual(compiled());
  });

  it("runs the compiled modules when one module was rewritten since (a `tsc --watch` of one file)", () => {
    list(["cli/main.js", "cli/commands/log.js"]);
    const s = statSync(join(dist, "cli/commands/log.js"));
    // The same size, a later time: as a rewrite with an edit of the same length.
    utimesSync(join(dist, "cli/commands/log.js"), s.atime, new Date(s.mtimeMs + 5));
    expect(cliModule(url())).toEqual(compiled());
  });

  it("runs the compiled modules when a module's time went back (a clock set back, a copy with other times)", () => {
    list(["cli/main.js", "cli/commands/log.js"]);
    const s = statSync(join(dist, "cli/commands/log.js"));
    utimesSync(join(dist, "cli/commands/log.js"), s.atime, new Date(s.mtimeMs - 5000));
    expect(cliModule(url())).toEqual(compiled());
  });

  it("runs the compiled modules when a module's size differs at the same time, or it is gone", () => {
    const log = at("cli/commands/log.js");
    listAs([at("cli/main.js"), { ...log, size: log.size + 1 }]);
    expect(cliModule(url())).toEqual(compiled());
    list(["cli/main.js", "cli/commands/log.js"]);
    expect(cliModule(url())).toEqual(joined());
    rmSync(join(dist, "cli/commands/log.js"));
    expect(cliModule(url())).toEqual(compiled());
  });

  it("runs the compiled modules when a module is not older than the list (rewritten in the list's own second)", () => {
    list(["cli/main.js", "cli/commands/log.js"]);
    const s = statSync(join(dist, "cli/commands/log.js"));
    // A file system keeping whole seconds: the list and a module rewritten just after it share
    // one time, and the module's size did not change.
    utimesSync(join(dist, INPUTS_FILE), s.atime, s.mtime);
    expect(cliModule(url())).toEqual(compiled());
  });
});
