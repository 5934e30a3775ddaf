import { execFileSync } from "node:child_process";
import { join } from "node:path";

/**
 * Builds dist/ once before any test file runs: the tests that run the real `nor` (as an
 * operator does: `node bin/nor.js …`) all use this one build, so none rebuilds it under
 * another's running process. A type error fails the whole run here, loudly.
 *
 * The build is incremental (tsconfig.build.json keeps dist/.tsbuildinfo): where dist/ was built
 * from the same sources, as `npm ci` builds it (`prepare`) just before CI's `npm test`, tsc only
 * checks that and emits nothing (about 1 s of CPU on the 2-core machine, against 8 s for a whole
 * build), and every test file waits for this. A changed source is compiled again as before;
 * a type error is reported on every run until mended; `rm -rf dist` starts afresh.
 */
export default function setup(): void {
  const root = join(import.meta.dirname, "..");
  execFileSync(
    process.execPath,
    [join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"],
    {
      cwd: root,
      stdio: "inherit",
      timeout: 180_000,
    },
  );
  // The rest of `npm run build`: kysely, feedsmith, yaml and zod as one file each, as `nor`
  // loads them (src/store/kysely.ts, src/sources/extract/feedsmith.ts, src/yaml.ts,
  // src/zod.ts), then the engine joined, which bin/nor.js runs (scripts/bundle-engine.mjs).
  for (const script of ["scripts/bundle-vendor.mjs", "scripts/bundle-engine.mjs"]) {
    execFileSync(process.execPath, [join(root, script)], {
      cwd: root,
      stdio: "inherit",
      timeout: 180_000,
    });
  }
}
