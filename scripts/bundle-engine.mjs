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
 *   modification time it had when it was read; a module that changed while the build ran stops
 *   the build. The list is written once the file system's clock has passed every module's time,
 *   so a module rewritten later, even within the same second on a file system that keeps only
 *   seconds, is seen as changed (git's "racily clean" files).
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
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = process.argv[2] ? resolve(process.argv[2]) : join(root, "dist");
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
    let code = readFileSync(id, "utf8");
    const after = statSync(id);
    if (before.size !== after.size || before.mtimeMs !== after.mtimeMs) {
      throw new Error(`bundle-engine: ${id} changed while it was read; build again`);
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
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

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

mkdirSync(outDir, { recursive: true });
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
      rmSync(INPUTS, { force: true });
      throw new Error(`bundle-engine: ${id} changed while the engine was joined; build again`);
    }
    return { file: relative(dist, id).split(sep).join("/"), ...read };
  });
if (!modules.some((m) => m.file === "cli/main.js")) {
  throw new Error("bundle-engine: cli/main.js is not among the modules joined");
}

// The list's own time must come after every module's: wait for the file system's clock to pass
// the newest (at most a few seconds where it keeps whole seconds, or two for FAT).
const newest = Math.max(...modules.map((m) => m.mtimeMs));
const list = `${JSON.stringify({ entry, modules }, null, 1)}\n`;
for (let i = 0; ; i++) {
  const tmp = `${INPUTS}.${process.pid}.tmp`;
  writeFileSync(tmp, list);
  if (statSync(tmp).mtimeMs > newest) {
    renameSync(tmp, INPUTS);
    break;
  }
  rmSync(tmp, { force: true });
  if (i === 5) throw new Error(`bundle-engine: ${outDir}: the clock does not pass the modules' times`);
  await sleep(1000);
}

// Chunks of earlier builds that no build has named for two weeks.
const now = Date.now();
for (const name of readdirSync(outDir)) {
  if (named.has(name)) {
    // Named again: kept as long as from now.
    const p = join(outDir, name);
    const s = statSync(p);
    if (now - s.mtimeMs > KEEP_UNNAMED_MS / 2) utimesSync(p, s.atime, new Date(now));
    continue;
  }
  const p = join(outDir, name);
  const s = statSync(p, { throwIfNoEntry: false });
  if (s !== undefined && now - s.mtimeMs > KEEP_UNNAMED_MS) rmSync(p, { force: true, recursive: true });
}
