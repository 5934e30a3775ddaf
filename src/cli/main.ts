import type * as Commander from "commander";
import { requireCjs } from "../cjs.js";
import { NorError, UsageError } from "../errors.js";
import { type CliIo, stderr, stdout, withIo } from "./io.js";

// Required, not imported: commander is CommonJS (cjs.ts says why).
const { Command, CommanderError } = requireCjs("commander") as typeof Commander;
type Command = Commander.Command;
type Option = Commander.Option;

/** Each command module adds its subcommand; actions set process.exitCode or throw NorError. */
export interface CommandModule {
  register(program: Command): void;
}

interface CommandEntry {
  /** One line for `nor --help`; the command's own module holds its options and full help. */
  summary: string;
  load(): Promise<CommandModule>;
}

/**
 * The commands, in the order `nor --help` lists them. Each module is imported only when its
 * command runs (or its help is asked for), so `nor --help` and `nor log` never pay for the
 * fetcher, the HTML parser or the web server that `nor night` and `nor serve` need.
 */
const COMMANDS: Readonly<Record<string, CommandEntry>> = {
  start: {
    summary:
      "Import the catalog, serve the directory and run the night on its schedule (what `npm start` runs)",
    load: () => import("./commands/start.js"),
  },
  demo: {
    summary:
      "See the whole system offline: demo sites on loopback, two nights at the real pace, then the directory",
    load: () => import("./commands/demo.js"),
  },
  night: {
    summary: "Run or resume a night's check of every catalog source",
    load: () => import("./commands/night.js"),
  },
  status: {
    summary: "Per source: reading, last night's outcome, records known, new last night, flags",
    load: () => import("./commands/status.js"),
  },
  mark: {
    summary: "Mark a source read or not read (P24); the change is kept with time and reason",
    load: () => import("./commands/mark.js"),
  },
  site: {
    summary:
      "A site owner's requests (a slower pace, paths left alone, not read), kept per site; without options, lists them",
    load: () => import("./commands/site.js"),
  },
  flags: {
    summary: "List the flags raised for a person, or clear one (P24, P25)",
    load: () => import("./commands/flags.js"),
  },
  backfill: {
    summary: "A source's reading of its list's older pages (P7): restart one that ended",
    load: () => import("./commands/backfill.js"),
  },
  log: {
    summary: "Show the request log: every attempt the checker made (P27)",
    load: () => import("./commands/log.js"),
  },
  robots: {
    summary: "Tools for robots.txt files: what one allows public-records-check to read",
    load: () => import("./commands/robots.js"),
  },
  catalog: {
    summary: "Check, import or count the catalog of governments and sources (docs/catalog.md)",
    load: () => import("./commands/catalog.js"),
  },
  extract: {
    summary: "Print the records a recipe or platform preset finds in a saved file (offline)",
    load: () => import("./commands/extract.js"),
  },
  discover: {
    summary: "Read robots.txt and a homepage (nothing else) and print candidate catalog sources",
    load: () => import("./commands/discover.js"),
  },
  reparse: {
    summary:
      "Re-extract records from the stored copies with today's recipes, offline (P8), and say what would change against the stored records; it compares only and writes nothing",
    load: () => import("./commands/reparse.js"),
  },
  archive: {
    summary: "The private copy of every response read (P8)",
    load: () => import("./commands/archive.js"),
  },
  serve: {
    summary: "Serve the directory (pages, feeds, JSON API, /site-owners, /console) over HTTP",
    load: () => import("./commands/serve.js"),
  },
  operator: {
    summary: "The operator console's sign-in (see docs/operations.md)",
    load: () => import("./commands/operator.js"),
  },
};

/**
 * Whether this is a night `nor start` runs (`nor night … --served-at URL`, its own process, whose
 * stderr is the terminal the person ran `nor start` in): its errors name `nor start`, the
 * command the person ran, as its other lines do (night.ts).
 */
function startsNight(argv: readonly string[]): boolean {
  const args = argv.slice(2);
  return (
    commandNamed(args) === "night" &&
    args.some((a) => a === "--served-at" || a.startsWith("--served-at="))
  );
}

/** The command a command line names (`nor help X` names X), if any. */
function commandNamed(args: readonly string[]): string | undefined {
  const first = args.find((a) => !a.startsWith("-"));
  if (first === "help") return args[args.indexOf(first) + 1];
  return first;
}

/**
 * The program for this command line: the named command with its real options and action,
 * the others as one-line entries for the help listing.
 */
export async function buildProgram(argv: readonly string[]): Promise<Command> {
  const program = new Command("nor")
    .description(
      "New on Record: the directory of Ohio's public records and its nightly checker, public-records-check",
    )
    .version("0.1.0")
    // Capitalised as every command's description is; inherited by the commands with
    // subcommands (`nor catalog help`).
    .helpCommand("help [command]", "Display help for a command")
    .configureOutput({
      // stderr() escapes the controls a terminal would obey (io.ts): commander's messages
      // echo what was typed (`error: unknown option '--x…'`).
      writeOut: (text) => void stdout().write(text),
      writeErr: (text) => void stderr().write(text),
    })
    .showHelpAfterError()
    .exitOverride();
  const wanted = commandNamed(argv.slice(2));
  for (const [name, entry] of Object.entries(COMMANDS)) {
    if (name === wanted) (await entry.load()).register(program);
    else program.command(name).description(entry.summary);
  }
  for (const cmd of program.commands) cmd.exitOverride();
  refuseRepeatedOptions(program);
  return program;
}

/**
 * A usage error said with the command it belongs to (`nor log: …`), exit 2 as every other.
 */
export class CommandUsageError extends UsageError {
  /** The command as typed, `nor log` or `nor archive show`. */
  readonly command: string;
  constructor(command: string, message: string) {
    super(message);
    this.command = command;
  }
}

/**
 * An option that takes one value, given more than once, is refused (exit 2) naming it and the
 * values given, rather than the last one taken in silence (`--since A --since B` would look
 * for attempts since B only): the console refuses a repeated parameter the same way (400).
 * Every option of every command is covered here, where the program is built, so none is left
 * out and none needs its own code. Options meant to repeat keep doing so: a variadic one
 * (`--catalog <files...>`, `--leave-alone <path...>`) and one that collects its values with a
 * parser of its own (`--resolve`, (value, previous) => [...previous, value]). A flag without a
 * value (`--json`, `--allow-retire`) given twice says the same thing twice and changes nothing,
 * so it stays accepted. Checked just before the command's action (commander's preAction hook):
 * `--help` still shows the help, and an unknown option or a missing required one is said as
 * commander says it.
 */
function refuseRepeatedOptions(program: Command): void {
  const given = new Map<Option, string[]>();
  const listen = (cmd: Command): void => {
    for (const option of cmd.options) {
      if (!takesOneValue(option)) continue;
      cmd.on(`option:${option.name()}`, (value: string | null | undefined) => {
        const values = given.get(option) ?? [];
        values.push(value ?? "");
        given.set(option, values);
      });
    }
    for (const sub of cmd.commands) listen(sub);
  };
  listen(program);
  program.hook("preAction", (_program, action) => {
    const path: Command[] = [];
    for (let c: Command | null = action; c !== null; c = c.parent) path.unshift(c);
    const repeated = path
      .flatMap((c) => c.options)
      .map((o) => ({ flag: o.long ?? o.short ?? o.name(), values: given.get(o) ?? [] }))
      .filter((r) => r.values.length > 1)
      .map((r) => ({ flag: r.flag, values: r.values.map(shown).join(", ") }));
    given.clear();
    const [first, ...more] = repeated;
    if (first === undefined) return;
    throw new CommandUsageError(
      path.map((c) => c.name()).join(" "),
      more.length === 0
        ? `${first.flag} is given more than once (${first.values}); give it once`
        : `${repeated.map((r) => `${r.flag} (${r.values})`).join(", ")}: each is given more than once; give each once`,
    );
  });
}

/** An option that keeps one value: not a flag, not variadic, not collected by a parser of its own. */
function takesOneValue(option: Option): boolean {
  return (option.required || option.optional) && !option.variadic && option.parseArg === undefined;
}

/**
 * A value as the person typed it, within one line of a message: quoted, with control and
 * invisible characters escaped (\u{…}), when it is empty or holds what would blur the list of
 * values; cut after 60 characters.
 */
function shown(value: string): string {
  const chars = [...value];
  const cut = chars.length > 60 ? `${chars.slice(0, 59).join("")}…` : value;
  if (/^[^\s,()"\\\p{C}\p{Z}]+$/u.test(cut)) return cut;
  const escaped = cut
    .replace(/["\\]/g, "\\$&")
    .replace(/[\p{C}\p{Z}]/gu, (c) =>
      c === " " ? c : `\\u{${(c.codePointAt(0) ?? 0).toString(16)}}`,
    );
  return `"${escaped}"`;
}

/**
 * `nor help X` (or `nor catalog help X`, or `nor X --help`) for an X that is no command is the
 * same mistake as `nor X`: commander would print the general help and exit 0, so the `help` is
 * dropped and X is refused as an unknown command, named, with the help after it (exit 2).
 */
function helpForUnknownAsUnknown(program: Command, argv: readonly string[]): string[] {
  let cmd = program;
  for (let i = 2; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg.startsWith("-")) continue;
    if (arg === "help") {
      const topic = argv[i + 1];
      const known = (name: string) =>
        name === "help" ||
        cmd.commands.some((c) => c.name() === name || c.aliases().includes(name));
      if (cmd.commands.length > 0 && topic !== undefined && !topic.startsWith("-") && !known(topic))
        return [...argv.slice(0, i), ...argv.slice(i + 1)];
      break;
    }
    const sub = cmd.commands.find((c) => c.name() === arg || c.aliases().includes(arg));
    if (sub === undefined) {
      // `nor X --help` for an X that is no command: the same mistake as `nor X` (commander
      // would print the general help and exit 0).
      if (cmd.commands.length > 0)
        return argv.filter((a, j) => j <= i || (a !== "--help" && a !== "-h"));
      break;
    }
    cmd = sub;
  }
  return [...argv];
}

/**
 * `npm start --data /srv/nor-data` (or `npm run demo --headless`): npm reads an option before
 * `--` as its own setting and runs the command without it, which would then go on with its
 * default (a new store in ./data; the demo serving until Ctrl-C where CI wanted it ended).
 * Refused (exit 2) before anything is made, naming the options and the command line that passes
 * them on.
 */
function refuseOptionsNpmKept(
  program: Command,
  argv: readonly string[],
  npm: typeof import("./npm-options.js"),
): void {
  const name = commandNamed(argv.slice(2));
  const cmd = program.commands.find((c) => c.name() === name);
  if (cmd === undefined) return;
  const kept = npm.optionsNpmKept(cmd, process.env);
  if (kept.length === 0) return;
  const names = kept.map((k) => k.split(" ")[0]);
  const listed =
    names.length === 1 ? names[0] : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
  throw new CommandUsageError(
    `nor ${cmd.name()}`,
    `npm took ${listed} for ${names.length === 1 ? "a setting" : "settings"} of its own (npm reads the options before \`--\` as its own), so nor ${cmd.name()} never saw ${names.length === 1 ? "it" : "them"}; give ${names.length === 1 ? "it" : "them"} after --: ${npm.npmCommandLine(process.env, kept)}`,
  );
}

/**
 * The exit code of a thrown NorError, the same for every command: 2 for what the person
 * running it can fix by changing what they typed or configured (options, environment,
 * catalog, a missing store), 1 for a failure while doing the work.
 */
export function exitCodeOf(err: NorError): 1 | 2 {
  return err.code === "E_USAGE" || err.code === "E_CONFIG" || err.code === "E_CATALOG" ? 2 : 1;
}

/**
 * What every command does when its standard output fails: a reader that closed early
 * (`nor status | head -1`, EPIPE) is no failure, so the rest of the output is dropped and the
 * command finishes as it would (a night is not cut short by a closed pager); any other error
 * writing the output is thrown as before.
 */
export function onStdoutError(err: NodeJS.ErrnoException): void {
  if (err.code === "EPIPE") stdoutClosed = true;
  // Writes after the reader closed fail with ERR_STREAM_DESTROYED: dropped too.
  else if (!(stdoutClosed && err.code === "ERR_STREAM_DESTROYED")) throw err;
}
let stdoutClosed = false;
let stdoutGuarded = false;

/**
 * Runs the CLI; resolves to the exit code (0 done, 1 runtime failure, 2 usage or configuration).
 * `streams` replaces stdout, stderr and stdin for this run (tests run the CLI in-process).
 */
export async function main(argv: string[], streams?: CliIo): Promise<number> {
  if (streams) return withIo(streams, () => main(argv));
  process.exitCode = 0;
  // One place for every command's standard output (installed once per process).
  if (!stdoutGuarded) {
    stdoutGuarded = true;
    process.stdout.on("error", onStdoutError);
  }
  try {
    const program = await buildProgram(argv);
    // Only under one of nor's own npm scripts (`npm start`, `npm run demo`): the module is not
    // loaded otherwise (lazy-load.test.ts).
    if (/\bbin\/nor\.js\b/.test(process.env["npm_lifecycle_script"] ?? ""))
      refuseOptionsNpmKept(program, argv, await import("./npm-options.js"));
    await program.parseAsync(helpForUnknownAsUnknown(program, argv));
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === "commander.helpDisplayed" || err.code === "commander.version") return 0;
      // Help asked for (`nor help`, `nor catalog help`: on stdout, commander's exit code 0), or
      // help because nothing to run was named (bare `nor`, `nor catalog`: on stderr, commander's
      // exit code 1): the latter is a usage error, exit 2, as the README says.
      if (err.code === "commander.help") return err.exitCode === 0 ? 0 : 2;
      return 2;
    }
    if (err instanceof NorError) {
      // A usage error names the command as typed; any other error of a night `nor start` runs
      // names `nor start`, the command the person ran.
      const who =
        err instanceof CommandUsageError ? err.command : startsNight(argv) ? "nor start" : "nor";
      stderr().write(`${who}: ${err.message}\n`);
      return exitCodeOf(err);
    }
    // Anything else is a failure while working (a store that fails, a bug): exit 1, never
    // worded as something the person typed. NOR_DEBUG=1 adds the stack.
    const detail = err instanceof Error ? err.message : String(err);
    stderr().write(`${startsNight(argv) ? "nor start" : "nor"}: ${detail}\n`);
    if (process.env["NOR_DEBUG"] === "1" && err instanceof Error && err.stack)
      stderr().write(`${err.stack}\n`);
    return 1;
  }
}
