import { type ChildProcess, type StdioOptions, spawn } from "node:child_process";

/**
 * How a night's own process is started. A night is always a process of its own (`nor start`
 * spawns it, `nor night --workers` spawns its helpers, a systemd timer runs `nor night`), and
 * one of V8's sizes can only be set on node's command line, before the process runs: the young
 * generation's. V8's default semi-spaces of 16 MB keep 32 MB committed for the whole night;
 * 4 MB keeps 8, for 6–11% more CPU (more young collections): a night is paced by its gaps,
 * not by its CPU, and this keeps a 20,000-source night under 150 MB (docs/benchmarks.md, "A
 * night's memory").
 */
export const NIGHT_SEMI_SPACE_MB = 4;

/** node's options for a night's process, before the script: `node …NIGHT_NODE_OPTIONS bin/nor.js night …`. */
export const NIGHT_NODE_OPTIONS: readonly string[] = [
  `--max-semi-space-size=${NIGHT_SEMI_SPACE_MB}`,
];

/**
 * glibc's malloc arenas a night's process may use. By default each thread that allocates gets
 * an arena of its own, up to eight per core: V8's compiler and collector threads and libuv's
 * pool each keep memory in theirs, which the process's resident set counts. Two keep a
 * 20,000-source night about 5 MB smaller at its peak (docs/benchmarks.md, "A night's memory"),
 * within its 150 MB. Only glibc reads it; an operator's own value is kept.
 */
export const NIGHT_MALLOC_ARENA_MAX = "2";

/** The environment a night's process is started with: this one, malloc's arenas bounded. */
export function nightEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...env, MALLOC_ARENA_MAX: env["MALLOC_ARENA_MAX"] ?? NIGHT_MALLOC_ARENA_MAX };
}

/**
 * A night's process: `node …NIGHT_NODE_OPTIONS script …args`, in nightEnv()'s environment. The
 * one way `nor start` and `nor night --workers` start one (`spawner` is for tests).
 */
export function startNightProcess(
  script: string,
  args: readonly string[],
  stdio: StdioOptions,
  spawner: typeof spawn = spawn,
): ChildProcess {
  return spawner(process.execPath, [...NIGHT_NODE_OPTIONS, script, ...args], {
    stdio,
    env: nightEnv(),
  });
}
