#!/usr/bin/env node
// Thin launcher: the compiled CLI lives in dist/ (built by `npm run build`, run by `prepare`).
// dist/engine/ is the same code joined into a few files (scripts/bundle-engine.mjs), quicker to
// start; it runs only while every module it was joined from is unchanged (src/joined.ts).
import { cliModule } from "../dist/joined.js";

const dist = new URL("../dist/", import.meta.url);
const entry = cliModule(dist);
let cli;
try {
  cli = await import(entry.url.href);
} catch (err) {
  // A build rewriting dist/engine/ under this start: the compiled modules are whole.
  if (!entry.joined || err?.code !== "ERR_MODULE_NOT_FOUND") throw err;
  cli = await import(new URL("cli/main.js", dist).href);
}

cli.main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`nor: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
