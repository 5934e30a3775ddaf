import { constants } from "node:os";
import { stderr } from "./io.js";

/** The signals that stop `nor start` and `nor demo`: Ctrl-C, systemd's stop, a terminal closed. */
export const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/**
 * How long after the first signal the same signal again is taken for its echo, not a second
 * stop. One Ctrl-C under `npm start` or `npm run demo` arrives twice, well under a millisecond
 * apart: once from the terminal (to every process of its group) and once from npm, which passes
 * on what it got; a terminal closed or `systemctl stop` signals a whole group alike.
 */
export const ECHO_MS = 1000;

export interface StopSignalOptions {
  /** "nor demo", "nor start": who says that it stops at once. */
  command: string;
  /** The first signal: the stop in order begins (the command then ends as it says). */
  inOrder: (signal: NodeJS.Signals) => void;
  /**
   * A second signal: what must not be left even so (a lock, a temporary directory), done at
   * once and synchronously; returns a few words on what it did, said after "stopping at once".
   */
  atOnce?: () => string | undefined;
  /** Milliseconds on a clock that only goes forward (tests give their own). */
  now?: () => number;
  /** Ends the process by `signal` (tests give their own). */
  end?: (signal: NodeJS.Signals) => void;
  /** Where it is said (default: stderr). */
  say?: (line: string) => void;
}

/**
 * The handler the stop signals share: the first stops in order; a second one (another stop
 * signal, or the same one again once its echo has passed) stops at once, says so, and ends the
 * process by that signal, as a program that does not catch it would end: a shell then says
 * 128 + its number (130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP), and a script run by it
 * stops as after any Ctrl-C. Echoes of the first (ECHO_MS) change nothing.
 */
export function stopHandler(o: StopSignalOptions): (signal: NodeJS.Signals) => void {
  const now = o.now ?? (() => performance.now());
  const say = o.say ?? ((line: string) => void stderr().write(`${line}\n`));
  let first: { signal: NodeJS.Signals; at: number } | undefined;
  let ended = false;
  return (signal) => {
    if (ended) return;
    if (first === undefined) {
      first = { signal, at: now() };
      o.inOrder(signal);
      return;
    }
    if (signal === first.signal && now() - first.at < ECHO_MS) return;
    ended = true;
    let done: string | undefined;
    try {
      done = o.atOnce?.();
    } finally {
      say(
        `${o.command}: ${signal} while stopping: stopped at once, not in order${done ? ` (${done})` : ""}; exit status ${exitStatusOf(signal)}`,
      );
      (o.end ?? endBySignal)(signal);
    }
  };
}

/**
 * Listens for the stop signals with stopHandler(o) until the function returned is called. When
 * a stop in order is done (the command lets its signals go), the process may take a moment more
 * to end (its sockets, its worker threads): the echo of the first signal (npm's copy of one
 * Ctrl-C, or the terminal's) may arrive then, and with nothing listening its default would end
 * the process by that signal, a shell saying 130 after a stop in order. So the first signal
 * stays taken until ECHO_MS after it (an unref'd timer: it keeps nothing running); that signal
 * again past it, or another, ends the process as it would have.
 */
export function onStopSignals(o: StopSignalOptions): () => void {
  const now = o.now ?? (() => performance.now());
  let first: { signal: NodeJS.Signals; at: number } | undefined;
  const handler = stopHandler({
    ...o,
    now,
    inOrder: (signal) => {
      first = { signal, at: now() };
      o.inOrder(signal);
    },
    end: (signal) => {
      letGo();
      (o.end ?? endBySignal)(signal);
    },
  });
  const letGo = () => {
    for (const s of STOP_SIGNALS) process.off(s, handler);
  };
  for (const s of STOP_SIGNALS) process.on(s, handler);
  let echoTaken = false;
  return () => {
    letGo();
    if (first === undefined || echoTaken) return;
    const f = first;
    const left = ECHO_MS - (now() - f.at);
    if (left <= 0) return;
    echoTaken = true;
    const echo = (signal: NodeJS.Signals) => {
      if (signal === f.signal && now() - f.at < ECHO_MS) return;
      process.off(f.signal, echo);
      (o.end ?? endBySignal)(signal);
    };
    process.on(f.signal, echo);
    setTimeout(() => process.off(f.signal, echo), left).unref();
  };
}

/** What a shell says a process that `signal` ended exited with. */
export function exitStatusOf(signal: NodeJS.Signals): number {
  return 128 + (constants.signals[signal] ?? 0);
}

/**
 * Ends this process by `signal`, as if it had never been caught; when something else still
 * listens for it (so it would not end the process), by its exit status instead.
 */
function endBySignal(signal: NodeJS.Signals): void {
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  else process.exit(exitStatusOf(signal));
}
