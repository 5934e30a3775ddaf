import { spawnSync } from "node:child_process";
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { load as esmLoad } from "cheerio";
import { afterAll, describe, expect, it } from "vitest";
import { decodeBody } from "../../../src/policy/body-text.js";
import { load } from "../../../src/sources/extract/cheerio-load.js";
import { buildCli, ROOT } from "../../cli/run-nor.js";

const FIXTURES = join(import.meta.dirname, "..", "..", "fixtures");

/**
 * The engine's cheerio `load` (src/sources/extract/cheerio-load.ts) is the package's own, taken
 * from the file that makes it: the very function cheerio's CommonJS index gives, so every page,
 * form and preset is parsed exactly as through `require("cheerio")`.
 */
describe("cheerio's load, without cheerio's index", () => {
  it("P6: is the function cheerio itself exports, and parses a page as it does", () => {
    const cheerio = createRequire(import.meta.url)("cheerio") as typeof import("cheerio");
    expect(load).toBe(cheerio.load);
    const $ = load(`<ul><li class="bid"><a href="/b/1">Road &amp; salt</a></li></ul>`);
    expect($("li.bid a").text()).toBe("Road & salt");
    expect($("li.bid a").attr("href")).toBe("/b/1");
  });

  it("P6: over every HTML fixture, gives the document and body text cheerio's ES module gives", () => {
    // The ES module entry (dist/esm) is another copy of cheerio's code than the CommonJS one
    // the engine loads: the two must read real pages alike, markup and text.
    const files = readdirSync(FIXTURES, { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith(".html"))
      .sort();
    expect(files.length).toBeGreaterThanOrEqual(50);
    for (const f of files) {
      // Decoded once, as the engine decodes a page it fetched, and handed to both.
      const html = decodeBody(readFileSync(join(FIXTURES, f)));
      const ours = load(html);
      const theirs = esmLoad(html);
      expect(ours.html(), f).toBe(theirs.html());
      const text = ours("body").text();
      expect(text, f).toBe(theirs("body").text());
    }
  });
});

/**
 * The fallback: a cheerio with no load-parse.js, or one whose load-parse.js makes no `load`, is
 * loaded whole through its index. Which `load` the module takes is decided once, when it is
 * first imported, from the cheerio beside it; so the built module (dist/, as `nor` runs it) is
 * copied next to a small stand-in cheerio and imported by a fresh Node process.
 */
describe("cheerio's load when load-parse.js is not there to take it from", () => {
  const made: string[] = [];
  afterAll(() => {
    for (const d of made) rmSync(d, { recursive: true, force: true });
  });

  /** Which `load` the built module takes beside a stand-in cheerio, and whether its index ran. */
  function takenWith(loadParse: string | undefined): { load: string; indexRan: boolean } {
    buildCli();
    const root = mkdtempSync(join(tmpdir(), "nor-cheerio-load-"));
    made.push(root);
    writeFileSync(join(root, "package.json"), `{ "type": "module" }\n`);
    for (const f of ["cjs.js", "sources/extract/cheerio-load.js"]) {
      mkdirSync(dirname(join(root, "dist", f)), { recursive: true });
      cpSync(join(ROOT, "dist", f), join(root, "dist", f));
    }
    // As cheerio's own: the `require` condition names the CommonJS index.
    const pkg = join(root, "node_modules", "cheerio");
    mkdirSync(join(pkg, "commonjs"), { recursive: true });
    writeFileSync(
      join(pkg, "package.json"),
      JSON.stringify({
        name: "cheerio",
        exports: { import: "./esm/index.js", require: "./commonjs/index.js" },
      }),
    );
    writeFileSync(
      join(pkg, "commonjs", "index.js"),
      "globalThis.cheerioIndexRan = true;\nexports.load = function indexLoad() {};\n",
    );
    if (loadParse !== undefined) writeFileSync(join(pkg, "commonjs", "load-parse.js"), loadParse);
    const r = spawnSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `const { load } = await import(process.argv[1]);
console.log(JSON.stringify({ load: load.name, indexRan: globalThis.cheerioIndexRan === true }));`,
        pathToFileURL(join(root, "dist", "sources", "extract", "cheerio-load.js")).href,
      ],
      { encoding: "utf8", timeout: 30_000 },
    );
    expect(r.status, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as { load: string; indexRan: boolean };
  }

  it("P6: with no load-parse.js, takes the index's load", () => {
    expect(takenWith(undefined)).toEqual({ load: "indexLoad", indexRan: true });
  });

  it("P6: with a load-parse.js that makes no load, takes the index's load", () => {
    expect(takenWith("exports.parse = function parse() {};\n")).toEqual({
      load: "indexLoad",
      indexRan: true,
    });
  });

  it("P6: the control: with load-parse.js making load, takes it and never runs the index", () => {
    expect(takenWith("exports.load = function partLoad() {};\n")).toEqual({
      load: "partLoad",
      indexRan: false,
    });
  });
});
