import { spawn, spawnSync } from "node:child_process";
import {
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/db.js";
import { writeVillageCatalog } from "./catalogs.js";
import { nor } from "./cli-capture.js";
import { buildCli, ROOT } from "./run-nor.js";

/**
 * Commands load lazily: `nor --help` and `nor log` must not pay for the fetcher (undici), the
 * HTML parser (cheerio), the web server (hono), the PostgreSQL driver or the archive. Which
 * modules a command loads can only be seen in a fresh process, so this one test spawns `nor`
 * with a preload that writes down, as it exits, every module it loaded. Counts, never wall time.
 */
const HEAVY =
  /\/node_modules\/(cheerio|undici|hono|@hono|pg|pino|warcio|feedsmith|entities)\/|\/dist\/vendor\/feedsmith\.js$/;

let dir: string;
/** The node options that trace a process: see beforeAll. */
let TRACE: string[];
/** catalog/ohio.yaml cut to one entry of each shape (ohioShapes), written in beforeAll. */
let OHIO: string;

/**
 * The bundled catalog (catalog/ohio.yaml) cut to the first entry of each shape, and the
 * governments those name: what `nor catalog check` and `stats` load depends on what kinds of
 * entry a catalog holds (its ways, presets, extract selectors, quoting, characters outside
 * ASCII), never on how many of each, and the catalog's code loads no module of its own accord
 * (no dynamic import there). A shape: each line's key and nesting, how its value is written
 * (plain, quoted, a flow map), and the value itself for the keys that choose code (access,
 * platform, records, kind, why, confirmed). About 110 entries of its 1,500, read in a quarter
 * of the CPU (the whole catalog costs a fresh process about 1 s, mostly the YAML parser): the
 * same modules loaded, file for file, compiled and joined (compared when this was written).
 * Cut from the file as it is, so a new kind of entry there is in it too.
 */
function ohioShapes(text: string): string {
  interface Entry {
    lines: string[];
  }
  const head: string[] = [];
  const sections: { name: string; line: string; other: string[]; entries: Entry[] }[] = [];
  let entry: Entry | undefined;
  for (const line of text.split("\n")) {
    const top = /^([a-z_]+):/.exec(line);
    const section = sections.at(-1);
    if (top?.[1]) {
      sections.push({ name: top[1], line, other: [], entries: [] });
      entry = undefined;
    } else if (!section) head.push(line);
    else if (line.startsWith("  - ")) {
      entry = { lines: [line] };
      section.entries.push(entry);
    } else if (entry) entry.lines.push(line);
    else section.other.push(line);
  }
  const CHOOSES = /^(access|platform|records|kind|why|confirmed)$/;
  const shapeOf = (e: Entry) =>
    e.lines
      .map((l) => {
        const m = /^(\s*(?:- )?)([\w-]+):\s*(.*)$/.exec(l);
        if (!m) return l.trim() === "" || l.trim().startsWith("#") ? "" : `?${l}`;
        const [, indent = "", key = "", value = ""] = m;
        const written = /^["'{[|>]/.test(value) ? value[0] : value === "" ? "" : ".";
        const wide = /[^\x20-\x7e]|&/.test(value) ? "!" : "";
        return `${indent}${key}${CHOOSES.test(key) ? `=${value}` : written}${wide}`;
      })
      .join("|");
  const valueAt = (e: Entry, key: string) =>
    e.lines.map((l) => new RegExp(`^\\s*(?:- )?${key}: (\\S+)`).exec(l)?.[1]).find(Boolean);
  const kept = new Set<Entry>();
  const named = new Set<string>();
  for (const s of sections) {
    const seen = new Set<string>();
    for (const e of s.entries) {
      const shape = shapeOf(e);
      if (seen.has(shape)) continue;
      seen.add(shape);
      kept.add(e);
      const government = valueAt(e, "government");
      if (government) named.add(government);
    }
  }
  for (const s of sections)
    if (s.name === "governments")
      for (const e of s.entries) if (named.has(valueAt(e, "id") ?? "")) kept.add(e);
  return [
    ...head,
    ...sections.flatMap((s) => [
      s.line,
      ...s.other,
      ...s.entries.filter((e) => kept.has(e)).flatMap((e) => e.lines),
    ]),
  ].join("\n");
}

beforeAll(() => {
  buildCli();
  dir = mkdtempSync(join(tmpdir(), "nor-lazy-"));
  OHIO = join(dir, "ohio-shapes.yaml");
  writeFileSync(OHIO, ohioShapes(readFileSync(join(ROOT, "catalog", "ohio.yaml"), "utf8")));
  // Which modules a process loaded, read from Node's own records as it exits: the ES module
  // loader's cache (every URL it loaded: ES modules, and a CommonJS file an ES module imports)
  // and require.cache (every file require()d). Nothing runs per module. The loader hook this
  // replaced (module.register) ran on a thread of its own, started in each process, and crossed
  // to it for every module: it doubled what a traced `nor night --help` cost in CPU. The ES
  // module cache is Node's internal (--expose-internals); on a Node without it, the hook.
  writeFileSync(
    join(dir, "hooks.mjs"),
    `import { appendFileSync } from "node:fs";
export async function load(url, context, next) {
  appendFileSync(process.env.NOR_MODULE_TRACE, url + "\\n");
  return next(url, context);
}
`,
  );
  // bin/nor.js as it was before the engine was joined: dist/cli/main.js, module by module.
  writeFileSync(
    join(dir, "compiled.mjs"),
    `import { main } from ${JSON.stringify(pathToFileURL(join(ROOT, "dist", "cli", "main.js")).href)};
main(process.argv).then((code) => { process.exitCode = code; });
`,
  );
  const register = join(dir, "trace.cjs");
  TRACE = ["--expose-internals", "--require", register];
  // Appended, not written: a worker thread (which runs this too) adds its own as it ends of
  // itself; one ended by terminate() (the API's read pool on close) writes nothing, so what
  // only such a worker loads is not seen here.
  writeFileSync(
    register,
    `const { appendFileSync } = require("node:fs");
const Module = require("node:module");
const { pathToFileURL } = require("node:url");
let cascaded;
try {
  cascaded = require("internal/modules/esm/loader").getOrInitializeCascadedLoader;
} catch {}
if (typeof cascaded !== "function") Module.register(pathToFileURL(${JSON.stringify(join(dir, "hooks.mjs"))}));
process.on("exit", () => {
  if (typeof cascaded === "function") {
    const urls = [...cascaded().loadCache.keys()];
    appendFileSync(process.env.NOR_MODULE_TRACE, urls.map((u) => u + "\\n").join(""));
  }
  const files = Object.keys(Module._cache).filter((f) => f.startsWith("/"));
  appendFileSync(process.env.NOR_REQUIRE_TRACE, files.map((f) => pathToFileURL(f).href + "\\n").join(""));
});
`,
  );
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Loaded {
  code: number | null;
  /** Module URLs through the ES module loader (ES modules, and a CommonJS file an ES module imports). */
  modules: string[];
  /** Files require()d: by CommonJS code, and the CommonJS packages the engine requires (src/cjs.ts). */
  required: string[];
  /** What it wrote to stderr (not a terminal: a night's log lines, one JSON object each). */
  stderr: string;
}

/**
 * The compiled engine, module by module (dist/cli/main.js): what a command loads is seen file by
 * file. bin/nor.js runs the same code joined into a few files (dist/engine/,
 * scripts/bundle-engine.mjs); "the joined engine" below holds it to the same packages.
 */
const COMPILED = "compiled";
const launcher = (entry: string) =>
  entry === COMPILED ? join(dir, "compiled.mjs") : join(ROOT, "bin", "nor.js");

function traced(args: string[], which = COMPILED) {
  const entry = launcher(which);
  const name = args
    .join("-")
    .replace(/[^a-z-]/gi, "")
    .slice(0, 60);
  const trace = join(dir, `trace-${name}.txt`);
  const requires = join(dir, `require-${name}.txt`);
  writeFileSync(trace, "");
  writeFileSync(requires, "");
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NOR_MODULE_TRACE: trace,
    NOR_REQUIRE_TRACE: requires,
  };
  delete env["NOR_DATABASE_URL"];
  const argv = [...TRACE, entry, ...args];
  const read = (code: number | null, stderr: string): Loaded => {
    const modules = lines(trace);
    // The trace was written: the process's own first module is in it.
    expect(modules, `${args.join(" ")}: ${stderr}`).toContain(pathToFileURL(entry).href);
    return { code, modules, required: lines(requires), stderr };
  };
  return { env, argv, read };
}

const lines = (file: string) => readFileSync(file, "utf8").split("\n").filter(Boolean);

/** The summary a night logs at its end ("night done"), from its log lines on stderr. */
function nightDone(stderr: string): Record<string, unknown> {
  const done = stderr
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l["msg"] === "night done");
  expect(done, stderr).toHaveLength(1);
  return done[0]!;
}

/**
 * Every file loaded, either way: the CommonJS packages are required, not imported (src/cjs.ts),
 * so they show among the required files only.
 */
const everyFile = (l: Loaded) => [...l.modules, ...l.required];

/** The module URLs `nor ARGS` loads, and its exit code. */
function modulesLoadedBy(args: string[], which = COMPILED): Loaded {
  const { env, argv, read } = traced(args, which);
  const r = spawnSync(process.execPath, argv, {
    cwd: ROOT,
    env,
    encoding: "utf8",
    timeout: 60_000,
  });
  return read(r.status, r.stderr);
}

/**
 * What a command that reads and writes no state loads (`--help`, `log` of a missing store,
 * `catalog check`): the same in every fresh process, so traced once per engine and command and
 * read by every test that asks (a night, which changes its store, is always run anew).
 */
const stateless = new Map<string, Loaded>();
function modulesLoadedOnceBy(args: string[], which = COMPILED): Loaded {
  const key = [which, ...args].join("\0");
  let loaded = stateless.get(key);
  if (!loaded) {
    loaded = modulesLoadedBy(args, which);
    stateless.set(key, loaded);
  }
  return loaded;
}

/** The same, not blocking: for a `nor` that talks to a server in this process. */
function modulesLoadedByAsync(args: string[], which = COMPILED): Promise<Loaded> {
  const { env, argv, read } = traced(args, which);
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, argv, {
      cwd: ROOT,
      env,
      stdio: ["ignore", "ignore", "pipe"],
    });
    const timer = setTimeout(() => p.kill("SIGKILL"), 60_000);
    let stderr = "";
    p.stderr.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
    });
    p.once("error", reject);
    // "close", not "exit": stderr read to its end.
    p.once("close", (code) => {
      clearTimeout(timer);
      resolve(read(code, stderr));
    });
  });
}

/** A loopback site with a feed (/feed.rss, one item) and a page (/bids, one bid); the paths asked. */
async function recordsServer(): Promise<{ server: Server; asked: string[] }> {
  const asked: string[] = [];
  const server = createServer((req, res) => {
    asked.push(req.url ?? "");
    if (req.url === "/feed.rss") {
      res.writeHead(200, { "content-type": "application/rss+xml" });
      res.end(
        `<?xml version="1.0"?><rss version="2.0"><channel><title>t</title><link>http://x/</link><description>d</description><item><title>Agenda</title><link>http://x/a</link><pubDate>Tue, 03 Nov 2026 10:00:00 GMT</pubDate></item></channel></rss>`,
      );
      return;
    }
    if (req.url === "/bids") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(
        `<html><body><ul><li class="bid"><a href="/b/1">Road salt</a> <span>2026-11-03</span></li></ul></body></html>`,
      );
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { server, asked };
}

describe("nor loads only what the command needs", () => {
  it("`nor --help` loads the command list and commander, no command module", () => {
    const help = modulesLoadedOnceBy(["--help"]);
    expect(help.code).toBe(0);
    const ours = help.modules.filter((m) => m.includes("/dist/"));
    expect(ours.map((m) => m.replace(/^.*\/dist\//, "")).sort()).toEqual([
      "cjs.js",
      "cli/io.js",
      "cli/main.js",
      "errors.js",
    ]);
    const packages = new Set(
      everyFile(help)
        .filter((m) => m.includes("/node_modules/"))
        .map((m) => m.split("/node_modules/")[1]),
    );
    expect(packages.size).toBeGreaterThan(0);
    expect([...packages].every((p) => p?.startsWith("commander/"))).toBe(true);
  });

  it("`nor log` loads no fetcher, HTML parser, web server, PostgreSQL driver or archive", () => {
    const missing = join(dir, "no-store");
    const log = modulesLoadedOnceBy(["log", "--data", missing]);
    expect(log.code).toBe(2); // no store there: it still had to load the log command to say so
    expect(log.modules.some((m) => m.endsWith("/dist/cli/commands/log.js"))).toBe(true);
    expect(everyFile(log).filter((m) => HEAVY.test(m))).toEqual([]);
    expect(log.modules.some((m) => m.includes("/dist/cli/commands/night.js"))).toBe(false);
    // The control: `nor night --help` does load the fetcher.
    const night = modulesLoadedOnceBy(["night", "--help"]);
    expect(night.code).toBe(0);
    expect(everyFile(night).some((m) => /\/node_modules\/undici\//.test(m))).toBe(true);
  });

  it("a `nor night` of feeds loads the feed parser, but no HTML parser, preset, CSV reader or form reader, and only undici's agent; the next night of the same files, no yaml or zod", async () => {
    // docs/benchmarks.md "A night's memory": the readers a night loads are those its catalog's
    // ways need (src/night/lazy-reader.ts), and of undici only what the transport uses.
    const { server, asked } = await recordsServer();
    try {
      const { port } = server.address() as AddressInfo;
      const night = join(dir, "feed-night");
      const catalog = join(dir, "feeds.yaml");
      writeVillageCatalog(catalog, "Lazy", {
        "lazy-feed": `records: agendas, access: feed, url: "http://127.0.0.1:${port}/feed.rss"`,
      });
      const { code, modules, required } = await modulesLoadedByAsync([
        "night",
        "--catalog",
        catalog,
        "--data",
        night,
        "--night",
        "2026-11-05",
        "--allow-private-addresses",
        "--gap-ms",
        "0",
      ]);
      expect(code).toBe(0);
      expect(asked).toEqual(["/robots.txt", "/feed.rss"]);
      // feedsmith as the build bundled it (one file), never the package's 135 modules.
      expect(modules.some((m) => m.endsWith("/dist/vendor/feedsmith.js"))).toBe(true);
      expect(
        [...modules, ...required].filter((m) => /\/node_modules\/feedsmith\//.test(m)),
      ).toEqual([]);
      expect(modules.some((m) => m.endsWith("/dist/sources/extract/feed.js"))).toBe(true);
      expect(
        [...modules, ...required].filter((m) =>
          /\/node_modules\/(cheerio|parse5|htmlparser2|csv-parse)\/|\/dist\/sources\/(platforms\/(?!names\.js|types\.js)|extract\/(page|form|download|api)\.js)|\/dist\/night\/(form-way|way-reader)\.js/.test(
            m,
          ),
        ),
      ).toEqual([]);
      const undici = [...modules, ...required].filter((m) => m.includes("/node_modules/undici/"));
      expect(undici.some((m) => m.endsWith("/undici/lib/dispatcher/agent.js"))).toBe(true);
      expect(undici.filter((m) => /\/undici\/(index\.js|lib\/web\/)/.test(m))).toEqual([]);
      // The first night read, validated and imported the catalog (yaml, zod).
      const catalogCode =
        /\/node_modules\/(yaml|zod)\/|\/dist\/vendor\/(yaml|zod)\.js$|\/dist\/sources\/catalog\/(load|schema)\.js/;
      expect(modules.some((m) => catalogCode.test(m))).toBe(true);
      // The next night of the same files, the ones last imported: not read again, so neither
      // the YAML parser nor zod is loaded (src/sources/catalog/stamp.ts).
      const again = await modulesLoadedByAsync([
        "night",
        "--catalog",
        catalog,
        "--data",
        night,
        "--night",
        "2026-11-06",
        "--allow-private-addresses",
        "--gap-ms",
        "0",
      ]);
      expect(again.code).toBe(0);
      expect(asked.filter((p) => p === "/feed.rss")).toHaveLength(2);
      expect(everyFile(again).filter((m) => catalogCode.test(m))).toEqual([]);
      // The feed came back the same page, counted from the archive's index, not read: the feed
      // parser is loaded only for an answer to read (lazy-reader.ts `ready`).
      expect(
        again.modules.filter((m) =>
          /\/dist\/(vendor\/feedsmith|sources\/extract\/feed)\.js$/.test(m),
        ),
      ).toEqual([]);
      // Nor the HTML entity decoder: nothing holding a character reference was decoded.
      expect(everyFile(again).filter((m) => /\/node_modules\/entities\//.test(m))).toEqual([]);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it("a `nor night` of a page loads cheerio's parser, not cheerio's index with the undici, encoding sniffer and parser stream it fetches with", async () => {
    // src/sources/extract/cheerio-load.ts: the engine fetches with its own transport.
    const { server, asked } = await recordsServer();
    try {
      const { port } = server.address() as AddressInfo;
      const catalog = join(dir, "page.yaml");
      writeVillageCatalog(catalog, "Lazy", {
        "lazy-bids": `records: bids, access: page, url: "http://127.0.0.1:${port}/bids", extract: { items: li.bid, title: a, link: a, date: span }`,
      });
      const data = join(dir, "page-night");
      const night = await modulesLoadedByAsync([
        "night",
        "--catalog",
        catalog,
        "--data",
        data,
        "--allow-private-addresses",
        "--gap-ms",
        "0",
      ]);
      expect(night.code).toBe(0);
      expect(asked).toEqual(["/robots.txt", "/bids"]);
      // The parser that was loaded did its work: a page that yields nothing exits 0 as well
      // (as "no-records"), so the record itself is looked for, in the summary and the store.
      const done = nightDone(night.stderr);
      expect(done["outcomes"]).toEqual({ ok: 1 });
      // A first read: its record is kept, already listed (not new on record).
      expect(done).toMatchObject({ newRecords: 0, alreadyListed: 1 });
      const store = await openStore({ kind: "sqlite", dir: data }, { create: false });
      try {
        const records = await store.db
          .selectFrom("records")
          .select(["source_id", "title", "url", "date"])
          .execute();
        expect(records).toEqual([
          {
            source_id: "lazy-bids",
            title: "Road salt",
            url: `http://127.0.0.1:${port}/b/1`,
            date: "2026-11-03",
          },
        ]);
      } finally {
        await store.close();
      }
      const files = everyFile(night);
      expect(files.some((m) => m.endsWith("/dist/sources/extract/page.js"))).toBe(true);
      expect(
        files.some((m) => m.endsWith("/node_modules/cheerio/dist/commonjs/load-parse.js")),
      ).toBe(true);
      expect(
        files.filter((m) => /\/node_modules\/cheerio\/dist\/[a-z]+\/index\.js$/.test(m)),
      ).toEqual([]);
      expect(
        files.filter((m) =>
          /\/node_modules\/(encoding-sniffer|parse5-parser-stream|whatwg-mimetype)\/|\/undici\/(index\.js|lib\/web\/)/.test(
            m,
          ),
        ),
      ).toEqual([]);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it("`nor night` loads no warcio (nor its wasm hasher): the night's archive reads and writes its own records", () => {
    // docs/benchmarks.md "A night's memory": warcio, hash-wasm and pako cost a night several MB
    // of its peak RSS for nothing; only `nor archive cdx`, `verify` and a record not written
    // here need them.
    const night = modulesLoadedOnceBy(["night", "--help"]);
    expect(night.code).toBe(0);
    expect(night.modules.some((m) => m.endsWith("/dist/night/compose.js"))).toBe(true);
    expect(
      everyFile(night).filter((m) => /\/node_modules\/(warcio|hash-wasm|pako)\//.test(m)),
    ).toEqual([]);
  });

  it("`nor log` loads kysely as the one bundled file, and the public suffix list only for --site", () => {
    const missing = join(dir, "no-store");
    const plain = modulesLoadedOnceBy(["log", "--data", missing]);
    expect(plain.code).toBe(2);
    // `npm run build` bundles kysely (src/store/kysely.ts): one module, not the package's 263.
    expect(plain.modules.filter((m) => m.endsWith("/dist/vendor/kysely.js"))).toHaveLength(1);
    expect(everyFile(plain).filter((m) => /\/node_modules\/kysely\//.test(m))).toEqual([]);
    expect(everyFile(plain).filter((m) => /\/node_modules\/tldts/.test(m))).toEqual([]);
    // Of the packages, only the command line's parser (no store there to open).
    const packages = everyFile(plain)
      .filter((m) => m.includes("/node_modules/"))
      .map((m) => m.split("/node_modules/")[1]?.split("/")[0]);
    expect([...new Set(packages)]).toEqual(["commander"]);
    // The control: --site needs the registrable domain (P9), so tldts comes in then.
    const site = modulesLoadedOnceBy(["log", "--data", missing, "--site", "www.example.gov"]);
    expect(everyFile(site).some((m) => /\/node_modules\/tldts/.test(m))).toBe(true);
  });

  it("`nor catalog check` and `stats` load no preset, HTML parser or fetcher (preset names are enough)", () => {
    // The cut of the bundled catalog names every way and preset the whole one does.
    const named = (file: string) =>
      new Set(readFileSync(file, "utf8").match(/^ {4}(access|platform|records|kind): .*$/gm));
    expect(named(OHIO)).toEqual(named(join(ROOT, "catalog", "ohio.yaml")));
    for (const cmd of ["check", "stats"]) {
      const loaded = modulesLoadedOnceBy(["catalog", cmd, OHIO]);
      const { code, modules } = loaded;
      expect(code).toBe(0);
      expect(modules.some((m) => m.endsWith("/dist/sources/catalog/load.js"))).toBe(true);
      expect(everyFile(loaded).filter((m) => HEAVY.test(m))).toEqual([]);
      expect(modules.filter((m) => m.includes("/dist/sources/platforms/"))).toEqual([
        expect.stringMatching(/\/dist\/sources\/platforms\/names\.js$/),
      ]);
      // `npm run build` bundles what the engine takes from yaml and zod (src/yaml.ts,
      // src/zod.ts): one module each, not yaml's 60-odd CommonJS files nor zod's 95 modules.
      for (const pkg of ["yaml", "zod"]) {
        expect(modules.filter((m) => m.endsWith(`/dist/vendor/${pkg}.js`))).toHaveLength(1);
        expect(everyFile(loaded).filter((m) => m.includes(`/node_modules/${pkg}/`))).toEqual([]);
      }
    }
  });

  it("the joined engine (bin/nor.js) loads the same packages as the compiled one, command by command, and none of dist/'s separate modules", async () => {
    const { server, asked } = await recordsServer();
    try {
      const { port } = server.address() as AddressInfo;
      const catalog = join(dir, "joined.yaml");
      writeVillageCatalog(catalog, "Joined", {
        "joined-feed": `records: agendas, access: feed, url: "http://127.0.0.1:${port}/feed.rss"`,
        "joined-bids": `records: bids, access: page, url: "http://127.0.0.1:${port}/bids", extract: { items: li.bid, title: a, link: a, date: span }`,
      });
      const missing = join(dir, "no-store");
      const night = (data: string) => [
        ...["night", "--catalog", catalog, "--data", join(dir, data)],
        ...["--allow-private-addresses", "--gap-ms", "0"],
      ];
      const commands = [
        ["--help"],
        ["log", "--data", missing],
        ["log", "--data", missing, "--site", "www.example.gov"],
        ["catalog", "check", OHIO],
        ["night", "--help"],
      ];
      /** The packages' files and the vendor bundles a run loaded, each once, in order. */
      const outside = (l: Loaded) =>
        [
          ...new Set(everyFile(l).filter((m) => /\/node_modules\/|\/dist\/vendor\//.test(m))),
        ].sort();
      for (const args of [...commands, night("joined-night-a")]) {
        const isNight = args[0] === "night" && args[1] === "--catalog";
        const compiled = isNight ? await modulesLoadedByAsync(args) : modulesLoadedOnceBy(args);
        // A night of its own on a store of its own: the same first night, not a second.
        const joined = await modulesLoadedByAsync(
          isNight ? night("joined-night-b") : args,
          "joined",
        );
        expect(joined.code, `${args.join(" ")}: ${joined.stderr}`).toBe(compiled.code);
        expect(outside(joined), args.join(" ")).toEqual(outside(compiled));
        const dist = pathToFileURL(join(ROOT, "dist")).href;
        const ours = joined.modules.filter((m) => m.startsWith(`${dist}/`));
        expect(ours.filter((m) => /\/dist\/engine\/main-[\w-]+\.js$/.test(m))).toHaveLength(1);
        expect(
          ours.filter((m) => !/\/dist\/((engine|vendor)\/|joined\.js$)/.test(m)),
          args.join(" "),
        ).toEqual([]);
        if (isNight) {
          // Both nights read both sources and kept their records: the joined engine found
          // the vendor bundles and the catalog's code beside its own files, as dist/ does.
          // (Each a first read: already listed, not new.)
          expect(nightDone(joined.stderr)["alreadyListed"]).toBe(2);
          expect(nightDone(compiled.stderr)["alreadyListed"]).toBe(2);
        }
      }
      expect(asked.filter((p) => p === "/feed.rss" || p === "/bids")).toHaveLength(4);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it("bin/nor.js runs the compiled engine once a module it was joined from is rewritten (a `tsc --watch` of one file)", () => {
    // A copy of bin/ and dist/ with their times (cp -a), so no other test's `nor` sees the change.
    const copy = mkdtempSync(join(tmpdir(), "nor-joined-copy-"));
    try {
      const cp = spawnSync("cp", ["-a", join(ROOT, "bin"), join(ROOT, "dist"), copy]);
      expect(cp.status, cp.stderr?.toString()).toBe(0);
      symlinkSync(join(ROOT, "node_modules"), join(copy, "node_modules"));
      const run = () => {
        const trace = join(copy, "trace.txt");
        writeFileSync(trace, "");
        const r = spawnSync(process.execPath, [...TRACE, join(copy, "bin", "nor.js"), "--help"], {
          env: {
            ...process.env,
            NOR_MODULE_TRACE: trace,
            NOR_REQUIRE_TRACE: join(copy, "r.txt"),
          },
        });
        expect(r.status).toBe(0);
        return lines(trace).filter((m) => m.startsWith(pathToFileURL(copy).href));
      };
      const at = (...p: string[]) => pathToFileURL(join(copy, "dist", ...p)).href;
      const { entry } = JSON.parse(
        readFileSync(join(copy, "dist", "engine", "inputs.json"), "utf8"),
      ) as { entry: string };
      expect(run()).toContain(at("engine", entry));
      const log = join(copy, "dist", "cli", "commands", "log.js");
      const s = statSync(log);
      const ns = statSync(log, { bigint: true }).mtimeNs;
      utimesSync(log, s.atime, new Date(s.mtimeMs + 1000));
      const stale = run();
      expect(stale).toContain(at("cli", "main.js"));
      expect(stale.filter((m) => m.includes("/dist/engine/"))).toEqual([]);
      // As it was (cp -a keeps the time to the nanosecond; utimes from a Date would not): then
      // the entry chunk gone, as under a start racing a rebuild: the compiled modules run.
      spawnSync("touch", [
        "-d",
        `@${ns / 1_000_000_000n}.${String(ns % 1_000_000_000n).padStart(9, "0")}`,
        log,
      ]);
      expect(statSync(log).mtimeMs).toBe(s.mtimeMs);
      expect(run()).toContain(at("engine", entry));
      // Torn (a crash mid-write), or cut short where it still parses, then gone: the
      // compiled modules run.
      const entryFile = join(copy, "dist", "engine", entry);
      const whole = readFileSync(entryFile, "utf8");
      writeFileSync(entryFile, whole.slice(0, 200));
      expect(run()).toContain(at("cli", "main.js"));
      writeFileSync(entryFile, "export const notMain = 1;\n");
      expect(run()).toContain(at("cli", "main.js"));
      rmSync(entryFile);
      const fallen = run();
      expect(fallen).toContain(at("cli", "main.js"));
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it("`nor help night` shows the night's own options", async () => {
    // What it shows needs no fresh process: in this one, its output passed in.
    const r = await nor("help", "night");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("--catalog <files...>");
  });
});
