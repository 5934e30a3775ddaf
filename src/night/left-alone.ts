/**
 * P26, P18: which record pages a site owner's request to leave some pages alone (`nor site
 * --leave-alone`, site_rules kind "leave-alone") leaves unread, as the night decides it: the
 * directory says those pages are not read, with the owner's reason, since the request
 * (web/public/state.ts readStatuses, `nor status`, the console), as it says a request not to
 * be read (store/site-rules.ts notReadSitesOf).
 *
 * The night asks each way in of a page in its order (P4), each at the address it is first asked
 * at (check-source.ts firstAsk: the reader's first request, or where the catalog URL moved
 * permanently, P11); a way its site's owner left alone is passed over (admission's decision,
 * policy/admission.ts leftAloneBy, on the path and query as sent), and the next one asked. So a
 * page is left unread when every one of its ways is: left alone, or on a site whose owner asked
 * not to be read at all. One way asked (a feed left alone, the page for people not) and the page
 * is read. What the night cannot know before it asks (a redirect into a path left alone, a form
 * whose search goes to one) is said by the night's outcome, not here.
 */
import { leftAloneBy, requestPath } from "../policy/admission.js";
import { siteOf } from "../policy/site.js";
import type { Source, WayIn } from "../sources/catalog/types.js";
import type { StatusRow } from "../store/admin.js";
import { sourceEntries } from "../store/catalog-sources.js";
import type { Db } from "../store/db.js";
import { movesBySource } from "../store/moved-to.js";
import { catalogVersion } from "../store/read/versions.js";
import {
  type SiteRule,
  siteLeftAloneReason,
  siteNotReadReason,
  siteRules,
} from "../store/site-rules.js";
import { firstAskedUrl } from "./first-ask.js";
import { loadWayReader } from "./lazy-reader.js";
import { waysInOrder } from "./reader.js";
import type { Moved } from "./types.js";

/** A page no night asks anything of, by its site's owner's request to leave it alone. */
export interface LeftAlone {
  /** The site of the request (`rule`'s). */
  site: string;
  /**
   * The latest of the requests that leave its ways alone (each way's earliest that covers it):
   * the one that left the page unread, while another way was asked before it.
   */
  rule: SiteRule;
  /** Since when no way of it is asked: the latest of those requests, a site's not to be read too. */
  since: number;
}

function siteOrNone(url: string): string | undefined {
  try {
    return siteOf(url);
  } catch {
    return undefined; // Not a URL a night could ask.
  }
}

/**
 * Of these sources, those no night asks anything of because their sites' owners asked every
 * way's address to be left alone, each with the request that leaves its first way alone. Two
 * small reads (the requests in force; the moves) when no owner asked for any page to be left
 * alone, or no page is on such a site; else the entries of the pages on those sites only.
 */
export async function leftAloneSources(
  db: Db,
  sources: Iterable<{ id: string; url: string }>,
  now: number,
): Promise<Map<string, LeftAlone>> {
  const out = new Map<string, LeftAlone>();
  for (const [id, j] of await ownersJudgement(db, sources, now)) if (j !== "asked") out.set(id, j);
  return out;
}

/**
 * Of these sources, each one a site owner's request may leave unread (a way of it on a site
 * whose owner asked to be left alone or not to be read): unread (LeftAlone), or `asked`, a way
 * of it asked all the same (P4: a page on a site not read whose feed on another site the nights
 * read; store/site-rules.ts notReadSitesOf judges by its address alone, and is not said then).
 * Two small reads when no owner asked either.
 */
export async function ownersJudgement(
  db: Db,
  sources: Iterable<{ id: string; url: string }>,
  now: number,
): Promise<Map<string, LeftAlone | "asked">> {
  const out = new Map<string, LeftAlone | "asked">();
  const rules = await siteRules(db);
  if (!rules.some((r) => r.kind === "leave-alone" || r.kind === "not-read")) return out;
  const [moves, catalog] = await Promise.all([movesBySource(db), catalogVersion(db)]);
  // What a page's decision is made of: the requests in force, the moves, the catalog's entries
  // (their version), and the hour (a platform's first request may name the day; the night asks
  // at its own hour anyway). While they stand, each page is decided once (a web process asks
  // this of every page of a vendor's site on each /new, each download: docs/benchmarks.md "The
  // web server (never block)").
  const key = JSON.stringify([
    rules.map((r) => r.id),
    [...moves],
    catalog,
    Math.floor(now / 3_600_000),
  ]);
  let memo = decided.get(db);
  if (memo === undefined || memo.key !== key) {
    memo = { key, said: new Map() };
    decided.set(db, memo);
  }
  const todo: { id: string; url: string }[] = [];
  for (const s of sources) {
    const said = memo.said.get(`${s.id}\n${s.url}`);
    if (said === undefined) todo.push(s);
    else if (said !== null) out.set(s.id, said);
  }
  if (todo.length === 0) return out;
  const fresh = await decide(db, rules, moves, todo, now);
  for (const s of todo) {
    const said = fresh.get(s.id);
    memo.said.set(`${s.id}\n${s.url}`, said ?? null);
    if (said !== undefined) out.set(s.id, said);
  }
  return out;
}

/** Each page's decision, by the database it was read from, while what it is made of stands. */
const decided = new WeakMap<Db, { key: string; said: Map<string, LeftAlone | "asked" | null> }>();

async function decide(
  db: Db,
  rules: readonly SiteRule[],
  moves: ReadonlyMap<string, Moved[]>,
  sources: readonly { id: string; url: string }[],
  now: number,
): Promise<Map<string, LeftAlone | "asked">> {
  const out = new Map<string, LeftAlone | "asked">();
  // Each site's requests as admission reads them: its first request not to be read, its paths
  // left alone (oldest first, as the rules are read).
  const asked = new Map<
    string,
    { notRead?: SiteRule; paths: { kind: string; prefix?: string; rule: SiteRule }[] }
  >();
  for (const r of rules) {
    const own = asked.get(r.site) ?? { paths: [] };
    if (r.kind === "not-read") own.notRead ??= r;
    own.paths.push({
      kind: r.kind,
      ...(r.kind === "leave-alone" ? { prefix: r.value ?? "/" } : {}),
      rule: r,
    });
    asked.set(r.site, own);
  }
  const ruled = new Set(rules.filter((r) => r.kind === "leave-alone").map((r) => r.site));
  const closed = new Set(rules.filter((r) => r.kind === "not-read").map((r) => r.site));
  // A page's own way is asked on its catalog URL's site, or where it moved (a platform's first
  // request stays on its catalog URL's site: webapi.legistar.com for a `<client>.legistar.com`),
  // and a page is unread only when its own way is too: only those on a site whose owner asked
  // for a path to be left alone or not to be read are looked at (one on a site not read is
  // read all the same by another way on a site that did not ask, P4).
  const candidates = new Map<string, string>();
  for (const s of sources) {
    const sites = [s.url, ...(moves.get(s.id) ?? []).map((m) => m.to)].map(siteOrNone);
    if (sites.some((x) => x !== undefined && (ruled.has(x) || closed.has(x))))
      candidates.set(s.id, s.url);
  }
  if (candidates.size === 0) return out;
  const entries: Source[] = [];
  for (const { entry } of await sourceEntries(db, [...candidates.keys()])) {
    try {
      entries.push(JSON.parse(entry) as Source);
    } catch {
      // An entry the import stored is JSON; one that is not is no page a night reads.
    }
  }
  // A page a night's catalog holds whose entry the store does not hold (no import wrote one): its
  // one way known, its address, asked as written or where it moved.
  const known = new Set(entries.map((e) => e.id));
  for (const [id, url] of candidates)
    if (!known.has(id))
      entries.push({ id, access: "page", url, alternates: [] } as unknown as Source);
  const reader = await loadWayReader(entries);
  const wayLeftAlone = (
    way: WayIn,
    sourceId: string,
  ): SiteRule | { notRead: SiteRule } | undefined => {
    let url: string;
    try {
      url = firstAskedUrl(reader, way, moves.get(sourceId), now);
    } catch {
      return undefined; // Not a way a night could ask: said by its outcome.
    }
    const site = siteOrNone(url);
    if (site === undefined) return undefined;
    const own = asked.get(site);
    if (own === undefined) return undefined;
    // Admission's order: the whole site not to be read first (said by notReadSitesOf).
    if (own.notRead !== undefined) return { notRead: own.notRead };
    return leftAloneBy(own.paths, requestPath(url))?.rule;
  };
  for (const [n, source] of entries.entries()) {
    // The event loop turns between batches (a vendor's thousands of pages, judged once).
    if (n > 0 && n % 500 === 0) await new Promise((go) => setImmediate(go));
    // The page is unread from the moment its last way asked was left alone: the latest of the
    // requests (each way's earliest covering it, as the rules are read oldest first), said in
    // its words; a request not to be read of another way's site counts for the date only,
    // unless no way is left alone but by such requests (a page that moved onto a site not read).
    let latest: SiteRule | undefined;
    let notRead: SiteRule | undefined;
    let every = true;
    for (const way of waysInOrder(source)) {
      const alone = wayLeftAlone(way, source.id);
      if (alone === undefined) {
        every = false;
        break;
      }
      if ("notRead" in alone) {
        if (notRead === undefined || alone.notRead.at > notRead.at) notRead = alone.notRead;
      } else if (latest === undefined || alone.at > latest.at) latest = alone;
    }
    // Every way on sites whose owners asked not to be read (a page that moved onto one): in
    // that request's words.
    const rule = latest ?? notRead;
    if (!every) out.set(source.id, "asked");
    else if (rule !== undefined)
      out.set(source.id, {
        site: rule.site,
        rule,
        since: Math.max(latest?.at ?? rule.at, notRead?.at ?? rule.at),
      });
  }
  return out;
}

/**
 * `nor status`'s and the console's rows (store/admin.ts statusRows) with the pages every way of
 * which a site owner asked to be left alone said not read, in the owner's words (`siteNotRead`),
 * as the public directory says them. A request not to be read at all says it first; a page of
 * a site not read that the nights read by another way in (on a site that did not ask) is read.
 */
export async function sayLeftAlone(db: Db, rows: StatusRow[], now: number): Promise<StatusRow[]> {
  const inUse = rows.filter((r) => r.retiredAt === undefined);
  const judged = await ownersJudgement(db, inUse, now);
  for (const r of inUse) {
    const a = judged.get(r.id);
    // A site not read (said by its address, statusRows) whose page another way is asked of.
    if (a === "asked") delete r.siteNotRead;
    else if (a !== undefined && r.siteNotRead === undefined) r.siteNotRead = ownersReason(a.rule);
  }
  return rows;
}

/** How the request that leaves a page unread (LeftAlone's `rule`) is said (P26). */
export function ownersReason(rule: SiteRule): string {
  return rule.kind === "not-read" ? siteNotReadReason(rule) : siteLeftAloneReason(rule);
}
