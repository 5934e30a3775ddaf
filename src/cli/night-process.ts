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
    env: { ...nightEnv(), [PARENT_PID_ENV]: String(process.pid) },
  });
}

/**
 * The process id of the command that started a night's process (`nor start`, `nor night
 * --workers`): the night stops in order once that command is gone (night.ts, watchParent).
 */
export const PARENT_PID_ENV = "NOR_NIGHT_PARENT_PID";

/** How a night's process ended: its exit code, the signal that ended it, or why it never ran. */
export interface NightProcessEnd {
  pid: number | undefined;
  /** The exit code; null when a signal ended it, or when it never started. */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Why it could not be started (spawn's error: ENOENT, EAGAIN…), when it could not. */
  error?: Error;
}

/**
 * The end of a night's process, to be asked for as soon as it is started: the listeners are
 * added then, so no end is missed however soon it comes (a child killed by a signal has no exit
 * code, only a signal, and its 'exit' is not heard again), and a child that could not be
 * started ('error' and no 'exit') is an end, not an uncaught error that ends this process.
 */
export function nightProcessEnd(child: ChildProcess): Promise<NightProcessEnd> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve({ pid: child.pid, code: child.exitCode, signal: child.signalCode });
      return;
    }
    child.once("exit", (code, signal) => resolve({ pid: child.pid, code, signal }));
    child.on("error", (error) => {
      // node says a start that failed by 'error' alone, its exit code set below 0; after a
      // start, 'error' is a signal that could not be sent, and the 'exit' still comes.
      if (child.pid === undefined || (child.exitCode ?? 0) < 0)
        resolve({ pid: child.pid, code: null, signal: null, error });
    });
  });
}

/**
 * What a worker's end means for the night: `done` (exit 0); `refused`, exit 2, a reason a
 * person must mend (an answer the archive could not keep): the whole night stops on it, as the
 * others would only meet it too; `died` otherwise (killed, a crash): the others finish its sites.
 */
export function workerEndMeans(end: NightProcessEnd): "done" | "refused" | "died" {
  if (end.error === undefined && end.signal === null && end.code === 0) return "done";
  if (end.error === undefined && end.signal === null && end.code === 2) return "refused";
  return "died";
}

/** How a worker's process ended, in words: "worker pid 4242 was killed by SIGKILL". */
export function endText(end: NightProcessEnd): string {
  if (end.error !== undefined) return `a worker could not be started (${end.error.message})`;
  const who = `worker pid ${end.pid ?? "?"}`;
  if (end.signal !== null) return `${who} was killed by ${end.signal}`;
  return `${who} exited with code ${end.code ?? "?"}`;
}
