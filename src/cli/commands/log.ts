import type { Command } from "commander";
import { UsageError } from "../../errors.js";
import { openStore, storeLocationFromOptions } from "../../store/db.js";
import {
  type RequestLogCursor,
  type RequestLogFilter,
  SqlRequestLog,
} from "../../store/request-log.js";
import { toJson, toTable } from "../../store/request-log-view.js";
import { sourceKnown } from "../../store/source-known.js";
import { parseTimeWindow, TIME_ARG_HELP } from "../../store/time-args.js";
import { shownStdout, stderr, stdout } from "../io.js";
import { saying } from "../store-upgrade.js";

interface LogOptions {
  data?: string;
  since?: string;
  until?: string;
  site?: string;
  urlContains?: string;
  source?: string;
  limit?: string;
  jsonl?: boolean;
}

/**
 * `nor log`: P27's promise to site owners, "given a time and an address, the operator finds
 * it in seconds". Reads only: a missing store is an error, never created by looking.
 */
export function register(program: Command): void {
  program
    .command("log")
    .description("Show the request log: every attempt the checker made (P27)")
    .option("--data <dir>", "store directory (DIR/nor.db); NOR_DATABASE_URL selects PostgreSQL")
    .option("--since <time>", "attempts that started at or after this time")
    .option("--until <time>", "attempts that started up to the end of this time")
    .option("--site <site>", "only this site: example.gov, www.example.gov or a URL on it")
    .option(
      "--url-contains <text>",
      "only URLs containing this text (ASCII case-insensitive; typed as a browser shows it, /public notices/ or /café/, it finds the address sent percent-encoded too)",
    )
    .option("--source <id>", "only this catalog source")
    .option(
      "--limit <n>",
      "at most this many attempts, earliest first (said on stderr when more match)",
    )
    .option("--jsonl", "one JSON object per attempt (times in UTC)")
    .addHelpText(
      "after",
      `\n${TIME_ARG_HELP}\n\nA site owner asks "what did you request from us at 03:12 on Nov 5?":\n` +
        '  nor log --since "2026-11-05 03:11" --until "2026-11-05 03:13" --site example.gov\n',
    )
    .action(async (opts: LogOptions) => {
      await runLog(opts);
    });
}

/** Attempts read a page at a time (`nor log` prints them as each page comes). */
const LOG_PAGE = 5000;

async function runLog(opts: LogOptions): Promise<void> {
  // Check every argument before touching the store, so a typo costs nothing.
  const filter: RequestLogFilter = parseTimeWindow(pick(opts));
  if (opts.site !== undefined) filter.site = await siteArg(opts.site);
  if (opts.urlContains !== undefined) filter.urlContains = opts.urlContains;
  if (opts.source !== undefined) filter.source = opts.source;
  if (opts.limit !== undefined) {
    const n = Number(opts.limit);
    if (!Number.isInteger(n) || n < 1) {
      throw new UsageError(`--limit: "${opts.limit}" is not a whole number of at least 1`);
    }
    filter.limit = n;
  }
  const loc = storeLocationFromOptions(opts.data === undefined ? {} : { data: opts.data });
  const store = await openStore(loc, saying({ create: false, readsOnly: true }));
  try {
    // A page at a time (keyset, as the console's download reads it): a log of millions of
    // attempts is printed in the memory of one page, never held whole.
    const log = new SqlRequestLog(store.db);
    const { limit, ...rest } = filter;
    let left = limit;
    let after: RequestLogCursor | undefined;
    let first = true;
    /** Attempts written, and where the last page ended (for --limit's "more match"). */
    let shown = 0;
    let lastNext: RequestLogCursor | undefined;
    const paged: { widths?: number[]; header: boolean } = { header: true };
    for (;;) {
      const size = left === undefined ? LOG_PAGE : Math.min(LOG_PAGE, left);
      if (size <= 0) break;
      const page = await log.queryPage(rest, size, after);
      const entries = page.entries;
      if (first && entries.length === 0) {
        // A mistyped source id finds nothing, which would read as "nothing was asked": said.
        if (opts.source !== undefined && !(await sourceKnown(store.db, opts.source)))
          throw new UsageError(
            `--source: this store has no source "${opts.source}" (\`nor status\` lists them)`,
          );
        if (!opts.jsonl) stdout().write("no attempts match\n");
        // A site the log never asked at all (a typo, or another program under the checker's
        // name in the owner's log) would read as "nothing then": said, as nor site says it.
        if (
          rest.site !== undefined &&
          (await log.queryPage({ site: rest.site }, 1)).entries.length === 0
        )
          stderr().write(
            `nor log: the log holds no request to ${rest.site} at any time: is the site mistyped? (\`nor status\` lists the sources)\n`,
          );
        break;
      }
      // The first page is the whole answer when it is short of a page, or --limit ends there.
      let whole =
        first &&
        (entries.length < size ||
          page.next === undefined ||
          (left !== undefined && left <= entries.length));
      // A full first page may still be all there is: one row past it says (the table's layout).
      if (first && !whole && !opts.jsonl && page.next !== undefined)
        whole = (await log.queryPage(rest, 1, page.next)).entries.length === 0;
      if (entries.length === 0) break;
      shown += entries.length;
      lastNext = page.next;
      // A site's words in a failure or a no's marker: escaped by writeLines (shownStdout).
      if (opts.jsonl) writeLines(entries.map((e) => JSON.stringify(toJson(e))));
      // One page in all: laid out as ever, to its own widths, evidence only if some row has it.
      else if (whole) {
        writeLines(toTable(entries));
        break;
      } else {
        writeLines(toTable(entries, paged));
        paged.header = false;
      }
      first = false;
      if (left !== undefined) left -= entries.length;
      if (entries.length < size || page.next === undefined) break;
      after = page.next;
    }
    // Cut at --limit with more to come: said, so the answer never reads as all that was asked
    // (the console's log search notes its 500 alike). On stderr: --jsonl's lines stay JSON.
    if (
      limit !== undefined &&
      shown >= limit &&
      lastNext !== undefined &&
      (await log.queryPage(rest, 1, lastNext)).entries.length > 0
    )
      stderr().write(
        `nor log: --limit ${limit}: more attempts match than the ${limit} shown (the earliest); raise --limit, or narrow --since and --until\n`,
      );
  } finally {
    await store.close();
  }
  process.exitCode = 0;
}

/**
 * The site (P9: registrable domain) a host or URL belongs to, as the log stores it, so a site
 * owner's `www.example.gov` or pasted URL finds the attempts logged under `example.gov`. The
 * public suffix list (tldts) is loaded only then: a `nor log` without --site never pays for it.
 */
async function siteArg(text: string): Promise<string> {
  const { readSite } = await import("../../policy/site.js");
  const r = readSite(text);
  if (!r.ok) throw new UsageError(`--site: "${text}" is not a site, host or URL: ${r.reason}`);
  return r.site;
}

function pick(opts: LogOptions): { since?: string; until?: string } {
  const out: { since?: string; until?: string } = {};
  if (opts.since !== undefined) out.since = opts.since;
  if (opts.until !== undefined) out.until = opts.until;
  return out;
}

/**
 * In chunks: one string for 100,000 lines would be needlessly large. A row holds what sites
 * sent (a no's evidence, a failure's words): every character a terminal would obey is written
 * as \uXXXX (shownStdout), in the table and in --jsonl alike.
 */
function writeLines(lines: readonly string[]): void {
  for (let i = 0; i < lines.length; i += 1000) {
    shownStdout().write(`${lines.slice(i, i + 1000).join("\n")}\n`);
  }
}
