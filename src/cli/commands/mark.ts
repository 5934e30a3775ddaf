import type { Command } from "commander";
import { systemClock } from "../../clock.js";
import { UsageError } from "../../errors.js";
import { isNightDate, nightOf } from "../../policy/night-date.js";
import { personTextOption } from "../../policy/person-text.js";
import {
  type FirstNight,
  firstKnownNight,
  type MarkOutcome,
  markSource,
} from "../../store/admin.js";
import { openStore, storeLocationFromOptions } from "../../store/db.js";
import { stderr, stdout } from "../io.js";
import { loginName } from "../login-name.js";
import { saying } from "../store-upgrade.js";

interface MarkOptions {
  data?: string;
  read?: boolean;
  notRead?: boolean;
  reason?: string;
  by?: string;
  night?: string;
}

/** `nor mark`: P24, only a person changes whether a source is read, with time and reason. */
export function register(program: Command): void {
  program
    .command("mark <source>")
    .description("Mark a source read or not read (P24); the change is kept with time and reason")
    .option("--data <dir>", "store directory (DIR/nor.db); NOR_DATABASE_URL selects PostgreSQL")
    .option("--not-read", "stop reading it (it is then only rechecked, P25)")
    .option("--read", "read it again")
    .option("--reason <text>", "why, one line of at most 500 characters (required with --not-read)")
    .option("--by <name>", "who decides, at most 100 characters (default: the login name)")
    .option(
      "--night <YYYY-MM-DD>",
      "the marking night, from which the recheck nights count (P25; default: today in America/New_York)",
    )
    .action(async (source: string, opts: MarkOptions) => {
      if (opts.read === opts.notRead)
        throw new UsageError("give exactly one of --read or --not-read");
      // Checked before the store is touched, like every option (P24: the reason is required).
      if (opts.notRead && !opts.reason?.trim())
        throw new UsageError('--not-read needs --reason "…" (P24)');
      // A person's one line of text: shown again in `nor status`, the console, the public pages.
      const reason =
        opts.reason === undefined ? undefined : personTextOption(opts.reason, "--reason", "reason");
      const by = opts.by === undefined ? loginName() : personTextOption(opts.by, "--by", "name");
      const now = systemClock.now();
      const night = opts.night ?? nightOf(now);
      if (!isNightDate(night))
        throw new UsageError(`--night: "${night}" is not a date written YYYY-MM-DD`);
      // The recheck nights count from it (P25): a date not begun yet is a mistyped one.
      if (night > nightOf(now))
        throw new UsageError(
          `--night: ${night} is after tonight (${nightOf(now)} in New York); a page is marked on a night that has begun`,
        );
      const store = await openStore(
        storeLocationFromOptions(opts.data === undefined ? {} : { data: opts.data }),
        saying({ create: false }),
      );
      try {
        // A night from before the store began is a mistyped one too: nothing happened on it here.
        if (opts.night !== undefined) {
          const first = await firstKnownNight(store.db);
          if (first !== undefined && night < first.night)
            throw new UsageError(beforeFirst(night, first));
        }
        const outcome = await markSource(store.db, {
          source,
          reading: opts.read === true,
          ...(reason !== undefined ? { reason } : {}),
          by,
          at: now,
          night,
        });
        report(outcome);
      } finally {
        await store.close();
      }
    });
}

/** Why a --night before the earliest night the store knows is refused, naming both. */
function beforeFirst(night: string, first: FirstNight): string {
  const what =
    first.from === "first-night"
      ? "its first night"
      : "the New York date the store was made, before any night it ran";
  return `--night: ${night} is before the earliest night this store knows, ${first.night} (${what}); nothing could have happened on it here`;
}

/** What `nor mark` says: the change on stdout (exit 0), or why nothing changed (exit 2). */
function report(o: MarkOutcome): void {
  if (o.kind === "marked") {
    stdout().write(`${o.source}: ${o.reading ? "read" : `not read (${o.reason})`}\n`);
    process.exitCode = 0;
    return;
  }
  stderr().write(`nor: ${refusal(o)}\n`);
  process.exitCode = 2;
}

function refusal(o: Exclude<MarkOutcome, { kind: "marked" }>): string {
  switch (o.kind) {
    case "reason-missing":
      return '--not-read needs --reason "…" (P24)';
    case "unknown-source":
      return `unknown source "${o.source}" (not a source of the catalog in use; \`nor status\` lists them)`;
    case "retired":
      return `${o.source}: retired ${o.at} (no longer in the catalog${o.renamedTo ? `; renamed to ${o.renamedTo}` : ""}), so no night reads it; nothing changed`;
    case "already":
      return o.reading
        ? `${o.source} is already read${o.since ? ` (since ${o.since})` : ""}; nothing changed`
        : `${o.source} is already not read for that reason (since ${o.since}); nothing changed`;
  }
}
