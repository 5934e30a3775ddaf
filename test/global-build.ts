import { execFileSync } from "node:child_process";
import { join } from "node:path";

/**
 * Builds dist/ once before any test file runs: the tests that run the real `nor` (as an
 * operator does: `node bin/nor.js …`) all use this one build, so none rebuilds it under
 * another's running process. A type error fails the whole run here, loudly.
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
  // The rest of `npm run build`: kysely and feedsmith as one file each, as `nor` loads them
  // (src/store/kysely.ts, src/sources/extract/feedsmith.ts), then the engine joined, which
  // bin/nor.js runs (scripts/bundle-engine.mjs).
  for (const script of ["scripts/bundle-vendor.mjs", "scripts/bundle-engine.mjs"]) {
    execFileSync(process.execPath, [join(root, script)], {
      cwd: root,
      stdio: "inherit",
      timeout: 180_000,
    });
  }
}
