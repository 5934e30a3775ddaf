/**
 * Which build of the command line runs: the engine joined into a few files (dist/engine/,
 * scripts/bundle-engine.mjs), quicker to start, or the compiled modules it was joined from
 * (dist/cli/main.js). bin/nor.js asks before it loads either.
 *
 * The joined engine runs only when every module it was joined from is still the file it was
 * then: the same size and modification time as its list says (dist/engine/inputs.json, written
 * last, once every chunk is on disk). A later `tsc`, even one rewriting a single file (`--watch`),
 * a copy that did not keep the times, a clock set back: each leaves a module that differs, and
 * the compiled modules run, only slower to start. Never the other way round: an out-of-date
 * engine would run old code while the catalog stamp and page keys (hashed from dist/'s files)
 * said the new code had run.
 */
import { readFileSync, statSync } from "node:fs";

/** dist/engine/inputs.json: the modules the engine was joined from, relative to dist/. */
export interface JoinedInputs {
  modules: { file: string; size: number; mtimeMs: number }[];
}

export const INPUTS_FILE = "engine/inputs.json";

/**
 * The module to load for the command line, given dist/ (a directory URL ending in `/`): the
 * joined engine's entry when it is up to date, else the compiled one's. Reads one small file and
 * stats each module listed (about 150: well under a millisecond).
 */
export function cliModule(dist: URL): { url: URL; joined: boolean } {
  const compiled = { url: new URL("cli/main.js", dist), joined: false };
  let inputs: JoinedInputs;
  try {
    inputs = JSON.parse(readFileSync(new URL(INPUTS_FILE, dist), "utf8")) as JoinedInputs;
  } catch {
    return compiled; // not joined (or not yet: the list is written last)
  }
  if (!Array.isArray(inputs.modules) || inputs.modules.length === 0) return compiled;
  for (const m of inputs.modules) {
    const s = statSync(new URL(m.file, dist), { throwIfNoEntry: false });
    if (s === undefined || s.size !== m.size || s.mtimeMs !== m.mtimeMs) return compiled;
  }
  return { url: new URL("engine/main.js", dist), joined: true };
}
