/**
 * P26: which current record pages of a selection may be not read, for every public list of
 * their records (`/new`, search, the calendar, a county's page and their feeds and API): a page
 * a person marked not read, or one on a site whose owner asked not to be read. A selection is
 * the lists' own filter (county, kind of government, kind of records, government, record page),
 * applied to pages as `applyFilter(…, "pages")` applies it: the page's own kind of records.
 *
 * Read without touching every page of a wide selection (the whole state): the marks in force and
 * the owners' requests are few, so those are read first, and only the pages they name (or on
 * their sites) are looked up; nothing more is read when no page anywhere is not read.
 */
import type { Db } from "../db.js";
import { latestMarks } from "../marks.js";
import { applyFilter, type DirectoryFilter, type SourceSummary } from "./directory.js";

/** What a selection of pages is: the lists' filter, and the kinds of records it holds. */
export interface PageSelection {
  filter: DirectoryFilter;
  /**
   * Only pages of these kinds of records (the calendar: pages of meetings and agendas), unless
   * the filter names a kind of records itself.
   */
  kinds?: readonly string[];
}

/** A current page of the selection that may be not read, with its government's name. */
export interface NotReadCandidate {
  source: SourceSummary;
  governmentName: string;
}

/** The selection's current pages (of current governments) as a query over `s` and `g`. */
function pagesQuery(db: Db, sel: PageSelection) {
  let q = db
    .selectFrom("sources as s")
    .innerJoin("governments as g", "g.id", "s.government_id")
    .where("s.retired_at", "is", null)
    .where("g.retired_at", "is", null);
  q = applyFilter(q, sel.filter, "pages");
  if (!sel.filter.records && sel.kinds) q = q.where("s.records", "in", [...sel.kinds]);
  return q;
}

/**
 * The pages' addresses that may be on one of `sites` (a registrable domain, as `siteOf` gives
 * it), as a condition: an address holding the site's name, in any case. Only a first sieve: the
 * caller asks `siteOf` of each page found. A site written in punycode (`xn--`) may be written in
 * its own letters in the catalog's address, so then every page of the selection is looked at.
 */
function onSitesSieve(sites: readonly string[]) {
  if (sites.some((s) => s.includes("xn--"))) return undefined;
  // `%` and `\` are in no host; `_` matching any character only widens the sieve.
  return sites.map((s) => `%${s.toLowerCase()}%`);
}

/** The not-read requests of site owners in force: the sites. */
async function notReadSitesInForce(db: Db): Promise<string[]> {
  const rows = await db
    .selectFrom("site_rules")
    .select("site")
    .where("kind", "=", "not-read")
    .where("cleared_at", "is", null)
    .execute();
  return [...new Set(rows.map((r) => r.site))];
}

/** Of `rows`, those whose address is on one of `sites` (the Public Suffix List's reading). */
async function onSites<T extends { url: string }>(
  rows: readonly T[],
  sites: ReadonlySet<string>,
): Promise<T[]> {
  if (sites.size === 0 || rows.length === 0) return [];
  const { siteOf } = await import("../../policy/site.js");
  return rows.filter((r) => {
    try {
      return sites.has(siteOf(r.url));
    } catch {
      return false;
    }
  });
}

const COLUMNS = [
  "s.id",
  "s.government_id",
  "s.name",
  "s.records",
  "s.url",
  "s.access",
  "s.platform",
  "s.retired_at",
  "s.renamed_to",
  "g.name as government_name",
] as const;

/**
 * The selection's current pages that a person marked not read (their latest mark) or whose site's
 * owner asked not to be read, in the catalog's order (by government id, kind of records, id: the same on both stores); the
 * caller decides with each page's status (web/public/state.ts `readStatuses`). [] at once when
 * no page anywhere is marked not read and no owner asked.
 */
export async function notReadCandidates(db: Db, sel: PageSelection): Promise<NotReadCandidate[]> {
  const marked: string[] = [];
  for (const [id, m] of await latestMarks(db)) if (Number(m.reading) !== 1) marked.push(id);
  const sites = await notReadSitesInForce(db);
  if (marked.length === 0 && sites.length === 0) return [];
  const found = new Map<string, NotReadCandidate>();
  const add = (r: RowOf) =>
    found.set(r.id, { source: toSource(r), governmentName: r.government_name });
  if (marked.length > 0) {
    const rows = await pagesQuery(db, sel).select(COLUMNS).where("s.id", "in", marked).execute();
    for (const r of rows) add(r);
  }
  if (sites.length > 0) {
    const sieve = onSitesSieve(sites);
    let q = pagesQuery(db, sel).select(COLUMNS);
    if (sieve)
      q = q.where((eb) =>
        eb.or(sieve.map((p) => eb(eb.fn<string>("lower", [eb.ref("s.url")]), "like", p))),
      );
    for (const r of await onSites(await q.execute(), new Set(sites))) add(r);
  }
  return [...found.values()].sort(
    (a, b) =>
      cmp(a.source.governmentId, b.source.governmentId) ||
      cmp(a.source.records, b.source.records) ||
      cmp(a.source.id, b.source.id),
  );
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

type RowOf = {
  id: string;
  government_id: string;
  name: string | null;
  records: string;
  url: string;
  access: string;
  platform: string | null;
  retired_at: string | null;
  renamed_to: string | null;
  government_name: string;
};

function toSource(r: RowOf): SourceSummary {
  return {
    id: r.id,
    governmentId: r.government_id,
    name: r.name,
    records: r.records,
    url: r.url,
    access: r.access,
    platform: r.platform,
    retiredAt: r.retired_at,
    renamedTo: r.renamed_to,
  };
}

/** How many current record pages the selection holds. */
export async function pagesIn(db: Db, sel: PageSelection): Promise<number> {
  const r = await pagesQuery(db, sel)
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .executeTakeFirst();
  return Number(r?.n ?? 0);
}

/**
 * When whether the selection's pages are read last changed (P26): the latest mark of any of
 * them, read or not, and the latest request of their sites' owners not to be read, made or
 * lifted. A list of them changed then (its notice came or went), so its feed's time is never
 * before it. Undefined when none was ever marked and no owner of their sites ever asked.
 */
export async function readChangedIn(db: Db, sel: PageSelection): Promise<string | undefined> {
  const m = await pagesQuery(db, sel)
    .innerJoin("marks as m", "m.source_id", "s.id")
    .select((eb) => eb.fn.max("m.at").as("at"))
    .executeTakeFirst();
  let latest: string | undefined = m?.at ?? undefined;
  const rules = await db
    .selectFrom("site_rules")
    .select(["site", "at", "cleared_at"])
    .where("kind", "=", "not-read")
    .execute();
  if (rules.length === 0) return latest;
  const sites = [...new Set(rules.map((r) => r.site))];
  const sieve = onSitesSieve(sites);
  let q = pagesQuery(db, sel).select(["s.url"]);
  if (sieve)
    q = q.where((eb) =>
      eb.or(sieve.map((p) => eb(eb.fn<string>("lower", [eb.ref("s.url")]), "like", p))),
    );
  const { siteOf } = await import("../../policy/site.js");
  const theirs = new Set<string>();
  for (const r of await q.execute()) {
    try {
      theirs.add(siteOf(r.url));
    } catch {
      // Not a URL a night could ask.
    }
  }
  for (const r of rules) {
    if (!theirs.has(r.site)) continue;
    for (const at of [r.at, r.cleared_at])
      if (at !== null && at !== undefined && (latest === undefined || at > latest)) latest = at;
  }
  return latest;
}
