import type { Command } from "commander";
import { systemClock } from "../../clock.js";
import { personTextOption } from "../../policy/person-text.js";
import { noteLine } from "../../policy/shown-text.js";
import { type ClearOutcome, clearFlag, listFlags } from "../../store/admin.js";
import { openStore, storeLocationFromOptions } from "../../store/db.js";
import { shownStdout, stderr } from "../io.js";
import { loginName } from "../login-name.js";
import { saying } from "../store-upgrade.js";

interface FlagsOptions {
  data?: string;
  json?: boolean;
  all?: boolean;
  clear?: string;
  by?: string;
}

/** `nor flags`: the checker's flags for a person (P24, P25); it never acts on them itself. */
export function register(program: Command): void {
  program
    .command("flags")
    .description("List the flags raised for a person, or clear one (P24, P25)")
    .option("--data <dir>", "store directory (DIR/nor.db); NOR_DATABASE_URL selects PostgreSQL")
    .option("--json", "JSON output")
    .option("--all", "include cleared flags")
    .option("--clear <id>", "clear this flag (who and when are recorded)")
    .option("--by <name>", "who clears it, at most 100 characters (default: the login name)")
    .action(async (opts: FlagsOptions) => {
      // Checked before the store is touched: a person's one line of text, shown by `nor flags`.
      const by = opts.by === undefined ? loginName() : personTextOption(opts.by, "--by", "name");
      const store = await openStore(
        storeLocationFromOptions(opts.data === undefined ? {} : { data: opts.data }),
        // Listing only reads: a store an earlier version made is refused, never upgraded by a
        // look (db.ts readsOnly); clearing a flag writes, and upgrades it first.
        saying({ create: false, readsOnly: opts.clear === undefined }),
      );
      try {
        if (opts.clear !== undefined) {
          report(await clearFlag(store.db, opts.clear, by, systemClock.now()));
          return;
        }
        const flags = await listFlags(store.db, opts.all === true);
        if (opts.json) {
          shownStdout().write(`${JSON.stringify(flags, null, 2)}\n`);
          return;
        }
        if (flags.length === 0) shownStdout().write("no flags\n");
        // One row a flag, its columns apart by tabs: text a site may have put in a detail (a
        // tab, a line break, an escape) is one line of spaces there, as `nor status`'s table
        // says a reason (noteLine), so it never makes a column or a row of its own.
        for (const f of flags) {
          const cleared = f.clearedAt
            ? `  (cleared ${f.clearedAt} by ${noteLine(f.clearedBy ?? "")})`
            : "";
          shownStdout().write(`${f.id}\t${f.kind}\t${f.source}\t${noteLine(f.detail)}${cleared}\n`);
        }
      } finally {
        await store.close();
      }
    });
}

/** What `nor flags --clear` says: done on stdout (exit 0), or why nothing changed (exit 2). */
function report(o: ClearOutcome): void {
  if (o.kind === "cleared") {
    shownStdout().write(`cleared ${o.id} (${o.flag}, ${o.source})\n`);
    process.exitCode = 0;
    return;
  }
  stderr().write(
    o.kind === "unknown-flag"
      ? `nor: no flag with id "${o.id}" (see \`nor flags\`)\n`
      : `nor: flag "${o.id}" was already cleared at ${o.at}${o.by ? ` by ${o.by}` : ""}; nothing changed\n`,
  );
  process.exitCode = 2;
}
