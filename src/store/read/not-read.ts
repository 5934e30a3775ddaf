/**
 * P26: which current record pages of a selection may be not read, for every public list of
 * their records (`/new`, search, the calendar, a county's page and their feeds and API): a page
 * a person marked not read, or one on a site whose owner asked not to be read or to leave some
 * paths alone (or asked where it moved, when one asked that). A selection is
 * the lists' own filter (county, kind of government, kind of records, government, record page),
 * applied to pages as `applyFilter(…, "pages")` applies it: the page's own kind of records.
 *
 * Read without touching every page of a wide selection (the whole state): the pages whose latest
 * mark says not read, and the owners' requests in force, are few, so only those pages (or those on
 * those sites) are looked up, and nothing more is read when none is.
 */
import type { Db } from "../db.js";
import { sql } from "../kysely.js";
import {
  applyFilter,
  type DirectoryFilter,
  type SourceCols,
  type SourceSummary,
  toSource,
} from "./directory.js";

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

/**
 * The selection's current pages (of current governments) as a query over `s` and `g`; `retired`:
 * those that left the catalog, alone or with their government, instead; "either": both.
 */
function pagesQuery(db: Db, sel: PageSelection, opts: { retired?: boolean | "either" } = {}) {
  let q = db.selectFrom("sources as s").innerJoin("governments as g", "g.id", "s.government_id");
  if (opts.retired === true)
    q = q.where((eb) =>
      eb.or([eb("s.retired_at", "is not", null), eb("g.retired_at", "is not", null)]),
    );
  else if (opts.retired !== "either")
    q = q.where("s.retired_at", "is", null).where("g.retired_at", "is", null);
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

/**
 * The sites whose owners' requests in force may leave a page unread: not to be read, or to leave
 * some paths alone (whether one leaves a page unread, the night decides: night/left-alone.ts).
 */
async function ownersSitesInForce(db: Db): Promise<{ sites: string[] }> {
  const rows = await db
    .selectFrom("site_rules")
    .select("site")
    .where("kind", "in", ["not-read", "leave-alone"])
    .where("cleared_at", "is", null)
    .execute();
  return { sites: [...new Set(rows.map((r) => r.site))] };
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
 * owner asked not to be read or to leave some paths alone, by government id, kind of records and id (the same on both
 * stores); the caller decides with each page's status (web/public/state.ts `readStatuses`). Two small reads
 * when no page of the selection is marked not read and no owner asked.
 */
export async function notReadCandidates(db: Db, sel: PageSelection): Promise<NotReadCandidate[]> {
  const found = new Map<string, NotReadCandidate>();
  const add = (r: RowOf) =>
    found.set(r.id, { source: toSource(r), governmentName: r.government_name });
  // The selection's pages whose latest mark (marks_pk: one a source and time) is "not read".
  const marked = await pagesQuery(db, sel)
    .innerJoin("marks as m", "m.source_id", "s.id")
    .where("m.reading", "=", 0)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom("marks as later")
            .select("later.source_id")
            .whereRef("later.source_id", "=", "m.source_id")
            .whereRef("later.at", ">", "m.at"),
        ),
      ),
    )
    .select(COLUMNS)
    .execute();
  for (const r of marked) add(r);
  const { sites } = await ownersSitesInForce(db);
  if (sites.length > 0) {
    // P11: a page asked where it moved, which may be on such a site whatever its catalog URL's
    // (one that moved onto a site whose owner asked not to be read, too).
    const moved = await pagesQuery(db, sel)
      .where(({ exists, selectFrom }) =>
        exists(
          selectFrom("source_moves as mv")
            .select("mv.source_id")
            .whereRef("mv.source_id", "=", "s.id"),
        ),
      )
      .select(COLUMNS)
      .execute();
    for (const r of moved) add(r);
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

type RowOf = SourceCols & { government_name: string };

/** How many current record pages the selection holds. */
export async function pagesIn(db: Db, sel: PageSelection): Promise<number> {
  const r = await pagesQuery(db, sel)
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .executeTakeFirst();
  return Number(r?.n ?? 0);
}

/**
 * When whether the selection's pages are read last changed (P26): the latest mark of any of
 * them, read or not, the latest request of their sites' owners not to be read, made or lifted,
 * and when a page of the selection marked not read, or on such a site, left the catalog (its
 * notice left with it), came back to it, or was changed by an import, or when an import changed
 * such a page anywhere in a way that can take it out of a selection (its kind of records, its
 * government, its address; its government's county or kind): the selection it left cannot be
 * told, so a feed's time may move on for such a change that left it as it was, never back. A list of them changed then (its notice came or went), so its feed's
 * time is never before it. Undefined when none was ever marked and no owner of their sites ever
 * asked.
 */
export async function readChangedIn(db: Db, sel: PageSelection): Promise<string | undefined> {
  let latest: string | undefined;
  const later = (at: string | null | undefined) => {
    if (at !== null && at !== undefined && (latest === undefined || at > latest)) latest = at;
  };
  const m = await pagesQuery(db, sel)
    .innerJoin("marks as m", "m.source_id", "s.id")
    .select((eb) => eb.fn.max("m.at").as("at"))
    .executeTakeFirst();
  later(m?.at);
  // A page once marked not read that left the catalog (its own retirement, or its government's).
  const gone = await pagesQuery(db, sel, { retired: true })
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom("marks as m")
          .select("m.source_id")
          .whereRef("m.source_id", "=", "s.id")
          .where("m.reading", "=", 0),
      ),
    )
    .select((eb) => [eb.fn.max("s.retired_at").as("page"), eb.fn.max("g.retired_at").as("gov")])
    .executeTakeFirst();
  later(gone?.page);
  later(gone?.gov);
  // A page once marked not read that the catalog changed since (the page, or its government):
  // put back after it left, renamed, or moved: its notice came, went or changed then. Of the
  // selection's pages (current or not), any change; of every such page, a change that can take it
  // out of a selection (MOVES_PAGE), whatever the selection now: the one it left cannot be told.
  const ofMarked = (q: ReturnType<typeof pagesQuery>) =>
    q
      .innerJoin("marks as m", "m.source_id", "s.id")
      .innerJoin("catalog_changes as c", (join) =>
        join
          .onRef("c.at", ">=", "m.at")
          .on((eb) =>
            eb.or([
              eb.and([eb("c.entity", "=", "source"), eb("c.entity_id", "=", eb.ref("s.id"))]),
              eb.and([eb("c.entity", "=", "government"), eb("c.entity_id", "=", eb.ref("g.id"))]),
            ]),
          ),
      )
      .where("m.reading", "=", 0)
      .select((eb) => eb.fn.max("c.at").as("at"));
  later((await ofMarked(pagesQuery(db, sel, { retired: "either" })).executeTakeFirst())?.at);
  later(
    (
      await ofMarked(pagesQuery(db, { filter: {} }, { retired: "either" }))
        .where("c.change", "in", ["changed", "unretired"])
        .where((eb) => movesPage(eb, { sources: "s.id", governments: "g.id" }))
        .executeTakeFirst()
    )?.at,
  );
  const rules = await db
    .selectFrom("site_rules")
    .select(["site", "at", "cleared_at"])
    .where("kind", "in", ["not-read", "leave-alone"])
    .execute();
  if (rules.length === 0) return latest;
  const sites = [...new Set(rules.map((r) => r.site))];
  const sieve = onSitesSieve(sites);
  const onRuleSites = (retired: boolean) => {
    let q = pagesQuery(db, sel, { retired }).select([
      "s.url",
      "s.retired_at",
      "g.retired_at as gov",
    ]);
    if (sieve)
      q = q.where((eb) =>
        eb.or(sieve.map((p) => eb(eb.fn<string>("lower", [eb.ref("s.url")]), "like", p))),
      );
    return q.execute();
  };
  const { siteOf } = await import("../../policy/site.js");
  const siteOfUrl = (url: string) => {
    try {
      return siteOf(url);
    } catch {
      return undefined; // Not a URL a night could ask.
    }
  };
  const theirs = new Set<string>();
  for (const r of await onRuleSites(false)) {
    const site = siteOfUrl(r.url);
    if (site !== undefined) theirs.add(site);
  }
  // P11: a page of the selection asked where it moved permanently, onto such a site whatever
  // its catalog URL's (the requests there decide it: night/left-alone.ts).
  const movedTo = await pagesQuery(db, sel, { retired: false })
    .innerJoin("source_moves as mv", "mv.source_id", "s.id")
    .select("mv.to_url")
    .execute();
  for (const r of movedTo) {
    const site = siteOfUrl(r.to_url);
    if (site !== undefined) theirs.add(site);
  }
  for (const r of rules) if (theirs.has(r.site)) for (const at of [r.at, r.cleared_at]) later(at);
  // A page on such a site that left the catalog (while the request stood, or since).
  const asked = new Set(sites);
  for (const r of await onRuleSites(true)) {
    const site = siteOfUrl(r.url);
    if (site !== undefined && asked.has(site)) {
      later(r.retired_at);
      later(r.gov);
    }
  }
  // Since the first request: a catalog change of a page of the selection on such a site (or of
  // its government), one that can take a page on such a site out of a selection (MOVES_PAGE), and
  // any page's address changed (one moved off such a site is no longer found by its address).
  // The pages on such sites as the sieve finds them, in SQL (never a list of ids, which one
  // platform's site could make thousands long): a page it finds on no such site only moves the
  // time on, never back.
  const first = rules.map((r) => r.at).sort()[0] ?? "";
  const sieved = (of: PageSelection) => {
    const q = pagesQuery(db, of, { retired: "either" });
    return sieve
      ? q.where((eb) =>
          eb.or(sieve.map((p) => eb(eb.fn<string>("lower", [eb.ref("s.url")]), "like", p))),
        )
      : q;
  };
  const ofSieved = (of: PageSelection) =>
    sieved(of)
      .innerJoin("catalog_changes as c", (join) =>
        join.on((eb) =>
          eb.or([
            eb.and([eb("c.entity", "=", "source"), eb("c.entity_id", "=", eb.ref("s.id"))]),
            eb.and([eb("c.entity", "=", "government"), eb("c.entity_id", "=", eb.ref("g.id"))]),
          ]),
        ),
      )
      .where("c.at", ">=", first)
      .select((eb) => eb.fn.max("c.at").as("at"));
  later((await ofSieved(sel).executeTakeFirst())?.at);
  later(
    (
      await ofSieved({ filter: {} })
        .where("c.change", "in", ["changed", "unretired"])
        .where((eb) => movesPage(eb, { sources: "s.id", governments: "g.id" }))
        .executeTakeFirst()
    )?.at,
  );
  const c = await db
    .selectFrom("catalog_changes as c")
    .select((eb) => eb.fn.max("c.at").as("at"))
    .where("c.at", ">=", first)
    .where("c.entity", "=", "source")
    .where("c.change", "in", ["changed", "unretired"])
    .where((eb) => fieldIs(eb, "url"))
    .executeTakeFirst();
  later(c?.at);
  return latest;
}

/**
 * The fields of a catalog entry (catalog_changes.fields, comma-separated) whose change can take a
 * page out of a selection it was in: its kind of records, its government, its address (onto or
 * off a site whose owner asked); its government's county or kind.
 */
const MOVES_PAGE = { source: ["records", "government", "url"], government: ["county", "kind"] };

/** A catalog change `c` that names `field` among those it changed. */
// biome-ignore lint/suspicious/noExplicitAny: an expression builder of any query holding `c`
const fieldIs = (eb: any, field: string) =>
  eb(sql`(',' || c.fields || ',')`, "like", `%,${field},%`);

/**
 * A catalog change `c` that can take the page in `of.sources` (a column) out of a selection, or
 * its government's (`of.governments`): MOVES_PAGE.
 */
const movesPage = (
  // biome-ignore lint/suspicious/noExplicitAny: as fieldIs
  eb: any,
  of: { sources: string; governments: string },
) =>
  eb.or([
    eb.and([
      eb("c.entity", "=", "source"),
      eb("c.entity_id", "=", eb.ref(of.sources)),
      eb.or(MOVES_PAGE.source.map((f) => fieldIs(eb, f))),
    ]),
    eb.and([
      eb("c.entity", "=", "government"),
      eb("c.entity_id", "=", eb.ref(of.governments)),
      eb.or(MOVES_PAGE.government.map((f) => fieldIs(eb, f))),
    ]),
  ]);
