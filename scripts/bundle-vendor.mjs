#!/usr/bin/env node
/**
 * Bundles four packages into one ES module each, in dist/vendor/ (or the directory given:
 * `node scripts/bundle-vendor.mjs [DIR]`, as the benchmarks do beside their build), with vite's
 * library build; src/vendored.ts loads them. Part of `npm run build`, after tsc. Loading a
 * package's many separate modules costs CPU at every start of a command (docs/benchmarks.md):
 * the files are found, read and compiled one by one. The output is the packages' own code, only
 * joined: nothing is minified or changed.
 *
 * - kysely.js: kysely whole (263 modules, no dependencies of its own), loaded by
 *   src/store/kysely.ts. About 0.2 s of CPU less at every start of a command that opens the
 *   store.
 * - feedsmith.js: what the feed reader takes from feedsmith (scripts/vendor/feedsmith.mjs),
 *   loaded by src/sources/extract/feedsmith.ts. fast-xml-parser and entities stay outside it,
 *   imported from node_modules as before: src/sources/extract/feed-stop-nodes.ts patches
 *   fast-xml-parser's own XMLParser, which must be the one feedsmith parses with. About 75 ms
 *   of CPU less at every start of a night that reads feeds.
 * - yaml.js: what the engine takes from yaml (scripts/vendor/yaml.mjs), loaded by src/yaml.ts.
 *   yaml is CommonJS: its Node build (dist/, not the browser build the package also ships, whose
 *   warnings and binary tags go another way) is bundled for Node, its requires of Node's own
 *   modules kept. About 20 ms of CPU less at every start of a command that reads a catalog
 *   (`nor catalog check`, `import`, a night of a catalog changed since it was last imported).
 * - zod.js: zod's `z` (scripts/vendor/zod.mjs), loaded by src/zod.ts: its 95 modules, most of
 *   them its locales, as one. About 25 ms of CPU less at the same starts, and at `nor serve`'s
 *   (the API's description is zod's).
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "vite";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const outDir = process.argv[2] ? resolve(process.argv[2]) : join(root, "dist", "vendor");
mkdirSync(outDir, { recursive: true });

/**
 * `entry` bundled into dist/vendor/`name`.js, `external` left as imports. `node`: the packages
 * resolved as Node resolves them, never through a browser build, and bundled whole (vite's
 * server-side build).
 */
async function bundle(name, entry, external = [], { node = false } = {}) {
  // Written beside its place, then renamed into it: a command that starts while the build runs
  // (`nor start`'s night) loads the bundle before or after, never one half written.
  const tmp = mkdtempSync(join(outDir, `.${name}-`));
  try {
    await buildInto(tmp, name, entry, external, node);
    renameSync(join(tmp, `${name}.js`), join(outDir, `${name}.js`));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** The bundle built into `dir`, as `bundle` describes it. */
async function buildInto(dir, name, entry, external, node) {
  await build({
    configFile: false,
    root,
    logLevel: "warn",
    ...(node ? { ssr: { noExternal: true, target: "node" } } : {}),
    build: {
      ...(node ? { ssr: true } : {}),
      outDir: dir,
      emptyOutDir: false,
      minify: false,
      sourcemap: false,
      copyPublicDir: false,
      target: "node20",
      lib: { entry, formats: ["es"], fileName: () => `${name}.js` },
      rollupOptions: {
        external: [/^node:/, ...external],
        // A server-side build names its file after the entry, not by lib.fileName.
        ...(node ? { output: { entryFileNames: `${name}.js` } } : {}),
      },
    },
  });
}

/**
 * The packages left outside feedsmith's bundle are imported from dist/vendor, so from the root's
 * node_modules. feedsmith itself must resolve them to the same files (npm deduplicated them);
 * were it given copies of its own, the bundle would run with versions it did not ask for. The
 * build stops then, saying so.
 */
function sameAsFeedsmiths(packages) {
  const fromRoot = createRequire(join(root, "package.json"));
  const fromFeedsmith = createRequire(fromRoot.resolve("feedsmith/package.json"));
  for (const name of packages) {
    const ours = fromRoot.resolve(name);
    const its = fromFeedsmith.resolve(name);
    if (ours !== its) {
      throw new Error(
        `bundle-vendor: feedsmith resolves ${name} to ${its}, not ${ours}: its bundle would import another copy (npm dedupe, or bundle ${name} with it)`,
      );
    }
  }
}

await bundle("kysely", fileURLToPath(import.meta.resolve("kysely")));
sameAsFeedsmiths(["fast-xml-parser", "entities"]);
await bundle("feedsmith", join(root, "scripts", "vendor", "feedsmith.mjs"), [
  "fast-xml-parser",
  "entities",
  /^entities\//,
]);
await bundle("yaml", join(root, "scripts", "vendor", "yaml.mjs"), [], { node: true });
await bundle("zod", join(root, "scripts", "vendor", "zod.mjs"), [], { node: true });
