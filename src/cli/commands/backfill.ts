import type { Command } from "commander";
import { systemClock } from "../../clock.js";
import { offText } from "../../night/backfill-words.js";
import { personTextOption } from "../../policy/person-text.js";
import { type RestartOutcome, restartBackfill } from "../../store/backfill.js";
import { openStore, storeLocationFromOptions } from "../../store/db.js";
import { diagnosticText, stderr, stdout } from "../io.js";
import { loginName } from "../login-name.js";
import { saying } from "../store-upgrade.js";

interface BackfillOptions {
  data?: string;
  by?: string;
}

/**
 * `nor backfill restart SOURCE`: a source's backfill (P7: its older pages, a few a night) that
 * ended goes on from the next night: from the page it gave up on (after three nights of answers
 * that were not the page, or ten of no answer), else from the list's first page again. Where a
 * backfill stands is said by `nor site SITE`, `nor status --json` and the console.
 */
export function register(program: Command): void {
  const backfill = program
    .command("backfill")
    .description("A source's reading of its list's older pages (P7): restart one that ended");
  backfill
    .command("restart <source>")
    .description(
      "Read the source's older pages again from the next night: from the page a backfill gave up on, else from the list's first page",
    )
    .option("--data <dir>", "store directory (DIR/nor.db); NOR_DATABASE_URL selects PostgreSQL")
    .option("--by <name>", "who decides, at most 100 characters (default: the login name)")
    .action(async (source: string, opts: BackfillOptions) => {
      // P24: a person's decision, kept with who and when (checked before the store is touched).
      const by = opts.by === undefined ? loginName() : personTextOption(opts.by, "--by", "name");
      const store = await openStore(
        storeLocationFromOptions(opts.data === undefined ? {} : { data: opts.data }),
        saying({ create: false }),
      );
      try {
        report(await restartBackfill(store.db, source, { by, at: systemClock.now() }));
      } finally {
        await store.close();
      }
    });
}

/** What it says: the restart on stdout (exit 0), or why nothing changed (exit 2). */
function report(o: RestartOutcome): void {
  switch (o.kind) {
    case "restarted": {
      const was =
        o.was?.why === "gave-up"
          ? `it had given up${o.was.night ? ` on the night of ${o.was.night}` : ""}${o.was.reason ? ` (${o.was.reason})` : ""}`
          : o.was
            ? `it had ended${o.was.night ? ` on the night of ${o.was.night}` : ""} (${o.was.why})`
            : "it had ended";
      const from = o.from
        ? `goes on from ${o.from}`
        : "starts again from the list's first page (the older pages are read again, a few a night; their records are already kept)";
      const flags =
        o.clearedFlags > 0
          ? `; its backfill-gave-up flag${o.clearedFlags === 1 ? "" : "s"} cleared`
          : "";
      stdout().write(
        diagnosticText(
          `${o.source}: older pages: ${was}; from the next night it ${from}${flags}\n`,
        ),
      );
      process.exitCode = 0;
      return;
    }
    case "unknown-source":
      stderr().write(
        `nor: unknown source "${o.source}" (not a source of the catalog in use; \`nor status\` lists them)\n`,
      );
      break;
    case "retired":
      stderr().write(
        `nor: ${o.source}: retired ${o.at} (no longer in the catalog${o.renamedTo ? `; renamed to ${o.renamedTo}` : ""}), so no night reads it; its older pages are not restarted; nothing changed\n`,
      );
      break;
    case "off":
      stderr().write(`nor: ${o.source}: ${offText(o.asked)}; nothing changed\n`);
      break;
    case "not-started":
      stderr().write(
        `nor: ${o.source}: no night has read its list yet, so its older pages have not begun; nothing changed\n`,
      );
      break;
    case "going-on":
      stderr().write(
        `nor: ${o.source}: its older pages are still read a few a night (${o.pagesRead} so far${o.next ? `, next ${o.next}` : ""}); nothing changed\n`,
      );
      break;
  }
  process.exitCode = 2;
}
