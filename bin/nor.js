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
  // Cut short (a crash during a build): what it imported only defines things; nothing starts
  // before main().
  if (entry.joined && typeof cli.main !== "function") cli = undefined;
} catch (err) {
  // A joined file gone or unreadable: nothing of it ran (an ES module graph is read whole
  // before any of it runs).
  if (!entry.joined || (err?.code !== "ERR_MODULE_NOT_FOUND" && !(err instanceof SyntaxError)))
    throw err;
}
// Then the compiled modules, which are whole.
cli ??= await import(new URL("cli/main.js", dist).href);

cli.main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`nor: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
