/**
 * Which build of the command line runs: the engine joined into a few files (dist/engine/,
 * scripts/bundle-engine.mjs), quicker to start, or the compiled modules it was joined from
 * (dist/cli/main.js). bin/nor.js asks before it loads either.
 *
 * The joined engine runs only when every module it was joined from is still the file it was
 * then: the same size and modification time as its list says (dist/engine/inputs.json, written
 * last, once every chunk is on disk), and a time older than the list's own (a module rewritten
 * within the same tick as the list was written, on a file system that keeps whole seconds, is
 * taken as changed). A later `tsc`, even one rewriting a single file (`--watch`), a copy that did
 * not keep the times, a clock set back: each leaves a module that differs, and the compiled
 * modules run, only slower to start. Never the other way round: an out-of-date engine would run
 * old code while the catalog stamp and page keys (hashed from dist/'s files) said the new code
 * had run.
 */
import { closeSync, fstatSync, openSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** dist/engine/inputs.json: the engine's entry chunk, and the modules it was joined from. */
export interface JoinedInputs {
  entry: string;
  modules: { file: string; size: number; mtimeMs: number }[];
}

export const INPUTS_FILE = "engine/inputs.json";

/**
 * The module to load for the command line, given dist/ (a directory URL ending in `/`): the
 * joined engine's entry when it is up to date, else the compiled one's. Reads one small file and
 * stats each module listed (about 270: a millisecond or two).
 */
export function cliModule(dist: URL): { url: URL; joined: boolean } {
  const compiled = { url: new URL("cli/main.js", dist), joined: false };
  const dir = fileURLToPath(dist);
  let inputs: JoinedInputs;
  let listedAt: number;
  try {
    const fd = openSync(join(dir, INPUTS_FILE), "r");
    try {
      listedAt = fstatSync(fd).mtimeMs;
      inputs = JSON.parse(readFileSync(fd, "utf8")) as JoinedInputs;
    } finally {
      closeSync(fd);
    }
  } catch {
    return compiled; // not joined (or not yet: the list is written last)
  }
  const { entry, modules } = inputs;
  if (typeof entry !== "string" || !/^[\w.-]+\.js$/.test(entry)) return compiled;
  if (!Array.isArray(modules) || modules.length === 0) return compiled;
  for (const m of modules) {
    const s = statSync(join(dir, m.file), { throwIfNoEntry: false });
    if (s === undefined || s.size !== m.size || s.mtimeMs !== m.mtimeMs) return compiled;
    if (!(s.mtimeMs < listedAt)) return compiled;
  }
  return { url: pathToFileURL(join(dir, "engine", entry)), joined: true };
}
