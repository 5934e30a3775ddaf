import { AsyncLocalStorage } from "node:async_hooks";
import type { Clock } from "../clock.js";

/** Where a command writes: process.stdout / process.stderr, or what `main` was given. */
export interface CliOutput {
  write(chunk: string | Uint8Array): unknown;
  readonly isTTY?: boolean;
}

/** The streams one run of the CLI reads and writes. */
export interface CliIo {
  stdout: CliOutput;
  stderr: CliOutput;
  stdin: AsyncIterable<string | Uint8Array> & { readonly isTTY?: boolean };
  /**
   * The clock `nor night` reads (its composition root's), where a test runs the CLI in-process
   * at another time of day than the machine's (the rules of which night may begin depend on
   * the hour in New York); the system's clock otherwise. Only `main`'s caller gives it: no
   * option or setting does, and `bin/nor.js` gives none. Processes the night starts (its
   * --workers) read the system's.
   */
  clock?: Clock;
}

const current = new AsyncLocalStorage<CliIo>();

/**
 * Runs `fn` with these streams as the commands' stdout, stderr and stdin, for everything it
 * starts (awaited or not), so `main` can be run in-process with its output captured.
 */
export function withIo<T>(io: CliIo, fn: () => Promise<T>): Promise<T> {
  return current.run(io, fn);
}

/** The streams of the run under way; the process's own outside `main`. */
export function io(): CliIo {
  return (
    current.getStore() ?? { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin }
  );
}

/**
 * What a terminal would obey rather than show, in text written to stderr: the C0 controls but
 * the line feed (a tab and a carriage return too: no message uses them, and typed in a value
 * they hide what is around them), DEL, the C1 controls, and the marks that turn the direction
 * of the text around them (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069: policy/shown-text.ts
 * DIRECTION_MARKS, written out here so that `nor --help` loads no policy module).
 */
const NOT_FOR_A_TERMINAL =
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` for stderr: each character a terminal would obey (an escape sequence typed in an
 * argument and echoed in an error message, which could clear the screen or set the window's
 * title) written as \uXXXX, which a person reads as what it is. Text without one is returned as
 * is. \uXXXX (every such character is in the BMP) rather than \u{…}: inside a JSON log line
 * (`nor night`'s, when stderr is no terminal) it is JSON's own escape, so the line stays valid
 * JSON and means the same.
 */
export function diagnosticText(text: string): string {
  return text.replace(NOT_FOR_A_TERMINAL, asEscape);
}

/** One character as \uXXXX (every character escaped here is in the BMP). */
const asEscape = (c: string): string =>
  `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, "0")}`;

/** NOT_FOR_A_TERMINAL less the tab, which lays out `nor flags`' columns (shownStdout). */
const NOT_FOR_A_TERMINAL_BUT_TABS =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * The stderr of the run under way, for error messages, notes and logs: every string written is
 * made safe for a terminal there (diagnosticText), so no command, present or future, echoes a
 * typed control character raw, and commander's own messages (an unknown command or option)
 * neither. The one thing meant for the terminal itself, a progress line rewritten in place,
 * is written by rewriteLine.
 */
export const stderr = (): CliOutput => escaping(io().stderr, NOT_FOR_A_TERMINAL);

/** `out`, each string written with the characters `re` finds as \uXXXX; bytes as they are. */
function escaping(out: CliOutput, re: RegExp): CliOutput {
  return {
    get isTTY() {
      return out.isTTY === true;
    },
    write: (chunk) => out.write(typeof chunk === "string" ? chunk.replace(re, asEscape) : chunk),
  };
}

/**
 * Rewrites the line stderr's terminal is on with `text` (made safe as any stderr text is): a
 * carriage return before it and "erase to the end of the line" after it are the only controls
 * written raw.
 */
export function rewriteLine(text: string): void {
  io().stderr.write(`\r${diagnosticText(text)}\x1b[K`);
}

export const stdout = (): CliOutput => io().stdout;

/**
 * stdout for output that carries text sites sent (record titles, a no's evidence, a flag's
 * detail, a page's title): every string written made safe for a terminal as stderr's are
 * (diagnosticText), but for the tab, which lays out columns and moves only the cursor. Inside
 * JSON the \uXXXX written is JSON's own escape for the same character (JSON.stringify escapes
 * the C0 controls but leaves the C1 controls and direction marks raw),
 * so the output parses to the same values. Not for bytes meant as they are (`nor archive show`).
 */
export const shownStdout = (): CliOutput => escaping(io().stdout, NOT_FOR_A_TERMINAL_BUT_TABS);

export const stdin = (): CliIo["stdin"] => io().stdin;
