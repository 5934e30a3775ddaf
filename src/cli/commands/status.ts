import type { Command } from "commander";
import { UsageError } from "../../errors.js";
import { backfillJson } from "../../night/backfill-words.js";
import { sayLeftAlone } from "../../night/left-alone.js";
import { viaText } from "../../night/way-choice.js";
import { noteLine } from "../../policy/shown-text.js";
import { type NightHistoryRow, readingText, recentNights, statusRows } from "../../store/admin.js";
import { backfillStates, backfillsRead } from "../../store/backfill.js";
import { openStore, storeLocationFromOptions } from "../../store/db.js";
import { countOf } from "../count-of.js";
import { shownStdout as stdout } from "../io.js";
import { saying } from "../store-upgrade.js";

interface StatusOptions {
  data?: string;
  json?: boolean;
  withNights?: boolean;
}

/** The last nights `nor status` shows after its sources, in the table and in JSON alike. */
export const STATUS_NIGHTS = 3;

/**
 * A night as `nor status --json --with-nights` prints it: the facts of its line in the table
 * (nightLine), under names kept stable for scripts (docs/operations.md).
 */
export interface StatusNightJson {
  night: string;
  /** `unfinished`: under way, or stopped and resumable until its deadline (`nor night`). */
  state: "unfinished" | "finished" | "closed-incomplete";
  startedAt: string;
  deadlineAt: string;
  /** When it finished, or was closed incomplete; null while unfinished. */
  finishedAt: string | null;
  /** Sources with an outcome that night. */
  checked: number;
  /** Of them, not reached before the deadline (P13): they go first the next night. */
  unreached: number;
  /** Of them, asked and answered but cut short by the deadline (P13, P15): they go first too. */
  cutShort: number;
  /**
   * How it ran without its catalog files, and why (unreadable, invalid: the sources the store
   * last imported; an import refused: only those in use the files list unchanged; `nor night
   * --or-stored-catalog`, as `nor start` runs it); null when it ran its files.
   */
  catalogNote: string | null;
}

/** One night of `--json --with-nights`, named field by field (nothing else of the row leaks). */
export function nightJson(n: NightHistoryRow): StatusNightJson {
  return {
    night: n.night,
    state:
      n.finishedAt === null ? "unfinished" : n.closedIncomplete ? "closed-incomplete" : "finished",
    startedAt: n.startedAt,
    deadlineAt: n.deadlineAt,
    finishedAt: n.finishedAt,
    checked: n.checked,
    unreached: n.unreached,
    cutShort: n.cutShort,
    catalogNote: n.catalogNote ?? null,
  };
}

/** `nor status`: per source, whether it is read, its last night and what is known (P23, P26). */
export function register(program: Command): void {
  program
    .command("status")
    .description("Per source: reading, last night's outcome, records known, new last night, flags")
    .option("--data <dir>", "store directory (DIR/nor.db); NOR_DATABASE_URL selects PostgreSQL")
    .option("--json", "JSON output: an array of the sources")
    .option(
      "--with-nights",
      `with --json: an object, {"sources": [...], "nights": [...]}, the last ${STATUS_NIGHTS} nights newest first, as the table ends with them`,
    )
    .action(async (opts: StatusOptions) => {
      // The table always ends with the nights; asked for without --json, it is a mistake.
      if (opts.withNights && !opts.json)
        throw new UsageError(
          "--with-nights goes with --json (the table always ends with the last nights)",
        );
      const store = await openStore(
        storeLocationFromOptions(opts.data === undefined ? {} : { data: opts.data }),
        saying({ create: false, readsOnly: true }),
      );
      try {
        const rows = await sayLeftAlone(store.db, await statusRows(store.db), Date.now());
        if (opts.json) {
          // P7: each source's older pages, as `nor site SITE --json` says them.
          const { states, overflows: pending } = await backfillsRead(store.db);
          const sources = rows.map((r) => ({
            ...r,
            backfill: backfillJson(states.get(r.id), r.id, r.retiredAt, pending.get(r.id)),
          }));
          // The sources alone stay a bare array, as scripts have read it; the nights come
          // with them, in one object, when asked for.
          const out = opts.withNights
            ? {
                sources,
                nights: (await recentNights(store.db, STATUS_NIGHTS)).map(nightJson),
              }
            : sources;
          stdout().write(`${JSON.stringify(out, null, 2)}\n`);
          return;
        }
        stdout().write(
          "source\tgovernment\turl\treading\tlast night\toutcome\tvia\trecords\tnew\tflags\n",
        );
        for (const r of rows) {
          const reading = readingText(r);
          const outcome = r.lastOutcome
            ? `${r.lastOutcome}${r.lastReason ? ` (${noteLine(r.lastReason)})` : ""}`
            : "-";
          // P4: which way in the last night used, and why the better ones were passed over.
          // A way passed over says why in the site's own words (a Content-Encoding it named):
          // one line, no tab to break the columns, as the outcome's reason.
          const via = r.lastOutcome
            ? noteLine(
                viaText(r.way ? { used: r.way, skipped: r.skipped } : { skipped: r.skipped }),
              )
            : "-";
          stdout().write(
            `${r.id}\t${r.government}\t${r.url}\t${reading}\t${r.lastNight ?? "-"}\t${outcome}\t${via}\t${r.recordsKnown}\t${r.newLastNight}\t${r.flags.join(",") || "-"}\n`,
          );
        }
        const nights = await recentNights(store.db, STATUS_NIGHTS);
        if (nights.length > 0) stdout().write("\n");
        const now = Date.now();
        for (const n of nights) stdout().write(`${nightLine(n, now)}\n`);
        // P7: the backfills that gave up, for a person (the rest: `nor site SITE`, --json).
        const states = await backfillStates(store.db);
        const gaveUp = rows.filter((r) => states.get(r.id)?.ended?.why === "gave-up");
        if (gaveUp.length > 0) stdout().write("\n");
        // One line (the reason may hold the site's words); never cut: it ends with the command.
        for (const r of gaveUp)
          stdout().write(
            `${r.id}: ${backfillJson(states.get(r.id), r.id, r.retiredAt).text.replace(/[\r\n\u2028\u2029]+/g, " ")}\n`,
          );
      } finally {
        await store.close();
      }
    });
}

/**
 * One line per recent night: under way, finished, or closed incomplete (P13). An unfinished
 * night is said resumable until its time is over (`until`, the rule `nor night` and `nor start`
 * keep), and, past it, to be closed by the next `nor night`.
 */
export function nightLine(n: NightHistoryRow, now: number = Date.now()): string {
  const line = nightRunLine(n, now);
  return n.catalogNote === undefined ? line : `${line}; ${oneLine(n.catalogNote)}`;
}

/**
 * A night's catalog note as one line of at most CATALOG_NOTE_SHOWN characters, its own lines
 * joined (`…: catalog has 1 problem: a.yaml:3:5: …`); `nor status --json --with-nights` gives it
 * as the night kept it (at most admin.ts CATALOG_NOTE_MAX characters).
 */
export function oneLine(note: string): string {
  const joined = note
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== "")
    .join("; ")
    .replace(/:; /g, ": ");
  return joined.length <= CATALOG_NOTE_SHOWN
    ? joined
    : `${joined.slice(0, CATALOG_NOTE_SHOWN - 1)}…`;
}

const CATALOG_NOTE_SHOWN = 300;

function nightRunLine(n: NightHistoryRow, now: number): string {
  // Sources with an outcome tonight (the JSON's `checked`), the unreached among them said
  // apart: they have an outcome but were not asked.
  // Not asked because their site was down that night (a 5xx after its retries): not a no, and
  // not the deadline's either.
  const down = Math.min(n.down ?? 0, n.unreached - n.held);
  const late = n.unreached - n.held - down;
  const checked =
    `${countOf(n.checked, "source")} with an outcome` +
    (late > 0 ? `, ${late} of them not reached before the deadline` : "") +
    (n.cutShort > 0
      ? `, ${n.cutShort} ${late > 0 ? "" : "of them "}cut short (asked and answered; a retry or next request would have started after the deadline, or, a recheck, the site its redirect leads to, or its own before its retry, was down or asked to wait)`
      : "") +
    // P13: held past the night by the site's own wait or its owner's pace, not by its time.
    (n.held > 0
      ? `, ${n.held} ${late > 0 || n.cutShort > 0 ? "" : "of them "}not asked: their site's wait or its owner's pace ends after the night`
      : "") +
    (down > 0
      ? `, ${down} ${late > 0 || n.cutShort > 0 || n.held > 0 ? "" : "of them "}not asked: their site was down (a 5xx after its retries), not a no`
      : "");
  if (n.finishedAt === null) {
    const head = `night ${n.night}: under way or stopped (deadline ${n.deadlineAt}); ${checked}`;
    const until = n.until === undefined ? Number.NaN : Date.parse(n.until);
    const closes = "the next `nor night` closes it as incomplete (unless a process runs it now)";
    if (!Number.isNaN(until) && now >= until)
      return n.until === n.deadlineAt
        ? `${head}; its time is over: ${closes}`
        : `${head}; its time ended at ${n.until}, when a night of a later date began: ${closes}`;
    const to = Number.isNaN(until) || n.until === n.deadlineAt ? "then" : n.until;
    // Asked for by a past date: resumed by its name only; a plain `nor night` begins tonight's.
    return n.pastDate
      ? `${head}; asked for by a past date: \`nor night --night ${n.night}\` resumes it until ${to}, and a plain \`nor night\` closes it as incomplete and begins tonight's`
      : `${head}; \`nor night\` resumes it until ${to}`;
  }
  if (n.closedIncomplete)
    return `night ${n.night}: closed incomplete at ${n.finishedAt}: interrupted and not resumed before its deadline or the next night; ${checked}; sources not reached go first next night`;
  // P25: a recheck its site's being down cut short owes nothing: not asked next night at all.
  const first =
    n.unreached + n.cutShort - (n.cutNotByDeadline ?? 0) > 0 ? " (they go first next night)" : "";
  return `night ${n.night}: finished ${n.finishedAt} (deadline ${n.deadlineAt}); ${checked}${first}`;
}
