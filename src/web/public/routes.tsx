/**
 * The public directory: pages, feeds, calendar, downloads and the JSON API, all read-only over
 * the store (src/store/read). P6: record links are shown, never fetched. P23: a night's no
 * shows on the source's page. P26: a page that is not read stays listed with its link and the
 * reason. Every route names the query parameters it reads (`reads`, src/web/public/filters.ts):
 * any other, or one given twice, is refused (400) before the route runs, never silently ignored.
 * Any method but GET and HEAD on an address that answers GET is 405 (`getOnly`, app.tsx).
 */
import type { Context } from "hono";
import { Hono } from "hono";
import { foldLetters } from "../../policy/fold.js";
import { nightOf } from "../../policy/night-date.js";
import { OHIO_COUNTIES } from "../../sources/catalog/counties.js";
import type { Db } from "../../store/db.js";
import {
  countySummaries,
  directoryCounts,
  type GovernmentSummary,
  getGovernment,
  getSource,
  listGovernments,
  sourcesOfGovernments,
} from "../../store/read/directory.js";
import {
  CHANGED_LOOK_BACK,
  changedRecords,
  firstListed,
  firstNight,
  lastNightWithNew,
  latestNight,
  type NewItems,
  newCounts,
  newRecords,
  nightsCheckedIn,
  nightsIn,
  upcomingMeetings,
} from "../../store/read/new-records.js";
import { type PageSelection, readChangedIn } from "../../store/read/not-read.js";
import {
  MAX_TERMS,
  MAX_WORD_BYTES,
  type SearchWords,
  search,
  searchTerms,
  wordBytes,
} from "../../store/read/search.js";
import { oneSnapshot } from "../../store/read/snapshot.js";
import { catalogChangedAt } from "../../store/read/versions.js";
import {
  countsJson,
  filterJson,
  governmentDetailJson,
  governmentJson,
  newRecordJson,
  retiredJson,
  sourceDetailJson,
  sourceJson,
} from "./api.js";
import { downloadRoutes } from "./downloads.js";
import { echo } from "./echo.js";
import { changedOf, FEED_CONTENT_TYPES, FEED_FORMATS, renderFeed } from "./feeds.js";
import {
  countyNamed,
  describeFilter,
  type Filter,
  type FilterKeys,
  filterQuery,
  pageReads,
  parseFilter,
  reads,
} from "./filters.js";
import { isolated } from "./format.js";
import { ICAL_CONTENT_TYPE, renderIcal } from "./ical.js";
import { loadGovernment, loadSource } from "./load.js";
import {
  CALENDAR_HERE,
  NEW_HERE,
  type NotRead,
  notReadFeedItems,
  notReadJson,
  notReadText,
  SEARCH_HERE,
} from "./not-read.js";
import { openApiDocument } from "./openapi.js";
import { badRequestPage, MessagePage } from "./pages/errors.js";
import { CountyPage, GovernmentPage, GovernmentsPage } from "./pages/governments.js";
import { HomePage } from "./pages/home.js";
import { NewPage, type NewPageData } from "./pages/new.js";
import { noWordText, SearchPage } from "./pages/search.js";
import { SourcePage } from "./pages/source.js";
import {
  type Retired,
  retiredFeedItem,
  retiredOf,
  retiredPage,
  retiredText,
  sourceName,
} from "./retired.js";
import { notReadOf } from "./state.js";
import { type NewWindow, nightStates, nightsBeforeListing, parseWindow } from "./windows.js";

/**
 * P26: the record pages a list's filter selects, for its not-read notice: `kinds` narrows them
 * to the pages of those kinds of records (the calendar's pages of meetings), unless the filter
 * names a kind of records itself.
 */
const selection = (filter: Filter, kinds?: readonly string[]): PageSelection =>
  kinds ? { filter, kinds } : { filter };

/** The calendar's record pages (`upcomingMeetings`: pages of meetings or agendas). */
const MEETING_PAGES = ["meetings", "agendas"] as const;

/** C0 (but tab, newline, return), DEL and C1 control characters. */
const CONTROLS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g;
/** The longest `q` a search reads (its spaces counted once); a longer one is a 400. */
const MAX_Q = 500;
/** A character outside the BMP, as its two UTF-16 units: counted as one (`searchOf`). */
const PAIRS = /[\uD800-\uDBFF][\uDC00-\uDFFF]/g;
/** Newest records on the front page. */
const HOME_NEWEST = 10;
const GOV_FILTERS: FilterKeys = ["county", "kind"];
const ALL: FilterKeys = ["county", "kind", "records", "government", "source"];
/** What each kind of list reads: the filters, and its window or its search. */
const NEW_PARAMS = [...ALL, "window", "night"];
const SEARCH_PARAMS = ["q", "page", ...ALL];
/**
 * A search feed is followed for what is new: the latest 100 matches first seen new on record
 * (none a page already listed when first read), the latest first; it has no pages (`page` is a
 * 400).
 */
const SEARCH_FEED_PARAMS = ["q", ...ALL];
const SEARCH_FEED_CAP = 100;
/** Records per page of search results; governments and sources shown with them. */
export const SEARCH_PER_PAGE = 20;
const SEARCH_OTHERS = 20;
/** At most this many upcoming meetings in a calendar. */
const ICAL_CAP = 500;
/** Search pages beyond this are refused (deep OFFSETs cost the store, not the reader). */
const MAX_PAGE = 50;

/**
 * The pages of a search's records that can be asked for: those the matches fill, at most
 * MAX_PAGE (the first page always exists, empty or not); `capped` when more records match than
 * those pages list (the best MAX_PAGE × SEARCH_PER_PAGE are listed).
 */
function searchPages(recordTotal: number): { pages: number; capped: boolean } {
  const filled = Math.max(1, Math.ceil(recordTotal / SEARCH_PER_PAGE));
  return { pages: Math.min(filled, MAX_PAGE), capped: filled > MAX_PAGE };
}

/**
 * The words of `q` as the search matches them: a word typed twice is one word (docs/api.md),
 * and so are two that differ only by a diacritic the search folds (`cafe` and `café`, as both
 * stores fold them: policy/fold.ts), so the first typed is kept and counted once against
 * MAX_TERMS. When the last word typed is one of those, the same word was typed whole before it:
 * the whole word has to match, so it is no prefix (searchTerms' own rule, after folding).
 */
function wordsOf(q: string): SearchWords {
  const typed = searchTerms(q);
  const seen = new Set<string>();
  const terms = typed.terms.filter((t) => {
    const folded = foldLetters(t);
    if (seen.has(folded)) return false;
    seen.add(folded);
    return true;
  });
  return { terms, prefix: typed.prefix && terms.at(-1) === typed.terms.at(-1) };
}

/** A page past the last of the results is not found, the same on the page and in the API. */
function pastTheEnd(page: number, recordTotal: number): string | undefined {
  const { pages } = searchPages(recordTotal);
  return page > pages
    ? `page ${page} is past the last page of these results (${pages})`
    : undefined;
}

export interface PublicOptions {
  now: () => number;
  /** The configured public origin: feeds, calendar and sitemap links (never the Host header). */
  origin: () => string;
  /**
   * Builds an answer in a worker thread (src/web/public/answer-job.ts, through the store's job
   * pool): the answers that list hundreds of records are made there, off the event loop, by
   * these same routes. Without it (tests, or the worker itself) they are made here.
   */
  build?: (job: AnswerJob) => Promise<Answer>;
}

/** A request for a worker to answer: the path and query, and the request's clock and origin. */
export interface AnswerJob {
  url: string;
  now: number;
  origin: string;
}

/** A worker's answer, as plain data (it crosses threads). */
export interface Answer {
  status: number;
  headers: [string, string][];
  body: string;
}

export type Checked<T> = { ok: true; value: T } | { ok: false; message: string };

/** The methods every address of the directory answers (405's `Allow`). */
export const ALLOW = "GET, HEAD";

/**
 * Whether a path (or a route's) names a file, its last segment with an extension: a feed, the
 * calendar, a download, the sitemap. Programs read those, so a file's 404 and 405 are plain
 * text, as its 400s are (docs/api.md), never a page. With a trailing slash too (`/new.atom/`:
 * a known one is sent to the address without it, app.tsx; any other is a plain-text 404).
 */
export const namesFile = (path: string): boolean => /\/[^/:]*\.[A-Za-z0-9]+\/*$/.test(path);

/**
 * Whether an address is one that `app` answers for GET (its routes with a fixed or `:param`
 * path; a catch-all `*` is not an address): a request with another method there is a 405, not a
 * 404. Made once, at the first question, from the routes the app holds by then.
 */
export function getOnly(app: Hono, skip: (path: string) => boolean = () => false) {
  let patterns: RegExp[] | undefined;
  return (path: string): boolean => {
    patterns ??= app.routes
      .filter((r) => r.method === "GET" && !r.path.includes("*") && !skip(r.path))
      .map((r) => {
        // As the app's router reads a path: `:name` is one segment, the rest is literal
        // (strict: "/new/" is not "/new").
        const parts = r.path
          .split("/")
          .map((p) => (p.startsWith(":") ? "[^/]+" : p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
        return new RegExp(`^${parts.join("/")}$`);
      });
    return patterns.some((p) => p.test(path));
  };
}

export function publicRoutes(db: Db, opts: PublicOptions): Hono {
  const app = new Hono();

  /**
   * The filters of a request, checked against the directory. The known counties are read only
   * when a county is asked for, or when the page shows them (`counties`: its filter form), so a
   * conditional GET of a download reads no table whole. `retired`: the record page or government
   * the filter names has left the catalog (retired.tsx); every route that takes the filters says
   * so, with the page that keeps its records, where its list would otherwise be empty.
   */
  const filterOf = async (
    c: Context,
    keys: FilterKeys,
    want: { counties?: boolean } = {},
  ): Promise<
    Checked<{
      filter: Filter;
      counties: string[];
      scope: string;
      retired: Retired | undefined;
      /**
       * P26: the selection's record pages not read (`kinds`: only pages of those kinds of
       * records, unless the filter names one: the calendar's).
       */
      notRead: (kinds?: readonly string[]) => Promise<NotRead | undefined>;
      /**
       * P26: when whether its record pages are read last changed (a notice came or went), read
       * only by the feeds that need it.
       */
      readChangedAt: (kinds?: readonly string[]) => Promise<string | undefined>;
    }>
  > => {
    const county = keys.includes("county") && (c.req.query("county")?.trim() ?? "") !== "";
    const known = county || want.counties ? (await countySummaries(db)).map((x) => x.county) : [];
    const r = parseFilter(
      {
        county: c.req.query("county"),
        kind: c.req.query("kind"),
        records: c.req.query("records"),
        government: c.req.query("government"),
        source: c.req.query("source"),
      },
      known,
      keys,
    );
    if (!r.ok) return r;
    const f = r.filter;
    const parts: string[] = [];
    let gov: GovernmentSummary | undefined;
    if (f.government) {
      gov = await getGovernment(db, f.government);
      if (!gov)
        return { ok: false, message: `There is no government with the id "${f.government}".` };
    }
    let page: Parameters<typeof retiredOf>[0];
    if (f.source) {
      const s = await getSource(db, f.source);
      if (!s) return { ok: false, message: `There is no record page with the id "${f.source}".` };
      const g = gov?.id === s.governmentId ? gov : await getGovernment(db, s.governmentId);
      page = { source: s, government: g };
      parts.push(sourceName(s, g));
      // A government that is not the record page's own narrows the list too (to nothing): it is
      // named, never left out, so the title does not speak for the record page alone.
      if (gov && gov.id !== s.governmentId) parts.push(isolated(gov.name));
    } else if (gov) {
      parts.push(isolated(gov.name));
    }
    // A record page or government that left the catalog: its records are on its own page only.
    const retired = retiredOf(page, gov);
    const rest = describeFilter({
      ...(f.county ? { county: f.county } : {}),
      ...(f.kind ? { kind: f.kind } : {}),
      ...(f.records ? { records: f.records } : {}),
    });
    if (rest) parts.push(rest);
    // The form offers the county asked for, listed in the directory or not (parseFilter).
    const counties =
      f.county && !known.includes(f.county)
        ? [...known, f.county].sort((a, b) => a.localeCompare(b))
        : known;
    return {
      ok: true,
      value: {
        filter: f,
        counties,
        scope: parts.join(", "),
        retired,
        // P26: the record pages the filter selects (as it selects their records) that are not
        // read; none for a filter that names what left the catalog (its own notice says where
        // its records are). Read only by the lists that say it.
        notRead: (kinds?: readonly string[]) =>
          retired ? Promise.resolve(undefined) : notReadOf(db, selection(f, kinds), opts.now()),
        // A notice lifted changed the list too: its feed says so (never back to an older time).
        readChangedAt: (kinds?: readonly string[]) =>
          retired ? Promise.resolve(undefined) : readChangedIn(db, selection(f, kinds)),
      },
    };
  };

  /**
   * The heaviest answers (hundreds of records made into a page, a feed or JSON) are built in a
   * worker when there is one: undefined here means "build it on this thread".
   */
  const inWorker = async (c: Context): Promise<Response | undefined> => {
    const build = opts.build;
    if (!build) return undefined;
    const u = new URL(c.req.url);
    const a = await build({
      url: `${u.pathname}${u.search}`,
      now: opts.now(),
      origin: opts.origin(),
    });
    const headers = new Headers(a.headers);
    headers.delete("content-length");
    return new Response(a.body, { status: a.status, headers });
  };

  const badRequest = badRequestPage;
  /** How each kind of route says a request is not understood: a page, JSON, or plain text. */
  const asPage = (back: string) => (c: Context, message: string) => badRequest(c, message, back);
  const asJson = (c: Context, message: string) => c.json({ error: message }, 400);
  const asText = (c: Context, message: string) => c.text(message, 400);

  const notFound = (c: Context, what: string, id: string) =>
    c.html(
      <MessagePage
        title="Not in the directory"
        message={`There is no ${what} "${echo(id)}".`}
        back={{ href: "/governments", text: "All governments" }}
      />,
      404,
    );

  /**
   * What /new (its page and /api/new) and the front page show of a window, read in one snapshot
   * (oneSnapshot): the counts count the very records listed, though a night commits meanwhile.
   */
  const newData = (w: NewWindow, f: Filter, cap?: number, from: Db = db): Promise<NewPageData> =>
    oneSnapshot(from, (s) => newDataIn(s, w, f, cap));

  const newDataIn = async (
    db: Db,
    w: NewWindow,
    f: Filter,
    cap: number | undefined,
  ): Promise<NewPageData> => {
    const [list, counts, nights, first, listedAt, changed] = await Promise.all([
      newRecords(db, w.range, f, cap),
      newCounts(db, w.range, f),
      nightsIn(db, w.range),
      firstNight(db),
      firstListed(db, f),
      // The front page (its own cap) shows what is new only; /new and /api/new what changed too.
      cap === undefined ? changedRecords(db, w.range, f) : { items: [], capped: false },
    ]);
    const what = f.source
      ? "this page"
      : f.government || f.county || f.kind || f.records
        ? "any page in this selection"
        : "any record page";
    // Nights begun before the selection's pages were listed that checked some all the same.
    const before = nightsBeforeListing(nights, w.range, listedAt);
    const checked = before.length > 0 ? await nightsCheckedIn(db, before, f) : undefined;
    const data: NewPageData = {
      window: w,
      items: list.items,
      capped: list.capped,
      changed,
      counts,
      nights: nightStates(w.range, nights, opts.now(), first, {
        at: listedAt,
        what,
        ...(checked ? { checked } : {}),
      }),
    };
    if (counts.total === 0) {
      const earlier = await lastNightWithNew(db, w.range.from, f);
      if (earlier) data.earlier = earlier;
    }
    return data;
  };

  const windowOf = (c: Context) =>
    parseWindow({ window: c.req.query("window"), night: c.req.query("night") }, opts.now());

  app.get("/", pageReads([], asPage("/")), async (c) => {
    const w = parseWindow({}, opts.now());
    if (!w.ok) throw new Error(w.message);
    const [counts, latest, counties, notRead] = await oneSnapshot(db, (s) =>
      Promise.all([
        directoryCounts(s),
        newData(w.window, {}, HOME_NEWEST, s),
        countySummaries(s),
        notReadOf(s, selection({}), opts.now()),
      ]),
    );
    return c.html(
      <HomePage
        counts={counts}
        latest={latest}
        shown={HOME_NEWEST}
        counties={counties}
        notRead={notRead}
      />,
    );
  });

  app.get("/governments", pageReads(GOV_FILTERS, asPage("/governments")), async (c) => {
    const f = await filterOf(c, GOV_FILTERS, { counties: true });
    if (!f.ok) return badRequest(c, f.message, "/governments");
    const governments = await listGovernments(db, f.value.filter);
    const [sources, notRead] = await Promise.all([
      sourcesOfGovernments(
        db,
        governments.map((g) => g.id),
      ),
      f.value.notRead(),
    ]);
    return c.html(
      <GovernmentsPage
        governments={governments}
        sources={sources}
        filter={f.value.filter}
        counties={f.value.counties}
        notRead={notRead}
      />,
    );
  });

  /**
   * A county by its name, in any case, with or without " County" after it (as pages write it):
   * one the directory lists governments in, or any other of Ohio's 88 (with none listed yet, or
   * none any more), as the county filter reads it (parseFilter). Another name is no county.
   */
  const countyOf = async (name: string) => {
    const all = await countySummaries(db);
    const listed = countyNamed(
      name,
      all.map((x) => x.county),
    );
    const found = all.find((x) => x.county === listed);
    if (found) return found;
    const ohio = countyNamed(name, OHIO_COUNTIES);
    return ohio === undefined ? undefined : { county: ohio, governments: 0 };
  };

  // The counties are listed on the front page (each with its governments' count): the address
  // of the list sends there, as people guess it from /counties/<name> and /api/counties.
  app.get("/counties", pageReads([], asPage("/governments")), (c) => c.redirect("/#counties", 301));

  app.get("/counties/:county", pageReads([], asPage("/governments")), async (c) => {
    const county = await countyOf(c.req.param("county"));
    if (!county) return notFound(c, "county", c.req.param("county"));
    // "/counties/Summit County": the county's own address.
    if (county.county.toLowerCase() !== c.req.param("county").toLowerCase())
      return c.redirect(`/counties/${encodeURIComponent(county.county)}`, 301);
    const governments =
      county.governments === 0 ? [] : await listGovernments(db, { county: county.county });
    const [sources, notRead] = await Promise.all([
      sourcesOfGovernments(
        db,
        governments.map((g) => g.id),
      ),
      notReadOf(db, selection({ county: county.county }), opts.now()),
    ]);
    return c.html(
      <CountyPage
        county={county.county}
        governments={governments}
        sources={sources}
        notRead={notRead}
      />,
    );
  });

  app.get("/governments/:id", pageReads([], asPage("/governments")), async (c) => {
    const r = await loadGovernment(db, c.req.param("id"), opts.now());
    if (!r.found) return notFound(c, "government with the id", c.req.param("id"));
    return c.html(
      <GovernmentPage
        government={r.value.government}
        sources={r.value.sources}
        leads={r.value.leads}
        today={nightOf(opts.now())}
      />,
    );
  });

  app.get("/sources/:id", pageReads([], asPage("/governments")), async (c) => {
    const r = await loadSource(db, c.req.param("id"), opts.now());
    if (!r.found) return notFound(c, "record page with the id", c.req.param("id"));
    return c.html(<SourcePage d={r.value} />);
  });

  app.get("/new", pageReads(NEW_PARAMS, asPage("/new")), async (c) => {
    const built = await inWorker(c);
    if (built) return built;
    const f = await filterOf(c, ALL, { counties: true });
    if (!f.ok) return badRequest(c, f.message, "/new");
    const w = windowOf(c);
    if (!w.ok) return badRequest(c, w.message, "/new");
    const [data, notRead] = await Promise.all([
      newData(w.window, f.value.filter),
      f.value.notRead(),
    ]);
    return c.html(
      <NewPage
        data={data}
        filter={f.value.filter}
        scope={f.value.scope}
        counties={f.value.counties}
        retired={f.value.retired}
        notRead={notRead}
      />,
    );
  });

  /** Where the filter's records went, as plain text with the page's address (retired.tsx). */
  const retiredSays = (r: Retired, here: string) =>
    retiredText(r, `${opts.origin()}${retiredPage(r)}`, here);

  /**
   * A feed's time: its newest item's, else the latest night's, else (no night yet) the catalog's
   * latest change; never before its notice item's.
   */
  const feedUpdated = async (
    items: readonly { firstSeenAt: string; changedAt?: string }[],
    /** When the feed's notice item was made (retired, or marked not read): never before it. */
    noticeAt?: string | undefined,
  ) => {
    // The latest change of any item (RFC 4287 §4.1.1): a record brought up to date (retitled)
    // changed the feed, though the newest first seen is listed first.
    let newest: string | undefined;
    for (const r of items) {
      const at = changedOf(r);
      if (newest === undefined || at > newest) newest = at;
    }
    const n = newest ? undefined : await latestNight(db);
    // Before the first night, when the catalog last changed (the feed's title and scope come
    // from it), never the clock's time: that made new bytes, and a new ETag, at every request.
    const began = newest || n ? undefined : await catalogChangedAt(db);
    const at = new Date(newest ?? (n ? (n.finishedAt ?? n.startedAt) : (began ?? 0)));
    const notice = noticeAt !== undefined ? new Date(noticeAt) : undefined;
    return notice && notice > at ? notice : at;
  };

  /** A feed's description of its updated entries: how many, and whether some were left out. */
  const changedSays = (c: NewItems) =>
    c.items.length === 0
      ? ""
      : ` After them, ${c.capped ? `the latest ${c.items.length} of the records` : c.items.length === 1 ? "1 record" : `${c.items.length} records`} new on record in the ${CHANGED_LOOK_BACK} nights before, which the list shows retitled, redated or of another kind since (updated, not new).`;

  for (const format of FEED_FORMATS) {
    app.get(`/new.${format}`, reads(NEW_PARAMS, asText), async (c) => {
      const built = await inWorker(c);
      if (built) return built;
      const f = await filterOf(c, ALL);
      if (!f.ok) return c.text(f.message, 400);
      const w = windowOf(c);
      if (!w.ok) return c.text(w.message, 400);
      // What is new, and the records new in the nights before it that a night of the window
      // brought up to date (P6: an updated entry, never new again), in one snapshot.
      const [list, changed] = await oneSnapshot(db, (s) =>
        Promise.all([
          newRecords(s, w.window.range, f.value.filter),
          changedRecords(s, w.window.range, f.value.filter),
        ]),
      );
      const p = new URLSearchParams(filterQuery(f.value.filter).slice(1));
      for (const [k, v] of Object.entries(w.window.query)) p.set(k, v);
      const q = p.toString() ? `?${p.toString()}` : "";
      const scope = f.value.scope;
      const retired = f.value.retired;
      const notRead = await f.value.notRead();
      const body = renderFeed(format, {
        origin: opts.origin(),
        id: `urn:new-on-record:new${q}`,
        title: `New on record${scope ? `: ${scope}` : ""} (Ohio)`,
        description: retired
          ? retiredSays(retired, "in this feed")
          : `${notRead ? `${notReadText(notRead, opts.origin(), NEW_HERE, `/new${q}`)} ` : ""}New records ${w.window.label}${scope ? `, ${scope}` : " across Ohio"}.${
              list.capped ? ` Only the newest ${list.items.length} are listed.` : ""
            }${changedSays(changed)}`,
        pagePath: `/new${q}`,
        selfPath: (fmt) => `/new.${fmt}${q}`,
        items: [...list.items, ...changed.items],
        ...(retired
          ? { notices: [retiredFeedItem(retired, opts.origin(), "in this feed")] }
          : notRead
            ? { notices: notReadFeedItems(notRead, opts.origin(), NEW_HERE, `/new${q}`) }
            : {}),
        updated: await feedUpdated(
          [...list.items, ...changed.items],
          retired?.retiredAt ?? (await f.value.readChangedAt()),
        ),
      });
      return c.body(body, 200, { "content-type": FEED_CONTENT_TYPES[format] });
    });
  }

  /** `q`, `page` and the filters of a search, checked. */
  const searchOf = async (c: Context, want: { counties?: boolean } = {}) => {
    const f = await filterOf(c, ALL, want);
    if (!f.ok) return f;
    // Control characters are never part of a word (searchTerms): they go, never said back raw.
    // A run of spaces is one. Never cut: a word past a cut would be left out (docs/api.md).
    const q = (c.req.query("q") ?? "").replace(CONTROLS, " ").replace(/\s+/g, " ").trim();
    // Characters as written: one outside the BMP (an emoji) is one, not its two UTF-16 units.
    const chars = q.length - (q.match(PAIRS)?.length ?? 0);
    if (chars > MAX_Q) {
      return {
        ok: false as const,
        message: `A search is at most ${MAX_Q} characters long, and this one has ${chars}: leave out the words that matter least.`,
      };
    }
    const pageText = c.req.query("page") ?? "1";
    const page = Number(pageText);
    if (!/^\d+$/.test(pageText) || page < 1 || page > MAX_PAGE) {
      return {
        ok: false as const,
        message: `page must be a number from 1 to ${MAX_PAGE}, not "${echo(pageText)}"`,
      };
    }
    const words = wordsOf(q);
    if (words.terms.length > MAX_TERMS) {
      // Never cut: every word must match (docs/api.md), so a word left out would widen the search.
      return {
        ok: false as const,
        message: `A search takes at most ${MAX_TERMS} different words, and this one has ${words.terms.length}: leave out the ones that matter least.`,
      };
    }
    // Never cut either: a word is searched whole, or the search is refused and says why.
    const long = words.terms.find((t) => wordBytes(t) > MAX_WORD_BYTES);
    if (long !== undefined) {
      return {
        ok: false as const,
        message: `A word of this search is too long to search: as searched (each character written out in full, as "\u3316" is "\u30ad\u30ed\u30e1\u30fc\u30c8\u30eb"), it is ${wordBytes(long)} bytes of UTF-8, and a word is at most ${MAX_WORD_BYTES}. Search a shorter part of it.`,
      };
    }
    // The filter's parameters: in this search's address, and kept by its search form.
    const keep = Object.fromEntries(new URLSearchParams(filterQuery(f.value.filter).slice(1)));
    const p = new URLSearchParams({ q, ...keep });
    return {
      ok: true as const,
      q,
      page,
      words,
      filter: f.value.filter,
      retired: f.value.retired,
      notRead: f.value.notRead,
      readChangedAt: f.value.readChangedAt,
      scope: f.value.scope,
      counties: f.value.counties,
      keep,
      query: `?${p.toString()}`,
    };
  };

  app.get("/search", pageReads(SEARCH_PARAMS, asPage("/search")), async (c) => {
    // The counties are offered by the filter form, which a search with words shows.
    const s = await searchOf(c, { counties: (c.req.query("q") ?? "").trim() !== "" });
    if (!s.ok) return badRequest(c, s.message, "/search");
    const result =
      s.words.terms.length === 0
        ? undefined
        : await search(db, s.words, s.filter, {
            page: s.page,
            perPage: SEARCH_PER_PAGE,
            others: SEARCH_OTHERS,
          });
    const past = result ? pastTheEnd(s.page, result.recordTotal) : undefined;
    const notRead = past === undefined && s.q !== "" ? await s.notRead() : undefined;
    if (past !== undefined)
      return c.html(
        <MessagePage
          title="No such page of results"
          message={past}
          back={{ href: `/search${s.query}`, text: "The first page" }}
        />,
        404,
      );
    return c.html(
      <SearchPage
        q={s.q}
        result={result}
        page={s.page}
        {...(result ? searchPages(result.recordTotal) : { pages: 1, capped: false })}
        listed={MAX_PAGE * SEARCH_PER_PAGE}
        query={s.query}
        retired={s.retired}
        notRead={notRead}
        scope={s.scope}
        keep={s.keep}
        filter={s.filter}
        counties={s.counties}
      />,
    );
  });

  for (const format of FEED_FORMATS) {
    app.get(`/search.${format}`, reads(SEARCH_FEED_PARAMS, asText), async (c) => {
      const built = await inWorker(c);
      if (built) return built;
      const s = await searchOf(c);
      if (!s.ok) return c.text(s.message, 400);
      if (s.words.terms.length === 0) return c.text(`A search feed: ${noWordText(s.q)}`, 400);
      const r = await search(db, s.words, s.filter, {
        page: 1,
        perPage: SEARCH_FEED_CAP,
        others: 0,
        latest: true,
      });
      const items = r.records;
      const retired = s.retired;
      const notRead = await s.notRead();
      const body = renderFeed(format, {
        origin: opts.origin(),
        id: `urn:new-on-record:search${s.query}`,
        title: `New on Record: search "${isolated(s.q)}"${s.scope ? ` in ${s.scope}` : ""}`,
        description: retired
          ? retiredSays(retired, "in this feed")
          : `${notRead ? `${notReadText(notRead, opts.origin(), SEARCH_HERE, `/search${s.query}`)} ` : ""}Records whose titles match "${isolated(s.q)}"${s.scope ? ` in ${s.scope}` : ""}, as they come new on record (not those a page already listed when New on Record first read it, nor those a backfill found on its older pages: the search itself finds them): ${
              r.recordTotal > SEARCH_FEED_CAP
                ? `the latest ${SEARCH_FEED_CAP} of ${r.recordTotal} records, newest first (more words narrow the search)`
                : r.recordTotal === 0
                  ? "none so far"
                  : `all ${r.recordTotal} ${r.recordTotal === 1 ? "record" : "records"}, newest first`
            }.`,
        pagePath: `/search${s.query}`,
        selfPath: (fmt) => `/search.${fmt}${s.query}`,
        items,
        ...(retired
          ? { notices: [retiredFeedItem(retired, opts.origin(), "in this feed")] }
          : notRead
            ? {
                notices: notReadFeedItems(notRead, opts.origin(), SEARCH_HERE, `/search${s.query}`),
              }
            : {}),
        updated: await feedUpdated(items, retired?.retiredAt ?? (await s.readChangedAt())),
      });
      return c.body(body, 200, { "content-type": FEED_CONTENT_TYPES[format] });
    });
  }

  app.get("/meetings.ics", reads(ALL, asText), async (c) => {
    const built = await inWorker(c);
    if (built) return built;
    const f = await filterOf(c, ALL);
    if (!f.ok) return c.text(f.message, 400);
    const [items, notRead] = await Promise.all([
      upcomingMeetings(db, nightOf(opts.now()), f.value.filter, ICAL_CAP),
      // A record page named is the selection whatever its kind (a bids page's pre-bid meetings
      // are in the calendar); else its pages of meetings and agendas.
      f.value.notRead(f.value.filter.source ? undefined : MEETING_PAGES),
    ]);
    const retired = f.value.retired;
    const body = renderIcal({
      origin: opts.origin(),
      name: `Upcoming meetings${f.value.scope ? `: ${f.value.scope}` : " in Ohio"} (New on Record)`,
      ...(retired
        ? {
            description: retiredSays(retired, "in this calendar"),
          }
        : notRead
          ? {
              // The rest past the first named: /new of the same filter names every one.
              description: notReadText(
                notRead,
                opts.origin(),
                CALENDAR_HERE,
                `/new${filterQuery(f.value.filter)}`,
              ),
            }
          : {}),
      items,
    });
    return c.body(body, 200, { "content-type": ICAL_CONTENT_TYPE });
  });

  app.get("/sitemap.xml", reads([], asText), async (c) => {
    const o = opts.origin();
    const governments = await listGovernments(db, {});
    const counties = await countySummaries(db);
    const sources = await sourcesOfGovernments(
      db,
      governments.map((g) => g.id),
    );
    const urls = [
      `${o}/`,
      `${o}/governments`,
      `${o}/new`,
      `${o}/site-owners`,
      ...counties.map((x) => `${o}/counties/${encodeURIComponent(x.county)}`),
      ...governments.map((g) => `${o}/governments/${encodeURIComponent(g.id)}`),
      ...[...sources.values()].flat().map((s) => `${o}/sources/${encodeURIComponent(s.id)}`),
    ];
    const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;");
    const body = `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls
      .map((u) => `<url><loc>${esc(u)}</loc></url>`)
      .join("\n")}\n</urlset>\n`;
    return c.body(body, 200, { "content-type": "application/xml; charset=utf-8" });
  });

  downloadRoutes(app, db, {
    filterOf: async (c) => {
      const f = await filterOf(c, ALL);
      return f.ok ? { ok: true, value: { filter: f.value.filter, retired: f.value.retired } } : f;
    },
    origin: opts.origin,
    now: opts.now,
  });

  // The JSON API: the same loaders as the pages (field names: docs/api.md, /api/openapi.json).
  app.get("/api/openapi.json", reads([], asJson), (c) => c.json(openApiDocument(opts.origin())));

  app.get("/api/governments", reads(GOV_FILTERS, asJson), async (c) => {
    const f = await filterOf(c, GOV_FILTERS);
    if (!f.ok) return c.json({ error: f.message }, 400);
    const governments = await listGovernments(db, f.value.filter);
    return c.json({ governments: governments.map(governmentJson) });
  });

  app.get("/api/governments/:id", reads([], asJson), async (c) => {
    const r = await loadGovernment(db, c.req.param("id"), opts.now());
    if (!r.found)
      return c.json({ error: `no government with the id "${echo(c.req.param("id"))}"` }, 404);
    return c.json(governmentDetailJson(r.value.government, r.value.sources, r.value.leads));
  });

  app.get("/api/counties", reads([], asJson), async (c) =>
    c.json({ counties: await countySummaries(db) }),
  );

  app.get("/api/counties/:county", reads([], asJson), async (c) => {
    const county = await countyOf(c.req.param("county"));
    if (!county) return c.json({ error: `no county "${echo(c.req.param("county"))}"` }, 404);
    const governments = await listGovernments(db, { county: county.county });
    const [sources, notRead] = await Promise.all([
      sourcesOfGovernments(
        db,
        governments.map((g) => g.id),
      ),
      notReadOf(db, selection({ county: county.county }), opts.now()),
    ]);
    return c.json({
      county: county.county,
      governments: governments.map((g) => ({
        ...governmentJson(g),
        sources: (sources.get(g.id) ?? []).map(sourceJson),
      })),
      notRead: notReadJson(notRead),
    });
  });

  app.get("/api/sources/:id", reads([], asJson), async (c) => {
    const r = await loadSource(db, c.req.param("id"), opts.now());
    if (!r.found)
      return c.json({ error: `no source with the id "${echo(c.req.param("id"))}"` }, 404);
    return c.json(sourceDetailJson(r.value));
  });

  app.get("/api/new", reads(NEW_PARAMS, asJson), async (c) => {
    const built = await inWorker(c);
    if (built) return built;
    const f = await filterOf(c, ALL);
    if (!f.ok) return c.json({ error: f.message }, 400);
    const w = windowOf(c);
    if (!w.ok) return c.json({ error: w.message }, 400);
    const [d, notRead] = await Promise.all([newData(w.window, f.value.filter), f.value.notRead()]);
    return c.json({
      window: w.window.key,
      from: w.window.range.from,
      to: w.window.range.to,
      nights: d.nights.map((n) => ({ night: n.night, state: n.state.kind, text: n.state.text })),
      filter: filterJson(f.value.filter),
      retired: retiredJson(f.value.retired),
      notRead: notReadJson(notRead),
      counts: countsJson(d.counts),
      capped: d.capped,
      items: d.items.map(newRecordJson),
      // When each changed (changedRecords reads only records with a change).
      changed: d.changed.items.map((r) => ({
        ...newRecordJson(r),
        changedAt: r.changedAt ?? r.firstSeenAt,
      })),
      changedCapped: d.changed.capped,
    });
  });

  app.get("/api/search", reads(SEARCH_PARAMS, asJson), async (c) => {
    const s = await searchOf(c);
    if (!s.ok) return c.json({ error: s.message }, 400);
    if (s.words.terms.length === 0) return c.json({ error: noWordText(s.q) }, 400);
    const r = await search(db, s.words, s.filter, {
      page: s.page,
      perPage: SEARCH_PER_PAGE,
      others: SEARCH_OTHERS,
    });
    const past = pastTheEnd(s.page, r.recordTotal);
    if (past !== undefined) return c.json({ error: past }, 404);
    const notRead = await s.notRead();
    return c.json({
      q: s.q,
      page: s.page,
      perPage: SEARCH_PER_PAGE,
      ...searchPages(r.recordTotal),
      retired: retiredJson(s.retired),
      notRead: notReadJson(notRead),
      recordTotal: r.recordTotal,
      governments: r.governments.map(governmentJson),
      sources: r.sources.map((x) => ({ ...sourceJson(x), governmentName: x.governmentName })),
      records: r.records.map(newRecordJson),
    });
  });

  // Under /api/ every answer is JSON, a wrong method or an unknown address too.
  const apiGet = getOnly(app);
  app.all("/api/*", (c) => {
    const m = c.req.method;
    if (m !== "GET" && m !== "HEAD" && apiGet(c.req.path)) {
      c.header("Allow", ALLOW);
      return c.json(
        { error: `${m} is not allowed on ${echo(c.req.path)}: it answers ${ALLOW}` },
        405,
      );
    }
    return c.json({ error: `no API route ${m} ${echo(c.req.path)}` }, 404);
  });

  return app;
}
