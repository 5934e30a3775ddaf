/**
 * The query filters of the directory (`?county=&kind=&records=`), checked against what the
 * directory knows. A bad value is an expected outcome — a 400 page that says what was wrong
 * and what is accepted — never a crash or a silently empty list. And the one check of every
 * public route's query string (`reads`): a parameter the route does not read, or one given
 * twice, is refused the same way.
 */
import type { Context, MiddlewareHandler } from "hono";
import { isolated } from "../../policy/shown-text.js";
import { nearestCounty, OHIO_COUNTIES } from "../../sources/catalog/counties.js";
import { governmentKind, recordKind } from "../../sources/catalog/schema.js";
import type { GovernmentKind } from "../../sources/catalog/types.js";
import type { RecordKind } from "../../sources/record.js";
import { echo } from "./echo.js";

export const GOVERNMENT_KINDS: readonly GovernmentKind[] = governmentKind.options;
export const RECORD_KINDS: readonly RecordKind[] = recordKind.options;

export interface Filter {
  county?: string;
  kind?: GovernmentKind;
  records?: RecordKind;
  /** A government id or source id; the route checks that it exists (never silently ignored). */
  government?: string;
  source?: string;
}

export type FilterResult = { ok: true; filter: Filter } | { ok: false; message: string };

export interface FilterQuery {
  county?: string | undefined;
  kind?: string | undefined;
  records?: string | undefined;
  government?: string | undefined;
  source?: string | undefined;
}

/** Which filters a route accepts (`/governments` has no records kind). */
export type FilterKeys = readonly (keyof Filter)[];

export const ALL_FILTERS: FilterKeys = ["county", "kind", "records", "government", "source"];

/**
 * The county of `known` that `name` names: in any case, with or without " County" after it
 * ("Summit County", as the pages write it, is Summit), a run of spaces of any kind (two, a tab,
 * a no-break space pasted from a page) one space, as a search's `q` reads them.
 */
export function countyNamed(name: string, known: readonly string[]): string | undefined {
  const spaced = name.replace(/\s+/g, " ").trim();
  const named = (n: string) => known.find((c) => c.toLowerCase() === n.toLowerCase());
  return named(spaced) ?? named(spaced.replace(/ county$/i, ""));
}

/**
 * An empty value (an untouched form field) means "any". County names match case-insensitively,
 * with or without " County" after them.
 */
export function parseFilter(
  q: FilterQuery,
  knownCounties: readonly string[],
  keys: FilterKeys = ALL_FILTERS,
): FilterResult {
  const filter: Filter = {};
  const county = keys.includes("county") ? q.county?.trim() : undefined;
  if (county) {
    // Any of Ohio's counties, as any kind of government is: a county the directory lists none
    // in (yet, or no longer: its governments all retired) is a list with nothing in it, so a
    // reader's feed of it keeps answering. The directory's own are read too (the catalog checks
    // a government's county against the same list).
    const match = countyNamed(county, knownCounties) ?? countyNamed(county, OHIO_COUNTIES);
    if (!match) {
      const near = nearestCounty(county);
      return {
        ok: false,
        message: `Unknown county "${echo(county)}": not one of Ohio's 88 counties${near ? ` (did you mean "${near}"?)` : ""}. Those the directory lists governments in are on the governments page.`,
      };
    }
    filter.county = match;
  }
  const kind = keys.includes("kind") ? q.kind?.trim() : undefined;
  if (kind) {
    const k = GOVERNMENT_KINDS.find((x) => x === kind);
    if (!k) {
      return {
        ok: false,
        message: `Unknown kind of government "${echo(kind)}". Use one of: ${GOVERNMENT_KINDS.join(", ")}.`,
      };
    }
    filter.kind = k;
  }
  const records = keys.includes("records") ? q.records?.trim() : undefined;
  if (records) {
    const r = RECORD_KINDS.find((x) => x === records);
    if (!r) {
      return {
        ok: false,
        message: `Unknown kind of records "${echo(records)}". Use one of: ${RECORD_KINDS.join(", ")}.`,
      };
    }
    filter.records = r;
  }
  for (const key of ["government", "source"] as const) {
    const id = keys.includes(key) ? q[key]?.trim() : undefined;
    if (!id) continue;
    if (!/^[A-Za-z0-9._~-]{1,200}$/.test(id)) {
      return { ok: false, message: `"${echo(id)}" is not a ${key} id (letters, digits, - . _ ~).` };
    }
    filter[key] = id;
  }
  return { ok: true, filter };
}

/** The filter back as a query string ("" when empty), for feed links and API self links. */
export function filterQuery(f: Filter): string {
  const p = new URLSearchParams();
  if (f.county) p.set("county", f.county);
  if (f.kind) p.set("kind", f.kind);
  if (f.records) p.set("records", f.records);
  if (f.government) p.set("government", f.government);
  if (f.source) p.set("source", f.source);
  const s = p.toString();
  return s ? `?${s}` : "";
}

/** "in Franklin County, villages, agendas" — for titles of pages and feeds. */
export function describeFilter(f: Filter): string {
  const parts: string[] = [];
  if (f.county) parts.push(`${isolated(f.county)} County`);
  if (f.kind) parts.push(`${f.kind} governments`);
  if (f.records) parts.push(f.records);
  if (f.government) parts.push(`government ${f.government}`);
  if (f.source) parts.push(`source ${f.source}`);
  return parts.join(", ");
}

/**
 * The one check of a public address's query string, for every route of the directory (pages,
 * feeds, calendar, downloads, API): each parameter is one the route reads, and is given at most
 * once (every one of them holds a single value). Anything else is refused with a message that
 * names the parameter, never silently ignored or cut to its first value.
 */
export function queryProblem(
  params: URLSearchParams,
  reads: readonly string[],
): string | undefined {
  const names = [...params.keys()];
  const unknown = [...new Set(names.filter((k) => !reads.includes(k)))];
  if (unknown.length > 0) {
    return `Unknown query parameter${unknown.length > 1 ? "s" : ""} ${unknown.map((k) => `"${echo(k)}"`).join(", ")}; this address reads ${reads.length ? reads.join(", ") : "none"}.`;
  }
  const repeated = [...new Set(names.filter((k, i) => names.indexOf(k) !== i))];
  if (repeated.length > 0) {
    return `The query parameter${repeated.length > 1 ? "s" : ""} ${repeated.map((k) => `"${echo(k)}"`).join(", ")} ${repeated.length > 1 ? "are" : "is"} given more than once; give ${repeated.length > 1 ? "each" : "it"} once.`;
  }
  return undefined;
}

const decodes = (raw: string): string | undefined => {
  try {
    return decodeURIComponent(raw.replace(/\+/g, " "));
  } catch {
    return undefined;
  }
};

/** At most this much of an unreadable query text is said back. */
const SAID_BACK = 60;
const cut = (raw: string) => (raw.length > SAID_BACK ? `${raw.slice(0, SAID_BACK - 1)}…` : raw);

/**
 * A query string's parameter that cannot be read: its name or value is not percent-encoded UTF-8
 * (`q=%FF`). Such a value is refused (400), never read as the letters of its escapes nor with
 * U+FFFD put in for the bytes. `only`: the names that matter (a page drops the others anyway).
 */
export function unreadableQuery(search: string, only?: readonly string[]): string | undefined {
  for (const pair of search.replace(/^\?/, "").split("&")) {
    if (pair === "") continue;
    const eq = pair.indexOf("=");
    const rawName = eq < 0 ? pair : pair.slice(0, eq);
    const rawValue = eq < 0 ? "" : pair.slice(eq + 1);
    const name = decodes(rawName);
    if (name === undefined) {
      return `A query parameter's name ("${echo(cut(rawName))}") could not be read: it is not percent-encoded UTF-8 text.`;
    }
    if (only && !only.includes(name)) continue;
    if (decodes(rawValue) === undefined) {
      return `The query parameter "${echo(name)}" could not be read: "${echo(cut(rawValue))}" is not percent-encoded UTF-8 text.`;
    }
  }
  return undefined;
}

/**
 * A page's guard (HTML, for people): a parameter it does not read, such as the tracking tag a
 * shared link picks up on its way (`fbclid`, `utm_source`), sends the visitor to the same page
 * without it (302, the parameters it reads kept), so a link posted anywhere still opens; one it
 * reads given twice is refused by `refuse`, as `reads` does. Feeds, downloads and the API keep
 * `reads`: a program is told, never redirected.
 */
export function pageReads(
  params: readonly string[],
  refuse: (c: Context, message: string) => Response | Promise<Response>,
): MiddlewareHandler {
  return async (c, next) => {
    const url = new URL(c.req.url);
    const unreadable = unreadableQuery(url.search, params);
    if (unreadable !== undefined) return refuse(c, unreadable);
    const all = [...url.searchParams];
    if (all.some(([k]) => !params.includes(k))) {
      const kept = new URLSearchParams(all.filter(([k]) => params.includes(k))).toString();
      // One leading slash: never a "//host" a browser would read as another site.
      const path = `/${url.pathname.replace(/^\/+/, "")}`;
      return c.redirect(kept === "" ? path : `${path}?${kept}`, 302);
    }
    const problem = queryProblem(url.searchParams, params);
    if (problem !== undefined) return refuse(c, problem);
    return next();
  };
}

/**
 * A route's guard: the parameters it reads (`queryProblem`); a request with any other, or with
 * one repeated, is answered by `refuse` (a page, JSON or text, as the route speaks) before the
 * route runs.
 */
export function reads(
  params: readonly string[],
  refuse: (c: Context, message: string) => Response | Promise<Response>,
): MiddlewareHandler {
  return async (c, next) => {
    const url = new URL(c.req.url);
    const problem = unreadableQuery(url.search) ?? queryProblem(url.searchParams, params);
    if (problem !== undefined) return refuse(c, problem);
    return next();
  };
}
