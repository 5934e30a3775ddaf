#!/usr/bin/env node
/**
 * `npm test`, in two steps, each two commands side by side on the machine's two cores:
 *
 * 1. `npm run typecheck` and `npm run lint` (biome): each one process on one core (about 15 s
 *    and 10 s on the 2-core CI machine); one after the other, they left a core idle. Their
 *    output is held and written in that order; either failing ends `npm test` here, before
 *    any test runs, as `typecheck && lint` did.
 * 2. `npm run lint:types` and `vitest run`, failing if either fails. The typed lint is one
 *    process on one core for about a minute (TypeScript 5.9's checker, see
 *    tools/lint/eslint.config.mjs); run before the tests, it left the other core idle all that
 *    time. Beside them it uses what the tests' waits leave. The lint's output is held and
 *    written after the tests' (so the two do not interleave), with its own exit status.
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

/** A held run's output, written under the command's name as npm would have shown it. */
function show(script, r) {
  process.stdout.write(`\n> npm run ${script}\n`);
  for (const b of r.out) process.stdout.write(b);
}

const checks = await Promise.all([run("typecheck", true), run("lint", true)]);
show("typecheck", checks[0]);
show("lint", checks[1]);
const failed = checks.find((r) => r.code !== 0);
if (failed !== undefined) {
  process.exitCode = failed.code;
  process.exit();
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
