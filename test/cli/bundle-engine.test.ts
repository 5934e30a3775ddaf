import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cliModule } from "../../src/joined.js";
import { ROOT } from "./run-nor.js";

/**
 * scripts/bundle-engine.mjs over a small dist/ of its own (the real one is checked by
 * lazy-load.test.ts): what it rewrites, what it refuses, what it keeps for processes started on
 * an earlier build. A build script, so it runs as `npm run build` runs it: a process of its own.
 */
let dist: string;
const write = (file: string, text: string) => {
  mkdirSync(dirname(join(dist, file)), { recursive: true });
  writeFileSync(join(dist, file), text);
  // As tsc wrote them, a while before the build.
  const then = new Date(Date.now() - 10_000);
  utimesSync(join(dist, file), then, then);
};
const join_ = () =>
  spawnSync(process.execPath, [join(ROOT, "scripts", "bundle-engine.mjs"), dist], {
    encoding: "utf8",
    env: { ...process.env },
    timeout: 60_000,
  });
const inputs = () =>
  JSON.parse(readFileSync(join(dist, "engine", "inputs.json"), "utf8")) as {
    entry: string;
    modules: { file: string }[];
  };

beforeEach(() => {
  dist = mkdtempSync(join(tmpdir(), "nor-bundle-engine-"));
});
afterEach(() => rmSync(dist, { recursive: true, force: true }));

describe("the engine joined (scripts/bundle-engine.mjs)", () => {
  it("gives each module's import.meta.url as its own file in dist/, and leaves strings, templates and comments as written", async () => {
    write(
      "cli/main.js",
      [
        'import { here as sub } from "./deep/sub.js";',
        "// import.meta.url, in a comment",
        "const here = import.meta.url;",
        'const text = "import.meta.url";',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the text of a template literal
        "const tpl = `import.meta.url: ${import.meta.url}`;",
        "export async function main() {",
        '  const lazy = await import("./deep/lazy.js");',
        "  return { here, text, tpl, sub, lazy: lazy.here };",
        "}",
        "",
      ].join("\n"),
    );
    write("cli/deep/sub.js", "export const here = import.meta.url;\n");
    write("cli/deep/lazy.js", "export const here = new URL('./x.txt', import.meta.url).href;\n");
    const r = join_();
    expect(r.status, r.stderr).toBe(0);
    const entry = cliModule(pathToFileURL(`${dist}/`));
    expect(entry.joined).toBe(true);
    expect(entry.url.pathname).toMatch(/\/engine\/main-[\w-]+\.js$/);
    const { main } = (await import(entry.url.href)) as { main: () => Promise<unknown> };
    const own = (file: string) => pathToFileURL(join(dist, file)).href;
    expect(await main()).toEqual({
      here: own("cli/main.js"),
      text: "import.meta.url",
      tpl: `import.meta.url: ${own("cli/main.js")}`,
      sub: own("cli/deep/sub.js"),
      lazy: own("cli/deep/x.txt"),
    });
    // The lazy import stayed a chunk of its own.
    expect(readdirSync(join(dist, "engine")).filter((f) => f.endsWith(".js")).length).toBe(2);
    expect(inputs().modules.map((m) => m.file)).toEqual([
      "cli/deep/lazy.js",
      "cli/deep/sub.js",
      "cli/main.js",
    ]);
  });

  it("stops at any other use of import.meta, naming the file and line, and writes no list", () => {
    for (const use of [
      "const m = import.meta; export const main = () => m.filename;",
      'export const main = () => import.meta["dirname"];',
      "export const main = () => import.meta?.filename;",
      "export const main = () => import.meta.resolve('./x.js');",
    ]) {
      write("cli/main.js", `\n${use}\n`);
      const r = join_();
      expect(r.status, use).not.toBe(0);
      expect(r.stderr).toContain(`${join(dist, "cli", "main.js")}:2 uses import.meta other than`);
      expect(existsSync(join(dist, "engine", "inputs.json"))).toBe(false);
    }
  });

  it("joins a dist/ reached through a link", () => {
    write("cli/main.js", "export const main = () => import.meta.url;\n");
    const link = `${dist}-link`;
    symlinkSync(dist, link);
    try {
      const r = spawnSync(process.execPath, [join(ROOT, "scripts", "bundle-engine.mjs"), link], {
        encoding: "utf8",
        env: { ...process.env },
        timeout: 60_000,
      });
      expect(r.status, r.stderr).toBe(0);
      expect(cliModule(pathToFileURL(`${link}/`)).joined).toBe(true);
    } finally {
      rmSync(link, { force: true });
    }
  });

  it("leaves the engine unjoined, and says so, when a module's time is ahead of the clock (its second not over: it could change unseen)", () => {
    write("cli/main.js", "export const main = () => 1;\n");
    const ahead = new Date(Date.now() + 60_000);
    utimesSync(join(dist, "cli", "main.js"), ahead, ahead);
    const r = join_();
    expect(r.status).toBe(0);
    expect(r.stderr).toContain("the engine is not joined this time");
    expect(existsSync(join(dist, "engine", "inputs.json"))).toBe(false);
    expect(cliModule(pathToFileURL(`${dist}/`)).joined).toBe(false);
  });

  it("leaves the engine unjoined, and says so, when a module is rewritten while the build reads it or after its wait began", () => {
    write("cli/main.js", "export const main = () => 1;\n");
    const target = join(dist, "cli", "main.js");
    // A preload standing for another build's tsc: it rewrites the module as the build reads it
    // (appending: another size), or just before (the same size, a time after the build began).
    const preload = join(dist, "rewrite.mjs");
    for (const [how, said] of [
      ["append", "changed while it was read"],
      ["before", "changed since the build began"],
    ] as const) {
      writeFileSync(
        preload,
        `import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
const how = ${JSON.stringify(how)};
const target = ${JSON.stringify(target)};
const read = fs.readFileSync;
const stat = fs.statSync;
let stats = 0;
let done = false;
// The build stats each module before its wait, then again as it reads it: "before" rewrites
// it between the two (after the wait began), "append" while it is read.
fs.statSync = function (path, ...rest) {
  if (how === "before" && path === target && ++stats === 2) {
    fs.writeFileSync(path, "export const main = () => 2;\\n");
  }
  return stat.call(this, path, ...rest);
};
fs.readFileSync = function (path, ...rest) {
  const out = read.call(this, path, ...rest);
  if (how === "append" && !done && path === target) {
    done = true;
    fs.appendFileSync(path, "\\n");
  }
  return out;
};
syncBuiltinESMExports();
`,
      );
      write("cli/main.js", "export const main = () => 1;\n");
      const r = spawnSync(
        process.execPath,
        ["--import", pathToFileURL(preload).href, join(ROOT, "scripts", "bundle-engine.mjs"), dist],
        { encoding: "utf8", env: { ...process.env }, timeout: 60_000 },
      );
      expect(r.status, r.stderr).toBe(0);
      expect(r.stderr).toContain(`the engine is not joined this time: ${target} ${said}`);
      expect(existsSync(join(dist, "engine", "inputs.json"))).toBe(false);
    }
  });

  it("keeps the chunks of an earlier build, which a process started on it may still import", () => {
    write("cli/main.js", 'export const main = () => import("./lazy.js");\n');
    write("cli/lazy.js", "export const v = 1;\n");
    expect(join_().status).toBe(0);
    const first = readdirSync(join(dist, "engine"));
    const before = inputs().entry;
    write("cli/lazy.js", "export const v = 2;\n");
    expect(join_().status).toBe(0);
    const second = readdirSync(join(dist, "engine"));
    expect(inputs().entry).not.toBe(before);
    // Every file of the first build is still there, beside the second's.
    expect(first.filter((f) => !second.includes(f))).toEqual([]);
    expect(second.length).toBeGreaterThan(first.length);
  });

  it("the real build's source maps lead back to src/, each chunk's", () => {
    const engine = join(ROOT, "dist", "engine");
    const { entry } = JSON.parse(readFileSync(join(engine, "inputs.json"), "utf8")) as {
      entry: string;
    };
    const code = readFileSync(join(engine, entry), "utf8");
    expect(code).toContain(`//# sourceMappingURL=${entry}.map`);
    // This build's chunks: the entry, and those it names.
    const named = code.match(/[\w-]+\.js(?=")/g) ?? [];
    // A chunk that only re-exports another (a lazy import's facade) has no code to map.
    const chunks = [entry, ...named].filter((f) =>
      readFileSync(join(engine, f), "utf8").includes(`//# sourceMappingURL=${f}.map`),
    );
    expect(chunks.length).toBeGreaterThan(5);
    for (const chunk of chunks) {
      const map = JSON.parse(readFileSync(join(engine, `${chunk}.map`), "utf8")) as {
        sources: string[];
      };
      expect(map.sources.length, chunk).toBeGreaterThan(0);
      for (const s of map.sources) {
        const file = resolve(engine, s);
        expect(file.startsWith(`${join(ROOT, "src")}/`), `${chunk}: ${s}`).toBe(true);
        expect(file.endsWith(".ts"), s).toBe(true);
        expect(existsSync(file), s).toBe(true);
      }
    }
  });
});
