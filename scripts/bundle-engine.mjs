#!/usr/bin/env node
/**
 * Joins the compiled engine (dist/, from tsc) into a few files in dist/engine/ (or the directory
 * given, beside a dist/ of its own: `node scripts/bundle-engine.mjs [DIST]`), which bin/nor.js
 * runs. Part of `npm run build`, after tsc and scripts/bundle-vendor.mjs.
 *
 * Why: each command starts by loading the engine's own modules, a night about 150 of them, each
 * found, read and compiled one by one. Joined, a night of one source starts on about 45 ms less
 * CPU (0.29 → 0.245 s: docs/benchmarks.md, "The engine joined"); the small commands, which load
 * few of the engine's modules, no less.
 *
 * What it keeps, so that the joined engine runs exactly as dist/ does:
 * - Commands still load lazily: each dynamic import stays one (a chunk of its own), so `nor log`
 *   loads no fetcher, no HTML parser (test/cli/lazy-load.test.ts).
 * - Packages are not joined in: every bare import (`undici`, `node:fs`) stays an import, and so
 *   do the vendor bundles, which are loaded by URL at run time (src/vendored.ts).
 * - Every `import.meta.url` still names the module's own file in dist/ (rewritten where the
 *   parser finds it, not in strings or comments): where a module finds a file beside it (the
 *   vendor bundles, the bundled catalog, a worker's script, the code a catalog stamp hashes), it
 *   finds the same one. Any other use of `import.meta` stops the build, naming the file.
 * - Source maps beside the chunks lead back to src/ (each module read with tsc's map).
 *
 * Up to date, or not run at all (src/joined.ts decides at each start):
 * - dist/engine/inputs.json, written last, lists every module joined with the size and
 *   modification time it had when it was read. Nothing is read before the file system's clock
 *   has passed every module's time, so a module rewritten after it was read, even within the
 *   same second where a file system keeps whole seconds, gets another time (git's "racily
 *   clean" files); the list is written, later still, only if none changed meanwhile (another
 *   build's tsc, a `tsc --watch`). Otherwise the build says so and writes no list: the compiled
 *   modules run (the engine is only quicker to start, never needed).
 * - Chunks are named by their content and never rewritten nor removed while in use: a process
 *   started on an earlier build still finds each chunk it imports later (a night loads its
 *   readers as it meets their sources). Every file is written whole (a temporary name, then
 *   renamed). Chunks no build has named for two weeks are removed.
 *
 * rolldown is vite's own bundler (vite is a devDependency, as for bundle-vendor.mjs), taken from
 * where vite resolves it.
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
// Its real path: the bundler names modules by theirs (a dist/ reached through a link).
const dist = realpathSync(process.argv[2] ? resolve(process.argv[2]) : join(root, "dist"));
const outDir = join(dist, "engine");
const INPUTS = join(outDir, "inputs.json");
/** How long a chunk no build names is kept, for processes started on an earlier build. */
const KEEP_UNNAMED_MS = 14 * 24 * 3600 * 1000;

const fromVite = createRequire(createRequire(join(root, "package.json")).resolve("vite"));
const { rolldown, RolldownMagicString } = await import(
  pathToFileURL(fromVite.resolve("rolldown")).href
);

/** Each module of dist/ joined: its size and time as read. */
const inputs = new Map();

/** Calls `visit(node, parent)` for every node of an ESTree tree. */
function walk(node, parent, visit) {
  if (node === null || typeof node !== "object") return;
  if (Array.isArray(node)) {
    for (const n of node) walk(n, parent, visit);
    return;
  }
  if (typeof node.type === "string") visit(node, parent);
  for (const key of Object.keys(node)) {
    const v = node[key];
    if (v !== null && typeof v === "object") walk(v, typeof node.type === "string" ? node : parent, visit);
  }
}

const ownFiles = {
  name: "nor-own-files",
  /** A module of dist/ with tsc's source map, its size and time noted as read. */
  load(id) {
    if (!id.startsWith(dist + sep)) return null;
    const before = statSync(id);
    // Written since the wait below began: its second may not be over.
    if (before.mtimeMs > beforeRead) notJoined(`${id} changed since the build began (another build?)`);
    let code = readFileSync(id, "utf8");
    const after = statSync(id);
    if (before.size !== after.size || before.mtimeMs !== after.mtimeMs) {
      notJoined(`${id} changed while it was read (another build?)`);
    }
    inputs.set(id, { size: before.size, mtimeMs: before.mtimeMs });
    if (!existsSync(`${id}.map`)) return code;
    code = code.replace(/\n\/\/# sourceMappingURL=\S+\s*$/, "\n");
    // Its sources as absolute paths: the engine's maps then name them from dist/engine/.
    const map = JSON.parse(readFileSync(`${id}.map`, "utf8"));
    const base = resolve(dirname(id), map.sourceRoot ?? "");
    map.sources = map.sources.map((source) => resolve(base, source));
    delete map.sourceRoot;
    return { code, map };
  },
  /** `import.meta.url` as the module's own file's URL, seen from dist/engine/. */
  transform(code, id) {
    if (!code.includes("import.meta")) return null;
    const rel = relative(outDir, id).split(sep).join("/");
    const s = new RolldownMagicString(code);
    walk(this.parse(code), null, (node, parent) => {
      if (node.type !== "MetaProperty" || node.meta?.name !== "import") return;
      const url =
        parent?.type === "MemberExpression" &&
        parent.object === node &&
        !parent.computed &&
        parent.property?.name === "url";
      if (!url) {
        const line = code.slice(0, node.start).split("\n").length;
        throw new Error(
          `bundle-engine: ${id}:${line} uses import.meta other than import.meta.url, which the joined engine would resolve against dist/engine/`,
        );
      }
      s.overwrite(parent.start, parent.end, `new URL(${JSON.stringify(rel)}, import.meta.url).href`);
    });
    return { code: s.toString(), map: s.generateMap({ hires: true, source: id }) };
  },
};

/** `text` at `path`, whole: written under a temporary name and renamed; left as is when equal. */
function writeWhole(path, text) {
  if (existsSync(path) && readFileSync(path, "utf8") === text) return;
  const tmp = temporary(path);
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A name beside `path` no other build takes (another process, or a container's same pid). */
const temporary = (path) => `${path}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;

/** Every .js file under `dir`, but for `skip`'s subdirectories. */
function jsFiles(dir, skip) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return skip.includes(p) ? [] : jsFiles(p, skip);
    return e.name.endsWith(".js") ? [p] : [];
  });
}

/**
 * Waits until a file written now gets a time later than `than` (ms), at most a few seconds:
 * whether the file system's clock has passed it. Where it keeps whole seconds, a file whose
 * time is this second may still be rewritten within it, size and time unchanged.
 */
async function clockPast(than) {
  const probe = temporary(join(outDir, "clock"));
  try {
    for (let i = 0; i < 6; i++) {
      writeFileSync(probe, "");
      if (statSync(probe).mtimeMs > than) return true;
      await sleep(1000);
    }
    return false;
  } finally {
    rmSync(probe, { force: true });
  }
}

/** Said, and the engine left unjoined: bin/nor.js runs the compiled modules (src/joined.ts). */
function notJoined(why) {
  process.stderr.write(`bundle-engine: the engine is not joined this time: ${why}\n`);
  process.exit(0);
}

// Read only modules whose second is over (git's "racily clean" files): a module rewritten
// later, however quickly, then gets another time than the one listed.
mkdirSync(outDir, { recursive: true });
const beforeRead = Math.max(
  0,
  ...jsFiles(dist, [outDir, join(dist, "vendor")]).map((f) => statSync(f).mtimeMs),
);
if (!(await clockPast(beforeRead))) notJoined(`${dist}: a module's time is ahead of the clock`);

const bundle = await rolldown({
  input: join(dist, "cli", "main.js"),
  platform: "node",
  plugins: [ownFiles],
  // Packages and node's own modules stay imports; only dist/'s own files are joined.
  external: (id) => !id.startsWith(".") && !id.startsWith("/") && !/^[A-Za-z]:/.test(id),
});
let output;
try {
  ({ output } = await bundle.generate({
    // Where the files go (written below): the maps name their sources from there.
    dir: outDir,
    format: "es",
    sourcemap: true,
    entryFileNames: "main-[hash].js",
  }));
} finally {
  await bundle.close();
}

const named = new Set(["inputs.json"]);
let entry;
for (const file of output) {
  writeWhole(join(outDir, file.fileName), file.type === "chunk" ? file.code : String(file.source));
  named.add(file.fileName);
  if (file.type === "chunk" && file.isEntry) entry = file.fileName;
}
if (entry === undefined) throw new Error("bundle-engine: no entry chunk");

// Every module as it was read: one rewritten meanwhile (a `tsc --watch`) leaves no list.
const modules = [...inputs]
  .sort(([a], [b]) => (a < b ? -1 : 1))
  .map(([id, read]) => {
    const now = statSync(id);
    if (now.size !== read.size || now.mtimeMs !== read.mtimeMs) {
      // A list already there names modules as they were: it no longer matches either.
      notJoined(`${id} changed while the engine was joined (another build?)`);
    }
    return { file: relative(dist, id).split(sep).join("/"), ...read };
  });
if (!modules.some((m) => m.file === "cli/main.js")) {
  throw new Error("bundle-engine: cli/main.js is not among the modules joined");
}

// The list's own time comes after every module's: none listed is later than the wait above,
// which the file system's clock had passed before anything was read.
const tmpList = temporary(INPUTS);
writeFileSync(tmpList, `${JSON.stringify({ entry, modules }, null, 1)}\n`);
renameSync(tmpList, INPUTS);

// Chunks of earlier builds that no build has named for two weeks.
const now = Date.now();
for (const name of readdirSync(outDir)) {
  if (named.has(name)) {
    // Named again: kept two weeks from now (the list's own time is left as written).
    if (name !== "inputs.json") utimesSync(join(outDir, name), new Date(now), new Date(now));
    continue;
  }
  const p = join(outDir, name);
  const s = statSync(p, { throwIfNoEntry: false });
  if (s !== undefined && now - s.mtimeMs > KEEP_UNNAMED_MS) rmSync(p, { force: true, recursive: true });
}
