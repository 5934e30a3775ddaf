import type { Command } from "commander";
import { viaText } from "../../night/way-choice.js";
import { type NightHistoryRow, recentNights, statusRows } from "../../store/admin.js";
import { openStore, storeLocationFromOptions } from "../../store/db.js";
import { stdout } from "../io.js";

interface StatusOptions {
  data?: string;
  json?: boolean;
}

/** `nor status`: per source, whether it is read, its last night and what is known (P23, P26). */
export function register(program: Command): void {
  program
    .command("status")
    .description("Per source: reading, last night's outcome, records known, new last night, flags")
    .option("--data <dir>", "store directory (DIR/nor.db); NOR_DATABASE_URL selects PostgreSQL")
    .option("--json", "JSON output")
    .action(async (opts: StatusOptions) => {
      const store = await openStore(
        storeLocationFromOptions(opts.data === undefined ? {} : { data: opts.data }),
        { create: false },
      );
      try {
        const rows = await statusRows(store.db);
        if (opts.json) {
          stdout().write(`${JSON.stringify(rows, null, 2)}\n`);
          return;
        }
        stdout().write(
          "source\tgovernment\turl\treading\tlast night\toutcome\tvia\trecords\tnew\tflags\n",
        );
        for (const r of rows) {
          const reading =
            r.siteNotRead !== undefined
              ? `not read: ${r.siteNotRead}`
              : r.reading
                ? "read"
                : `not read: ${r.notReadReason ?? ""}`;
          const outcome = r.lastOutcome
            ? `${r.lastOutcome}${r.lastReason ? ` (${r.lastReason})` : ""}`
            : "-";
          // P4: which way in the last night used, and why the better ones were passed over.
          const via = r.lastOutcome
            ? viaText(r.way ? { used: r.way, skipped: r.skipped } : { skipped: r.skipped })
            : "-";
          stdout().write(
            `${r.id}\t${r.government}\t${r.url}\t${reading}\t${r.lastNight ?? "-"}\t${outcome}\t${via}\t${r.recordsKnown}\t${r.newLastNight}\t${r.flags.join(",") || "-"}\n`,
          );
        }
        const nights = await recentNights(store.db, 3);
        if (nights.length > 0) stdout().write("\n");
        for (const n of nights) stdout().write(`${nightLine(n)}\n`);
      } finally {
        await store.close();
      }
    });
}

/** One line per recent night: under way, finished, or closed incomplete (P13). */
export function nightLine(n: NightHistoryRow): string {
  const checked =
    `${n.checked} source${n.checked === 1 ? "" : "s"} checked` +
    (n.unreached > 0
      ? ` (${n.unreached} of them not reached before the deadline; they go first next night)`
      : "");
  if (n.finishedAt === null)
    return `night ${n.night}: under way or stopped (deadline ${n.deadlineAt}); ${checked}; \`nor night\` resumes it until then`;
  if (n.closedIncomplete)
    return `night ${n.night}: closed incomplete at ${n.finishedAt}: interrupted and not resumed before its deadline or the next night; ${checked}; sources not reached go first next night`;
  return `night ${n.night}: finished ${n.finishedAt} (deadline ${n.deadlineAt}); ${checked}`;
}
