#!/usr/bin/env node
/**
 * Joins the compiled engine (dist/, from tsc) into a few files in dist/engine/ (or the directory
 * given, beside a dist/ of its own: `node scripts/bundle-engine.mjs [DIST]`), which bin/nor.js
 * runs. Part of `npm run build`, after tsc and scripts/bundle-vendor.mjs.
 *
 * Why: each command starts by loading the engine's own modules, a night about 150 of them, each
 * found, read and compiled one by one. Joined, a night of one source starts on about 45 ms less
 * CPU (0.405 → 0.36 s, docs/benchmarks.md "The engine joined"), and so does every `nor log`,
 * `nor status`, `nor site`.
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
 * bin/nor.js runs dist/engine/main.js only when it was written after dist/cli/main.js: a `tsc`
 * run alone (which rewrites every file of dist/) leaves the joined engine out of date, and the
 * compiled one runs instead, only slower to start.
 *
 * rolldown is vite's own bundler (vite is a devDependency, as for bundle-vendor.mjs), taken from
 * where vite resolves it.
 */
import { rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = process.argv[2] ? resolve(process.argv[2]) : join(root, "dist");
const outDir = join(dist, "engine");

const fromVite = createRequire(createRequire(join(root, "package.json")).resolve("vite"));
const { rolldown } = await import(pathToFileURL(fromVite.resolve("rolldown")).href);

/** `import.meta.url` in a module of dist/ as its own file's URL, seen from dist/engine/. */
const ownUrl = {
  name: "nor-own-url",
  transform(code, id) {
    if (!code.includes("import.meta.url")) return null;
    const rel = relative(outDir, id).split(sep).join("/");
    return code.replaceAll(
      "import.meta.url",
      `new URL(${JSON.stringify(rel)}, import.meta.url).href`,
    );
  },
};

rmSync(outDir, { recursive: true, force: true });
const bundle = await rolldown({
  input: join(dist, "cli", "main.js"),
  platform: "node",
  plugins: [ownUrl],
  // Packages and node's own modules stay imports; only dist/'s own files are joined.
  external: (id) => !id.startsWith(".") && !id.startsWith("/") && !/^[A-Za-z]:/.test(id),
});
try {
  await bundle.write({ dir: outDir, format: "es", sourcemap: false });
} finally {
  await bundle.close();
}
