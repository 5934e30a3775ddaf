import type { Command } from "commander";
import { systemClock } from "../../clock.js";
import { UsageError } from "../../errors.js";
import { type BackfillJson, backfillJson } from "../../night/backfill-words.js";
import { parseDuration } from "../../night/duration.js";
import { MAX_OWNER_GAP_MS, MIN_GAP_MS } from "../../policy/constants.js";
import { leaveAlonePathProblem, shortenedPath } from "../../policy/leave-alone-path.js";
import { personTextOption } from "../../policy/person-text.js";
import { noteLine } from "../../policy/shown-text.js";
import { readSite, siteOf } from "../../policy/site.js";
import { formatInZone, SITE_OWNER_ZONE } from "../../policy/zone.js";
import { statusRows } from "../../store/admin.js";
import { backfillsRead } from "../../store/backfill.js";
import { sourcesInUse } from "../../store/catalog-sources.js";
import { type Db, openStore, storeLocationFromOptions } from "../../store/db.js";
import { movedTargets } from "../../store/moved-to.js";
import { sourceCountsBySite } from "../../store/read/console.js";
import {
  clearSiteRules,
  type SiteRule,
  setSiteRule,
  siteRules,
  siteState,
} from "../../store/site-rules.js";
import { diagnosticText, shownStdout, stderr } from "../io.js";
import { loginName } from "../login-name.js";
import { saying } from "../store-upgrade.js";

interface SiteOptions {
  data?: string;
  gap?: string;
  leaveAlone?: string[];
  notRead?: boolean;
  read?: boolean;
  clearGap?: boolean;
  clearLeaveAlone?: string[];
  reason?: string;
  by?: string;
  json?: boolean;
}

/**
 * `nor site`: what a site owner asked for, kept per site with its reason and date: a longer
 * gap, paths left alone (read like a robots.txt Disallow for this checker: its patterns, `*`
 * and a final `$`, as robots.txt reads them; policy/admission.ts), or the whole site not read. Every request honours them from the next one on, in every process.
 */
export function register(program: Command): void {
  program
    .command("site [site]")
    .description(
      "A site owner's requests (a slower pace, paths left alone, not read), kept per site; without options, lists them",
    )
    .option("--data <dir>", "store directory (DIR/nor.db); NOR_DATABASE_URL selects PostgreSQL")
    .option(
      "--gap <duration>",
      `at least this long between requests to the site (never under ${MIN_GAP_MS / 1000} s)`,
    )
    .option(
      "--leave-alone <path...>",
      "paths this matches are never requested, read as in robots.txt: a prefix (/permits/), * any run of characters, a final $ the end (/permits/*/feed, /x/feed.rss$)",
    )
    .option("--not-read", "no request at all to the site; its public pages stay listed (P26)")
    .option("--read", "read the site again (clears --not-read)")
    .option("--clear-gap", "back to the floor or the site's Crawl-delay")
    .option(
      "--clear-leave-alone <path...>",
      "these paths may be read again (as given to --leave-alone)",
    )
    .option(
      "--reason <text>",
      "the owner's words or the e-mail's date, one line of at most 500 characters (required for a change)",
    )
    .option("--by <name>", "who decides, at most 100 characters (default: the login name)")
    .option(
      "--json",
      'list as JSON lines: one a request, then for a site named one `"kind": "state"` line with its no (closedNight, closedReason), the last night it was down (downNight, downReason: a 5xx after its retries, not a no) and hold (heldUntil) when it has one',
    )
    .action(async (given: string | undefined, opts: SiteOptions) => {
      const changes =
        (opts.gap !== undefined ? 1 : 0) +
        (opts.leaveAlone?.length ?? 0) +
        (opts.notRead ? 1 : 0) +
        (opts.read ? 1 : 0) +
        (opts.clearGap ? 1 : 0) +
        (opts.clearLeaveAlone?.length ?? 0);
      // Every option is checked before the store is touched.
      if (opts.read && opts.notRead) throw new UsageError("give --read or --not-read, not both");
      if (opts.gap !== undefined && opts.clearGap)
        throw new UsageError("give --gap or --clear-gap, not both");
      const both = (opts.leaveAlone ?? []).filter((p) => (opts.clearLeaveAlone ?? []).includes(p));
      if (both.length > 0)
        throw new UsageError(`give --leave-alone or --clear-leave-alone for ${both[0]}, not both`);
      if (changes > 0 && given === undefined) throw new UsageError("name the site to change");
      const site = given === undefined ? undefined : siteArg(given);
      const setting = opts.gap !== undefined || (opts.leaveAlone?.length ?? 0) > 0 || opts.notRead;
      if (setting && !opts.reason?.trim())
        throw new UsageError('a site owner\'s request needs --reason "…" (their words, the date)');
      // A person's one line of text: shown again by `nor site`, the console, the public pages.
      const reason =
        opts.reason === undefined ? "" : personTextOption(opts.reason, "--reason", "reason");
      const by = opts.by === undefined ? loginName() : personTextOption(opts.by, "--by", "name");
      const gapMs =
        opts.gap === undefined ? undefined : parseDuration(opts.gap, "--gap", MIN_GAP_MS);
      if (gapMs !== undefined && gapMs < MIN_GAP_MS)
        throw new UsageError(`--gap: ${opts.gap} is under the ${MIN_GAP_MS / 1000} s floor (P10)`);
      if (gapMs !== undefined && gapMs > MAX_OWNER_GAP_MS)
        throw new UsageError(
          `--gap: ${opts.gap} is longer than a night (at most 24h); to keep the checker off the site, use --not-read`,
        );
      // As the console's form says it: a path as robots.txt writes one (spaces are %20 there).
      for (const p of opts.leaveAlone ?? []) {
        const problem = leaveAlonePathProblem(p);
        if (problem !== undefined)
          throw new UsageError(`--leave-alone: "${shortenedPath(p)}" ${problem}`);
      }
      // One stored before that rule (with a space) can still be cleared as it was written.
      for (const p of opts.clearLeaveAlone ?? [])
        if (!p.startsWith("/"))
          throw new UsageError(`--clear-leave-alone: "${p}" must start with /`);
      const store = await openStore(
        storeLocationFromOptions(opts.data === undefined ? {} : { data: opts.data }),
        // A mistyped --data is refused (exit 2), never an empty store made to hold one rule.
        // Listing only reads: a store an earlier version made is refused, never upgraded by a
        // look (db.ts readsOnly); a change writes, and upgrades it first.
        saying({ create: false, readsOnly: changes === 0 }),
      );
      try {
        const now = systemClock.now();
        const out: string[] = [];
        // What a clear would find nothing to clear for. Among other changes it refuses the
        // whole command before anything is written; alone, the clears run (they change
        // nothing) and are refused after, as `nor mark` refuses a mark that is already so.
        if (site !== undefined && changes > 0) {
          const nothing = nothingToClear(await siteRules(store.db, site), opts);
          if (nothing.length > 0 && nothing.length < changes) {
            refuseNothingToClear(site, nothing, false);
            return;
          }
        }
        const notCleared: string[] = [];
        if (site !== undefined) {
          // A request given again as it stands changes nothing, and keeps its first date.
          const said = (set: Awaited<ReturnType<typeof setSiteRule>>, what: string) =>
            out.push(
              set.kind === "already"
                ? diagnosticText(
                    `${site}: already ${what} (since ${sinceDay(set.rule.at)}, by ${set.rule.by}); nothing changed`,
                  )
                : `${site}: ${what}`,
            );
          if (gapMs !== undefined) {
            const set = await setSiteRule(store.db, {
              site,
              kind: "gap",
              value: String(gapMs),
              reason,
              at: now,
              by,
            });
            said(set, `at least ${gapMs / 1000} s between requests`);
          }
          for (const prefix of opts.leaveAlone ?? []) {
            const set = await setSiteRule(store.db, {
              site,
              kind: "leave-alone",
              value: prefix,
              reason,
              at: now,
              by,
            });
            said(set, `${prefix} left alone`);
          }
          if (opts.notRead) {
            const set = await setSiteRule(store.db, {
              site,
              kind: "not-read",
              reason,
              at: now,
              by,
            });
            said(set, "not read");
          }
          if (opts.read) {
            const n = await clearSiteRules(store.db, { site, kind: "not-read", at: now, by });
            if (n > 0) out.push(`${site}: read again`);
            else notCleared.push(NOT_MARKED_NOT_READ);
          }
          if (opts.clearGap) {
            const n = await clearSiteRules(store.db, { site, kind: "gap", at: now, by });
            if (n > 0) out.push(`${site}: gap back to the floor`);
            else notCleared.push(NO_GAP);
          }
          for (const prefix of opts.clearLeaveAlone ?? []) {
            const n = await clearSiteRules(store.db, {
              site,
              kind: "leave-alone",
              value: prefix,
              at: now,
              by,
            });
            if (n > 0) out.push(diagnosticText(`${site}: ${prefix} may be read again`));
            else notCleared.push(notLeftAlone(prefix));
          }
          // Kept (an owner may write first), but said: a mistyped site would otherwise pass unseen.
          if (setting && !(await hasSourceOn(store.db, site)))
            stderr().write(
              `nor site: no source in the store is on ${site}: is it mistyped? The request is kept all the same, as an owner may write before the catalog lists their site (\`nor status\` lists the sources)\n`,
            );
        }
        if (changes === 0) {
          const rules = await siteRules(store.db, site);
          // Tonight's state as the journal holds it (a no, a hold), for one site: the text and
          // the JSON say the same.
          const st = site === undefined ? undefined : await siteState(store.db, site);
          const saidNo = st?.closedNight !== undefined ? st : undefined;
          // Down a night (a 5xx after a request's retries): said apart from a no.
          const wasDown = st?.downNight !== undefined ? st : undefined;
          // P7: where each of the site's sources stands with its older pages (a backfill ended,
          // given up, or going on), after the owner's requests.
          const backfills = site === undefined ? [] : await backfillsOn(store.db, site);
          const heldUntil =
            st?.notBefore !== undefined && st.notBefore > now ? st.notBefore : undefined;
          if (opts.json) {
            // Times in ISO 8601, as the state and backfill lines say theirs.
            for (const r of rules)
              out.push(JSON.stringify({ ...r, at: new Date(r.at).toISOString() }));
            // One more line, after the requests, when there is a state to say: `kind: "state"`.
            if (
              site !== undefined &&
              (saidNo !== undefined || wasDown !== undefined || heldUntil !== undefined)
            )
              out.push(
                JSON.stringify({
                  site,
                  kind: "state",
                  ...(saidNo !== undefined
                    ? { closedNight: saidNo.closedNight, closedReason: saidNo.closedReason ?? "" }
                    : {}),
                  ...(wasDown !== undefined
                    ? { downNight: wasDown.downNight, downReason: wasDown.downReason ?? "" }
                    : {}),
                  ...(heldUntil !== undefined
                    ? { heldUntil: new Date(heldUntil).toISOString() }
                    : {}),
                }),
              );
            for (const b of backfills)
              out.push(JSON.stringify({ site, kind: "backfill", source: b.source, ...b.json }));
          } else {
            if (rules.length === 0)
              out.push(site ? `${site}: no owner's requests` : "no owner's requests");
            for (const r of rules) out.push(describe(r));
            if (saidNo !== undefined)
              out.push(
                `${site}: said no on the night of ${saidNo.closedNight}: ${noteLine(saidNo.closedReason ?? "")}`,
              );
            if (wasDown !== undefined)
              out.push(
                `${site}: down on the night of ${wasDown.downNight} (not a no): ${noteLine(wasDown.downReason ?? "")}`,
              );
            if (heldUntil !== undefined)
              out.push(
                `${site}: held until ${new Date(heldUntil).toISOString()} (a Retry-After, or the wait before a retry)`,
              );
            for (const b of backfills)
              out.push(diagnosticText(`${site}: source ${b.source}: ${b.json.text}`));
          }
        }
        // A no's reason may carry a site's words: written as a site's text is (shownStdout).
        if (out.length > 0 || notCleared.length === 0) shownStdout().write(`${out.join("\n")}\n`);
        process.exitCode = 0;
        if (site !== undefined && notCleared.length > 0)
          refuseNothingToClear(site, notCleared, out.length > 0);
      } finally {
        await store.close();
      }
    });
}

const NOT_MARKED_NOT_READ = "it is not marked not read";
const NO_GAP = "it has no gap of its own";
const notLeftAlone = (prefix: string) => `${prefix} is not left alone`;

/**
 * The clears of this command that would find nothing in force, in the order they are made:
 * after the command's own requests (a gap set and cleared by one command is cleared), each
 * path once (the second of `--clear-leave-alone /a /a` finds nothing).
 */
function nothingToClear(rules: readonly SiteRule[], opts: SiteOptions): string[] {
  const inForce = new Set(
    rules.map((r) => (r.kind === "leave-alone" ? `${r.kind} ${r.value}` : r.kind)),
  );
  if (opts.gap !== undefined) inForce.add("gap");
  for (const prefix of opts.leaveAlone ?? []) inForce.add(`leave-alone ${prefix}`);
  if (opts.notRead) inForce.add("not-read");
  const nothing: string[] = [];
  const clear = (key: string, said: string) => {
    if (!inForce.delete(key)) nothing.push(said);
  };
  if (opts.read) clear("not-read", NOT_MARKED_NOT_READ);
  if (opts.clearGap) clear("gap", NO_GAP);
  for (const prefix of opts.clearLeaveAlone ?? [])
    clear(`leave-alone ${prefix}`, notLeftAlone(prefix));
  return nothing;
}

/**
 * A clear that finds nothing to clear is refused (exit 2), as `nor mark` refuses a mark that is
 * already so and the console's Clear does (409): the person meant something that is not so
 * (a mistyped path, another site). `recorded`: the command's other changes were made (a
 * request cleared by another process meanwhile); otherwise nothing was.
 */
function refuseNothingToClear(site: string, nothing: readonly string[], recorded: boolean): void {
  stderr().write(
    `nor: ${site}: nothing to clear (${nothing.join("; ")}); ${recorded ? "the rest was recorded" : "nothing was recorded"} (\`nor site ${site}\` lists what is in force)\n`,
  );
  process.exitCode = 2;
}

/**
 * Whether a source `nor status` lists is on this site: one of a night's catalog, or one
 * imported and in use that no night has read yet. A request for a site none is on is kept, but
 * may be a typo.
 */
async function hasSourceOn(db: Db, site: string): Promise<boolean> {
  if (((await sourceCountsBySite(db, [site])).get(site) ?? 0) > 0) return true;
  const on = (url: string) => {
    try {
      return siteOf(url) === site;
    } catch {
      // Not a URL a night could ask.
      return false;
    }
  };
  if (((await sourcesInUse(db)) ?? []).some((s) => on(s.url))) return true;
  // P11: a catalog URL that moved permanently is asked where it moved, on this site, every night.
  return (await movedTargets(db)).some(on);
}

/**
 * P7: the backfill of each source on `site` that has begun one (by the address it is listed
 * under), in id order: its state in words and as JSON (night/backfill-words.ts).
 */
async function backfillsOn(
  db: Db,
  site: string,
): Promise<{ source: string; json: BackfillJson }[]> {
  const on = (await statusRows(db)).filter((r) => {
    try {
      return siteOf(r.url) === site;
    } catch {
      return false;
    }
  });
  // P7: a day's overflow carried over, said with the backfill it is kept with.
  const { states, overflows: pending } = await backfillsRead(
    db,
    on.map((r) => r.id),
  );
  return on
    .filter((r) => states.has(r.id))
    .map((r) => ({
      source: r.id,
      json: backfillJson(states.get(r.id), r.id, r.retiredAt, pending.get(r.id)),
    }));
}

function describe(r: SiteRule): string {
  const what =
    r.kind === "gap"
      ? `at least ${Number(r.value) / 1000} s between requests`
      : r.kind === "leave-alone"
        ? `${r.value} left alone`
        : "not read";
  // The New York calendar date, as the console's New York time and the request log's reason say it.
  // Escaped as stderr is (io.ts): a path stored before such paths were refused may hold an
  // escape sequence the terminal would obey.
  return diagnosticText(`${r.site}: ${what} (since ${sinceDay(r.at)}, by ${r.by}: ${r.reason})`);
}

/** The New York calendar date a request is honoured since. */
function sinceDay(at: number): string {
  return formatInZone(at, SITE_OWNER_ZONE).slice(0, 10);
}

/** A host, a registrable domain or a URL: the site it belongs to (P9), or why it names none. */
function siteArg(text: string): string {
  const r = readSite(text);
  if (!r.ok) throw new UsageError(`"${text}" is not a site, host or URL: ${r.reason}`);
  return r.site;
}
