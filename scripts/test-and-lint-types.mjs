#!/usr/bin/env node
/**
 * The last part of `npm test`: `npm run lint:types` and `vitest run` side by side, failing if
 * either fails. The typed lint is one process on one core for about a minute (TypeScript 5.9's
 * checker, see tools/lint/eslint.config.mjs); run before the tests, it left the other core idle
 * all that time. Beside them it uses what the tests' waits leave. The lint's output is held and
 * written after the tests' (so the two do not interleave), with its own exit status.
 */
import { spawn } from "node:child_process";

const npm = process.platform === "win32" ? "npm.cmd" : "npm";

/** Runs `npm run <script>`; its output is passed through, or held when `hold` is set. */
function run(script, hold) {
  return new Promise((resolve) => {
    const child = spawn(npm, ["run", "--silent", script], {
      stdio: hold ? ["ignore", "pipe", "pipe"] : "inherit",
    });
    const out = [];
    if (hold) {
      child.stdout.on("data", (b) => out.push(b));
      child.stderr.on("data", (b) => out.push(b));
    }
    child.on("error", (e) => {
      out.push(Buffer.from(`${script}: ${e.message}\n`));
      resolve({ code: 1, out });
    });
    child.on("close", (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), out }));
  });
}

const lint = run("lint:types", true);
const tests = await run("test:vitest", false);
const types = await lint;
process.stdout.write(`\n> npm run lint:types (run beside the tests)\n`);
for (const b of types.out) process.stdout.write(b);
process.stdout.write(
  types.code === 0 ? "lint:types: no problems\n" : `lint:types failed (exit ${types.code})\n`,
);
process.exitCode = tests.code !== 0 ? tests.code : types.code;
