#!/usr/bin/env node
/**
 * Bundles kysely (the query builder, no dependencies of its own) into one ES module,
 * dist/vendor/kysely.js, with vite's library build. Part of `npm run build`, after tsc:
 * src/store/kysely.ts loads this file when it is there, because loading kysely's 263
 * separate modules costs about 0.2 s of CPU at every start of a command that opens the store
 * (docs/benchmarks.md). The output is kysely's own code, only joined: nothing is minified
 * or changed.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "vite";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const entry = fileURLToPath(import.meta.resolve("kysely"));

await build({
  configFile: false,
  root,
  logLevel: "warn",
  build: {
    outDir: join(root, "dist", "vendor"),
    emptyOutDir: false,
    minify: false,
    sourcemap: false,
    copyPublicDir: false,
    target: "node20",
    lib: { entry, formats: ["es"], fileName: () => "kysely.js" },
  },
});
