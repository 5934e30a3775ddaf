/**
 * A filter that names what has left the directory's catalog: a retired record page, a page of a
 * retired government, or a retired government. The lists, counts, feeds, calendar, downloads
 * and search show the current catalog, so they hold none of its records; those are kept (docs/
 * catalog.md: a retired source keeps its nights, records and request log) and listed on its own
 * page, which still answers. Every answer with such a filter says so, with the date and that
 * page, never "no new records" (docs/api.md, `retired`). A record page whose id the catalog
 * renamed (P6) has no records left: they moved to the new id with the rest of its history, so
 * its answers say it was renamed and link the new id's page instead (`renamedTo`).
 */
import type { FC } from "hono/jsx";
import type { GovernmentSummary, SourceSummary } from "../../store/read/directory.js";
import type { FeedNotice } from "./feeds.js";
import { dateEt, isolated } from "./format.js";

export interface Retired {
  /** What left the catalog: the record page the filter names, or a government. */
  what: "source" | "government";
  /** Its id and name as the pages show it ("agendas of Village of Beta", "Village of Beta"). */
  id: string;
  name: string;
  retiredAt: string;
  /**
   * P6: the id the record page the filter names was renamed to (its records moved there); then
   * `page` is that id's page.
   */
  renamedTo?: string;
  /**
   * The page that keeps the filter's records: the record page's own when the filter names one
   * (its government retired or not), else the government's, which links to its record pages.
   */
  page: { kind: "source" | "government"; id: string; name: string };
}

/**
 * A record page's name as the pages give it: "Council agendas of Village of Test", each name
 * isolated (shown-text.ts `isolated`) when it holds a bidi control, so one left open in the
 * page's name cannot take " of " and the government's name with it.
 */
export const sourceName = (
  s: Pick<SourceSummary, "name" | "records" | "governmentId">,
  g: Pick<GovernmentSummary, "name"> | undefined,
): string => `${isolated(s.name ?? s.records)} of ${isolated(g?.name ?? s.governmentId)}`;

/**
 * Whether a filter's record page (with its own government) or government has left the catalog:
 * the record page first (its own date), then its government, then a government the filter
 * names.
 */
export function retiredOf(
  source: { source: SourceSummary; government: GovernmentSummary | undefined } | undefined,
  government: GovernmentSummary | undefined,
): Retired | undefined {
  if (source) {
    const { source: s, government: g } = source;
    const page = { kind: "source" as const, id: s.id, name: sourceName(s, g) };
    if (s.retiredAt !== null && s.renamedTo !== null) {
      const to = { kind: "source" as const, id: s.renamedTo, name: s.renamedTo };
      const renamed = { renamedTo: s.renamedTo, page: to };
      return { what: "source", id: s.id, name: page.name, retiredAt: s.retiredAt, ...renamed };
    }
    if (s.retiredAt !== null)
      return { what: "source", id: s.id, name: page.name, retiredAt: s.retiredAt, page };
    if (g?.retiredAt)
      return { what: "government", id: g.id, name: g.name, retiredAt: g.retiredAt, page };
  }
  if (government?.retiredAt) {
    const page = { kind: "government" as const, id: government.id, name: government.name };
    return {
      what: "government",
      id: government.id,
      name: government.name,
      retiredAt: government.retiredAt,
      page,
    };
  }
  return undefined;
}

/** The directory's page that keeps the records (`/sources/ID`, `/governments/ID`). */
export const retiredPage = (r: Retired): string =>
  `/${r.page.kind === "source" ? "sources" : "governments"}/${encodeURIComponent(r.page.id)}`;

/** That page's JSON twin (`/api/sources/ID`, `/api/governments/ID`). */
export const retiredApi = (r: Retired): string => `/api${retiredPage(r)}`;

/** The date it left, as the pages write a day ("Nov 6, 2026", Ohio's date). */
const day = (r: Retired) => dateEt(r.retiredAt);

/** Why the records are not in this list: the lists show the current catalog. */
const CURRENT =
  "the directory's lists, counts, feeds, downloads and search cover its current catalog";

/**
 * The same words as plain text (feeds, calendar, downloads): `link` is the page's address as the
 * answer gives it (absolute from the configured origin), `here` what this answer is ("listed
 * here", "in this feed", "in this file").
 */
export function retiredText(r: Retired, link: string, here: string): string {
  if (r.renamedTo !== undefined)
    return `The record page ${isolated(r.name)} was renamed on ${day(r)}: its id is now ${isolated(r.renamedTo)}, and its records moved with it. They are listed on its page, ${link}, and, while that id is in the catalog, in the directory's lists, feeds, downloads and search under it. They are not ${here}: this filter names the old id.`;
  const left =
    r.what === "source"
      ? `The record page ${isolated(r.name)} was retired from the directory on ${day(r)}.`
      : r.page.kind === "source"
        ? `The record page ${isolated(r.page.name)} left the directory with its government, ${isolated(r.name)}, retired on ${day(r)}.`
        : `The government ${isolated(r.name)} was retired from the directory on ${day(r)}.`;
  const kept =
    r.page.kind === "source"
      ? `Its records are kept and listed on its own page, ${link}`
      : `Its records are kept: its own page, ${link}, links to each of its record pages, which list them`;
  return `${left} ${kept}. They are not ${here}: ${CURRENT}.`;
}

/** The notice on a page (`/new`, `/search`): the same words, the page linked. */
export const RetiredNotice: FC<{ r: Retired; here: string; id?: string }> = ({ r, here, id }) => {
  const when = <time datetime={r.retiredAt}>{day(r)}</time>;
  const page = retiredPage(r);
  if (r.renamedTo !== undefined)
    return (
      <p
        class="notice retired renamed"
        id={id ?? "retired-scope"}
        data-retired={r.what}
        data-renamed-to={r.renamedTo}
      >
        The record page <bdi>{r.name}</bdi> was renamed on {when}: its id is now{" "}
        <bdi>{r.renamedTo}</bdi>, and its records moved with it. They are listed on{" "}
        <a href={page}>its page</a>, and, while that id is in the catalog, in the directory's lists,
        feeds, downloads and search under it. They are not {here}: this filter names the old id.
      </p>
    );
  return (
    <p class="notice retired" id={id ?? "retired-scope"} data-retired={r.what}>
      {r.what === "source" ? (
        <>
          The record page <bdi>{r.name}</bdi> was retired from the directory on {when}.
        </>
      ) : r.page.kind === "source" ? (
        <>
          The record page <bdi>{r.page.name}</bdi> left the directory with its government,{" "}
          <bdi>{r.name}</bdi>, retired on {when}.
        </>
      ) : (
        <>
          The government <bdi>{r.name}</bdi> was retired from the directory on {when}.
        </>
      )}{" "}
      {r.page.kind === "source" ? (
        <>
          Its records are kept and listed on <a href={page}>its own page</a>.
        </>
      ) : (
        <>
          Its records are kept: <a href={page}>its own page</a> links to each of its record pages,
          which list them.
        </>
      )}{" "}
      They are not {here}: {CURRENT}.
    </p>
  );
};

/**
 * The one item a feed with such a filter holds: a reader shows it, where a feed's description
 * goes unread. Its id names what was retired and when, and the page the feed's filter names
 * (`urn:new-on-record:retired:source:ID:AT`, `…:government:ID:AT:source:PAGE` for a record page of
 * a retired government), never a record's, the same in every format: a page retired again after
 * it was put back is a new item, and each record page of a retired government has its own. It
 * links to the page that keeps the records.
 */
export function retiredFeedItem(r: Retired, origin: string, here: string): FeedNotice {
  const link = `${origin}${retiredPage(r)}`;
  return {
    id: `urn:new-on-record:retired:${r.what}:${encodeURIComponent(r.id)}:${encodeURIComponent(r.retiredAt)}${
      r.what === "government" && r.page.kind === "source"
        ? `:source:${encodeURIComponent(r.page.id)}`
        : ""
    }`,
    title:
      r.renamedTo !== undefined
        ? `Renamed: ${isolated(r.name)}`
        : `Retired from the directory: ${isolated(r.name)}`,
    text: retiredText(r, link, here),
    link,
    at: new Date(r.retiredAt),
  };
}
