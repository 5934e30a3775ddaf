import { Command, CommanderError } from "commander";
import { NorError } from "../errors.js";
import * as archive from "./commands/archive.js";
import * as catalog from "./commands/catalog.js";
import * as discover from "./commands/discover.js";
import * as extract from "./commands/extract.js";
import * as flags from "./commands/flags.js";
import * as log from "./commands/log.js";
import * as mark from "./commands/mark.js";
import * as night from "./commands/night.js";
import * as operator from "./commands/operator.js";
import * as reparse from "./commands/reparse.js";
import * as robots from "./commands/robots.js";
import * as serve from "./commands/serve.js";
import * as status from "./commands/status.js";

/** Each command module adds its subcommand; actions set process.exitCode or throw NorError. */
export interface CommandModule {
  register(program: Command): void;
}

const modules: CommandModule[] = [
  night,
  status,
  mark,
  flags,
  log,
  robots,
  catalog,
  extract,
  discover,
  reparse,
  archive,
  serve,
  operator,
];

export function buildProgram(): Command {
  const program = new Command("nor")
    .description(
      "New on Record: the directory of Ohio's public records and its nightly checker, public-records-check",
    )
    .version("0.1.0")
    .showHelpAfterError()
    .exitOverride();
  for (const m of modules) m.register(program);
  for (const cmd of program.commands) cmd.exitOverride();
  return program;
}

/**
 * The exit code of a thrown NorError, the same for every command: 2 for what the person
 * running it can fix by changing what they typed or configured (options, environment,
 * catalog, a missing store), 1 for a failure while doing the work.
 */
export function exitCodeOf(err: NorError): 1 | 2 {
  return err.code === "E_USAGE" || err.code === "E_CONFIG" || err.code === "E_CATALOG" ? 2 : 1;
}

/** Runs the CLI; resolves to the exit code (0 done, 1 runtime failure, 2 usage or configuration). */
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  process.exitCode = 0;
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === "commander.helpDisplayed" || err.code === "commander.version") return 0;
      if (err.code === "commander.help") return 0;
      return 2;
    }
    if (err instanceof NorError) {
      process.stderr.write(`nor: ${err.message}\n`);
      return exitCodeOf(err);
    }
    throw err;
  }
}
