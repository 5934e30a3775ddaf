import { userInfo } from "node:os";
import type { Command } from "commander";
import { clearFlag, listFlags } from "../../store/admin.js";
import { openStore, storeLocationFromOptions } from "../../store/db.js";

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
    .option("--by <name>", "who clears it (default: the login name)")
    .action(async (opts: FlagsOptions) => {
      const store = await openStore(
        storeLocationFromOptions(opts.data === undefined ? {} : { data: opts.data }),
        { create: false },
      );
      try {
        if (opts.clear !== undefined) {
          await clearFlag(store.db, opts.clear, opts.by ?? userInfo().username, Date.now());
          process.stdout.write(`cleared ${opts.clear}\n`);
          return;
        }
        const flags = await listFlags(store.db, opts.all === true);
        if (opts.json) {
          process.stdout.write(`${JSON.stringify(flags, null, 2)}\n`);
          return;
        }
        if (flags.length === 0) process.stdout.write("no flags\n");
        for (const f of flags) {
          const cleared = f.clearedAt ? `  (cleared ${f.clearedAt} by ${f.clearedBy})` : "";
          process.stdout.write(`${f.id}\t${f.kind}\t${f.source}\t${f.detail}${cleared}\n`);
        }
      } finally {
        await store.close();
      }
    });
}
