import type * as Commander from "commander";

type Command = Commander.Command;

/**
 * npm's own configuration names that share a name with an option of ours: npm sets them in a
 * script's environment whatever was typed (npm_config_user_agent always), so they say nothing
 * about what the person gave.
 */
const NPM_OWN = new Set(["user_agent"]);

/**
 * The options of `cmd` that npm kept for itself. `npm start --data /srv/nor-data` (or `npm run
 * demo --headless`) is read by npm as its own setting: it warns in passing, puts it in the
 * script's environment as `npm_config_data` and runs `node bin/nor.js start` without it, so
 * the command would go on with its default (a new store in ./data, the nights scheduled on it;
 * the full demo, serving until Ctrl-C, where CI wanted it checked and ended). Only a command run
 * by an npm script of this package that names it (`npm_lifecycle_script`, `exec node bin/nor.js
 * start`) is looked at: the same variables inherited by a process started otherwise say nothing.
 * Returns each option as it should have been given after `--`, in the order `--help` lists them.
 */
export function optionsNpmKept(cmd: Command, env: NodeJS.ProcessEnv): string[] {
  const event = env["npm_lifecycle_event"];
  const script = env["npm_lifecycle_script"] ?? "";
  if (event === undefined || !new RegExp(`\\bbin/nor\\.js ${cmd.name()}\\b`).test(script))
    return [];
  const kept: string[] = [];
  for (const option of cmd.options) {
    const long = option.long?.replace(/^--/, "");
    if (long === undefined) continue;
    const key = long.replace(/-/g, "_");
    if (NPM_OWN.has(key)) continue;
    const value = env[`npm_config_${key}`];
    if (value === undefined) continue;
    const takesValue = option.required || option.optional;
    // `--data=/x` leaves npm the value; `--data /x` leaves it "true", the value going on as an
    // argument of its own: the option's placeholder then stands for it.
    const placeholder = option.flags.match(/[<[][^>\]]*[>\]]/)?.[0] ?? "<value>";
    kept.push(
      !takesValue
        ? `--${long}`
        : value === "true" || value === ""
          ? `--${long} ${placeholder}`
          : `--${long} ${shellWord(value)}`,
    );
  }
  return kept;
}

/** The npm command line that passes `options` on: `npm start -- …` or `npm run demo -- …`. */
export function npmCommandLine(env: NodeJS.ProcessEnv, options: readonly string[]): string {
  const event = env["npm_lifecycle_event"] ?? "start";
  const run = event === "start" ? "npm start" : `npm run ${event}`;
  return `${run} -- ${options.join(" ")}`;
}

function shellWord(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, "'\\''")}'`;
}
