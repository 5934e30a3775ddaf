#!/usr/bin/env node
// Thin launcher: the compiled CLI lives in dist/ (built by `npm run build`, run by `prepare`).
// dist/engine/ is the same code joined into a few files (scripts/bundle-engine.mjs), quicker to
// start; it runs only when written after dist/cli/main.js, so a later `tsc` alone never leaves
// an out-of-date copy running.
import { statSync } from "node:fs";

const compiled = new URL("../dist/cli/main.js", import.meta.url);
const joined = new URL("../dist/engine/main.js", import.meta.url);
const mtime = (url) => statSync(url, { throwIfNoEntry: false })?.mtimeMs ?? -1;
const { main } = await import(mtime(joined) > mtime(compiled) ? joined.href : compiled.href);

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`nor: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
