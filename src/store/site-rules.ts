/**
 * What site owners asked for by e-mail, kept per site with its reason and date (the public page
 * invites them to ask for a slower pace, some pages left alone, or the whole site left alone).
 * Every request reads these at the moment it is admitted (policy/admission), so a rule set
 * while a night runs holds from the next request on, in every process.
 */
import { normalisePattern } from "../policy/robots/match.js";
import type { Db } from "./db.js";
import { dialectOf } from "./dialect-of.js";
import { fromIso, toIso } from "./iso-time.js";
import { sql } from "./kysely.js";
import { writeTxn } from "./write-txn.js";

export type SiteRuleKind = "gap" | "leave-alone" | "not-read";

export interface SiteRule {
  id: string;
  site: string;
  kind: SiteRuleKind;
  /** gap: milliseconds; leave-alone: the path prefix. */
  value?: string;
  reason: string;
  at: number;
  by: string;
}

export interface SiteState {
  site: string;
  lastEndAt?: number;
  closedNight?: string;
  closedReason?: string;
  /** The night the site was down (a 5xx after a request's retries), and why: not a no. */
  downNight?: string;
  downReason?: string;
  notBefore?: number;
}

/** The advisory lock class of "a site's rules are being set" ("nors"), keyed by the site. */
const SITE_RULES_LOCK_CLASS = 0x6e6f7273;

/**
 * Sets one rule. A site has at most one gap and one not-read in force (a new one replaces the
 * old, kept as cleared); leave-alone prefixes add up. The outcome says what changed: a request
 * given again as it stands (the same value, the same reason: re-typed, or one e-mail answered
 * twice) is `already`, and keeps the date it has been honoured since, which is what the operator
 * tells the site owner.
 */
export async function setSiteRule(
  db: Db,
  r: Omit<SiteRule, "id">,
): Promise<
  { kind: "set"; rule: SiteRule; replaced: number } | { kind: "already"; rule: SiteRule }
> {
  return writeTxn(db, async (tx) => {
    // PostgreSQL: two processes setting a rule for one site at once (two operators answering
    // one e-mail) take turns, so the second reads what the first wrote: the same request is
    // `already`, and a site never has two gaps or two not-reads in force. SQLite's BEGIN
    // IMMEDIATE serialises them already.
    if (dialectOf(db) === "postgres")
      await sql`select pg_advisory_xact_lock(${SITE_RULES_LOCK_CLASS}, hashtext(${r.site}))`.execute(
        tx,
      );
    const inForce = tx
      .selectFrom("site_rules")
      .selectAll()
      .where("site", "=", r.site)
      .where("kind", "=", r.kind)
      .where("cleared_at", "is", null);
    // A path is compared as admission reads it (robots.txt's percent-encoded normal form):
    // `/bids–rfps/` given again as `/bids%E2%80%93rfps/` is the same request.
    const sameValue = (v: string | null): boolean =>
      r.kind === "leave-alone"
        ? v !== null && normalisePattern(v) === normalisePattern(r.value ?? "/")
        : (v ?? undefined) === r.value;
    const same = (await inForce.execute()).find((x) => sameValue(x.value) && x.reason === r.reason);
    if (same) return { kind: "already", rule: ruleOfRow(same) };
    let q = tx
      .updateTable("site_rules")
      .set({ cleared_at: toIso(r.at), cleared_by: r.by })
      .where("site", "=", r.site)
      .where("kind", "=", r.kind)
      .where("cleared_at", "is", null);
    if (r.kind === "leave-alone") q = q.where("value", "=", r.value ?? "/");
    const replaced = Number((await q.executeTakeFirst()).numUpdatedRows);
    // Unique even for two prefixes set in the same millisecond, or one set again at once.
    const earlier = await tx
      .selectFrom("site_rules")
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .where("site", "=", r.site)
      .executeTakeFirst();
    const id = `${r.site}:${r.kind}:${r.at}:${Number(earlier?.n ?? 0) + 1}`;
    await tx
      .insertInto("site_rules")
      .values({
        id,
        site: r.site,
        kind: r.kind,
        value: r.value ?? null,
        reason: r.reason,
        at: toIso(r.at),
        by: r.by,
        cleared_at: null,
        cleared_by: null,
      })
      .execute();
    return { kind: "set", rule: { ...r, id }, replaced };
  });
}

/** Clears the rules of a kind (a leave-alone: that prefix only); says how many were in force. */
export async function clearSiteRules(
  db: Db,
  c: { site: string; kind: SiteRuleKind; value?: string; at: number; by: string },
): Promise<number> {
  let q = db
    .updateTable("site_rules")
    .set({ cleared_at: toIso(c.at), cleared_by: c.by })
    .where("site", "=", c.site)
    .where("kind", "=", c.kind)
    .where("cleared_at", "is", null);
  if (c.value !== undefined) q = q.where("value", "=", c.value);
  return Number((await q.executeTakeFirst()).numUpdatedRows);
}

/** The rules in force, for one site or every site, oldest first. */
export async function siteRules(db: Db, site?: string): Promise<SiteRule[]> {
  let q = db.selectFrom("site_rules").selectAll().where("cleared_at", "is", null);
  if (site !== undefined) q = q.where("site", "=", site);
  const rows = await q.orderBy("site").orderBy("at").execute();
  return rows.map(ruleOfRow);
}

function ruleOfRow(r: {
  id: string;
  site: string;
  kind: SiteRuleKind;
  value: string | null;
  reason: string;
  at: string;
  by: string;
}): SiteRule {
  return {
    id: r.id,
    site: r.site,
    kind: r.kind,
    ...(r.value !== null ? { value: r.value } : {}),
    reason: r.reason,
    at: fromIso(r.at, `site_rules ${r.id}`),
    by: r.by,
  };
}

/** What the journal keeps about a site: its last end, a no tonight, a Retry-After hold. */
export async function siteState(db: Db, site: string): Promise<SiteState | undefined> {
  const r = await db
    .selectFrom("site_state")
    .selectAll()
    .where("site", "=", site)
    .executeTakeFirst();
  if (!r) return undefined;
  const where = `site_state ${site}`;
  return {
    site,
    ...(r.last_end_at ? { lastEndAt: fromIso(r.last_end_at, where) } : {}),
    ...(r.closed_night ? { closedNight: r.closed_night } : {}),
    ...(r.closed_reason ? { closedReason: r.closed_reason } : {}),
    ...(r.down_night ? { downNight: r.down_night } : {}),
    ...(r.down_reason ? { downReason: r.down_reason } : {}),
    ...(r.not_before ? { notBefore: fromIso(r.not_before, where) } : {}),
  };
}

/**
 * The sites whose journal state the operator should see now: closed on `night` (P21), down on
 * `night` (a 5xx after a request's retries), or held by a Retry-After past `now` (RFC 9110
 * §10.2.3).
 */
export async function heldSites(db: Db, night: string, now: number): Promise<SiteState[]> {
  const rows = await db
    .selectFrom("site_state")
    .select("site")
    .where((eb) =>
      eb.or([
        eb("closed_night", "=", night),
        eb("down_night", "=", night),
        eb("not_before", ">", toIso(now)),
      ]),
    )
    .orderBy("site")
    .execute();
  const out: SiteState[] = [];
  for (const r of rows) {
    const st = await siteState(db, r.site);
    if (st) out.push(st);
  }
  return out;
}

/**
 * The most sites named in the query; more (the downloads and `nor status` ask of every page in
 * use: a fleet's catalog has tens of thousands of sites, over SQLite's 32,766 variables and
 * PostgreSQL's 65,535 parameters a statement) read every request in force instead, a person
 * having written each, and keep those of the sites asked about.
 */
const SITES_NAMED = 500;

/** The sites whose owner asked not to be read, with that request (P26: the pages stay listed). */
export async function notReadSites(
  db: Db,
  sites: readonly string[],
): Promise<Map<string, SiteRule>> {
  const out = new Map<string, SiteRule>();
  if (sites.length === 0) return out;
  const asked = new Set(sites);
  let q = db
    .selectFrom("site_rules")
    .selectAll()
    .where("kind", "=", "not-read")
    .where("cleared_at", "is", null);
  if (asked.size <= SITES_NAMED) q = q.where("site", "in", [...asked]);
  const rows = await q.orderBy("at").execute();
  for (const r of rows) {
    if (!asked.has(r.site)) continue;
    out.set(r.site, {
      id: r.id,
      site: r.site,
      kind: r.kind,
      reason: r.reason,
      at: fromIso(r.at, `site_rules ${r.id}`),
      by: r.by,
    });
  }
  return out;
}

/** How a source not read at its site owner's request is said (P26), on every page and command. */
export function siteNotReadReason(rule: SiteRule): string {
  return `the site's owner asked not to be read (${rule.reason})`;
}

/**
 * How a source every way of which its site's owner asked to be left alone is said (P26: the
 * night asks nothing of it, night/left-alone.ts), as the night's own reason words the request
 * (policy/admission.ts), and as a request not to be read is said (siteNotReadReason).
 */
export function siteLeftAloneReason(rule: SiteRule): string {
  return `the site's owner asked for ${rule.value ?? "/"} to be left alone (${rule.reason})`;
}

/**
 * Of these sources, those whose site's owner asked the whole site not to be read, each with its
 * site and that request. A URL that names no site has no site's request.
 */
export async function notReadSitesOf(
  db: Db,
  sources: Iterable<{ id: string; url: string }>,
): Promise<Map<string, { site: string; rule: SiteRule }>> {
  // The Public Suffix List is loaded only here: `nor mark`, `nor flags` and the rest of what
  // reads this module never pay for it.
  const { siteOf } = await import("../policy/site.js");
  const siteOfSource = new Map<string, string>();
  for (const s of sources) {
    try {
      siteOfSource.set(s.id, siteOf(s.url));
    } catch {
      // Not a URL a night could ask.
    }
  }
  const rules = await notReadSites(db, [...siteOfSource.values()]);
  const out = new Map<string, { site: string; rule: SiteRule }>();
  for (const [id, site] of siteOfSource) {
    const rule = rules.get(site);
    if (rule) out.set(id, { site, rule });
  }
  return out;
}
