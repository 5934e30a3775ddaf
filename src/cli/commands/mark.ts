import { userInfo } from "node:os";
import type { Command } from "commander";
import { UsageError } from "../../errors.js";
import { isNightDate, nightOf } from "../../policy/night-date.js";
import { markSource } from "../../store/admin.js";
import { openStore, storeLocationFromOptions } from "../../store/db.js";

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
    .option("--reason <text>", "why (required with --not-read)")
    .option("--by <name>", "who decides (default: the login name)")
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
      const now = Date.now();
      const night = opts.night ?? nightOf(now);
      if (!isNightDate(night))
        throw new UsageError(`--night: "${night}" is not a date written YYYY-MM-DD`);
      const store = await openStore(
        storeLocationFromOptions(opts.data === undefined ? {} : { data: opts.data }),
        { create: false },
      );
      try {
        await markSource(store.db, {
          source,
          reading: opts.read === true,
          ...(opts.reason !== undefined ? { reason: opts.reason } : {}),
          by: opts.by ?? userInfo().username,
          at: now,
          night,
        });
        process.stdout.write(
          `${source}: ${opts.read ? "read" : `not read (${opts.reason?.trim()})`}\n`,
        );
        process.exitCode = 0;
      } finally {
        await store.close();
      }
    });
}
