#!/usr/bin/env node
/**
 * Joins the compiled engine (dist/, from tsc) into a few files in dist/engine/ (or the directory
 * given, beside a dist/ of its own: `node scripts/bundle-engine.mjs [DIST]`), which bin/nor.js
 * runs. Part of `npm run build`, after tsc and scripts/bundle-vendor.mjs.
 *
 * Why: each command starts by loading the engine's own modules, a night about 150 of them, each
 * found, read and compiled one by one. Joined, a night of one source starts on about 45 ms less
 * CPU (0.29 → 0.245 s: docs/benchmarks.md, "The engine joined"); the small commands, which load
 * few of the engine's modules, a few milliseconds less.
 *
 * What it keeps, so that the joined engine runs exactly as dist/ does:
 * - Commands still load lazily: each dynamic import stays one (a chunk of its own), so `nor log`
 *   loads no fetcher, no HTML parser (test/cli/lazy-load.test.ts).
 * - Packages are not joined in: every bare import (`undici`, `node:fs`) stays an import, and so
 *   do the vendor bundles, which are loaded by URL at run time (src/vendored.ts).
 * - Every `import.meta.url` still names the module's own file in dist/: where a module finds a
 *   file beside it (the vendor bundles, the bundled catalog, a worker's script, the code a
 *   catalog stamp hashes), it finds the same one. So dist/ stays whole beside dist/engine/.
 *
 * The last file written is dist/engine/inputs.json: each module joined, with its size and
 * modification time. bin/nor.js runs the joined engine only while every one of them is unchanged
 * (src/joined.ts); after a later `tsc` (even `--watch` rewriting one file), the compiled modules
 * run instead, only slower to start. Source maps go beside the chunks, pointing at dist/'s files
 * (whose own maps point at src/).
 *
 * rolldown is vite's own bundler (vite is a devDependency, as for bundle-vendor.mjs), taken from
 * where vite resolves it.
 */
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = process.argv[2] ? resolve(process.argv[2]) : join(root, "dist");
const outDir = join(dist, "engine");

const fromVite = createRequire(createRequire(join(root, "package.json")).resolve("vite"));
const { rolldown, RolldownMagicString } = await import(
  pathToFileURL(fromVite.resolve("rolldown")).href,
);

/**
 * `import.meta.url` in a module of dist/ as its own file's URL, seen from dist/engine/. Any other
 * `import.meta` property (dirname, filename, resolve) would name dist/engine/ instead: the build
 * stops, naming the file, until this rewrites it too.
 */
const ownUrl = {
  name: "nor-own-url",
  /** Each module with tsc's source map, so the engine's maps lead back to src/. */
  load(id) {
    if (!id.startsWith(dist + sep) || !existsSync(`${id}.map`)) return null;
    const code = readFileSync(id, "utf8").replace(/\n\/\/# sourceMappingURL=\S+\s*$/, "\n");
    return { code, map: readFileSync(`${id}.map`, "utf8") };
  },
  transform(code, id) {
    const other = /import\.meta\.(?!url\b)[A-Za-z_$]+/.exec(code);
    if (other) {
      throw new Error(`bundle-engine: ${id} uses ${other[0]}, which the joined engine would resolve against dist/engine/`);
    }
    if (!code.includes("import.meta.url")) return null;
    const rel = relative(outDir, id).split(sep).join("/");
    const s = new RolldownMagicString(code);
    s.replaceAll("import.meta.url", `new URL(${JSON.stringify(rel)}, import.meta.url).href`);
    return { code: s.toString(), map: s.generateMap({ hires: true, source: id }) };
  },
};

// The list goes first, so no start between here and the end takes a half-written engine.
rmSync(join(outDir, "inputs.json"), { force: true });
rmSync(outDir, { recursive: true, force: true });
const bundle = await rolldown({
  input: join(dist, "cli", "main.js"),
  platform: "node",
  plugins: [ownUrl],
  // Packages and node's own modules stay imports; only dist/'s own files are joined.
  external: (id) => !id.startsWith(".") && !id.startsWith("/") && !/^[A-Za-z]:/.test(id),
});
let output;
try {
  ({ output } = await bundle.write({ dir: outDir, format: "es", sourcemap: true }));
} finally {
  await bundle.close();
}
const modules = [
  ...new Set(output.flatMap((chunk) => (chunk.type === "chunk" ? chunk.moduleIds : []))),
]
  .filter((id) => isAbsolute(id))
  .sort()
  .map((id) => {
    const { size, mtimeMs } = statSync(id);
    return { file: relative(dist, id).split(sep).join("/"), size, mtimeMs };
  });
if (!modules.some((m) => m.file === "cli/main.js")) {
  throw new Error("bundle-engine: cli/main.js is not among the modules joined");
}
writeFileSync(join(outDir, "inputs.json"), `${JSON.stringify({ modules }, null, 1)}\n`);
