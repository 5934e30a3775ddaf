import type { FC } from "hono/jsx";
import type { SearchResult } from "../../../store/read/search.js";
import { Layout, Wide } from "../../layout.js";
import { echo } from "../echo.js";
import type { Filter } from "../filters.js";
import { countOf, countyHref, recordsLabel } from "../format.js";
import { type NotRead, NotReadNotice, SEARCH_HERE } from "../not-read.js";
import { type Retired, RetiredNotice } from "../retired.js";
import { SearchBox } from "./home.js";
import { NewList } from "./new.js";
import { FeedHead, FeedLinks, FilterForm, KindLabel, Scope } from "./parts.js";

/**
 * Why a search has nothing to look for: no `q`, or a `q` without a word of letters or digits
 * (only emoji, symbols or punctuation, which the search does not index). The `q` said back is
 * echoed (echo.ts): a `q` of direction marks alone (U+202E, U+200F) is written as their
 * percent-escapes, on the page, in the API's 400 and in a feed's plain text alike.
 */
export function noWordText(q: string, name = "q= "): string {
  return q.trim() === ""
    ? `${name}needs a word to find.`
    : `${name}"${echo(q)}" has no word to find: a search matches words of letters and digits, and emoji, symbols and punctuation are not indexed.`;
}

export const SearchPage: FC<{
  q: string;
  result: SearchResult | undefined;
  page: number;
  /** The pages that can be asked for (at most 50: routes.tsx `searchPages`). */
  pages: number;
  /** More records match than those pages list. */
  capped: boolean;
  /** How many records those pages list at most (the best ones). */
  listed: number;
  /** The query string of this search without the page (`?q=…`). */
  query: string;
  /** The filter names a record page or government that left the catalog: its records are not searched. */
  retired?: Retired | undefined;
  /** P26: the filter's record pages not read (not-read.tsx): said above the results. */
  notRead?: NotRead | undefined;
  /** The filter in words ("Summit County, cities"), empty for none. */
  scope?: string;
  /** The filter's parameters, kept by a search made anew from this page. */
  keep?: Readonly<Record<string, string | undefined>>;
  /** The filter as checked, and the counties to offer: a search is narrowed from its own page. */
  filter?: Filter;
  counties?: readonly string[];
}> = ({
  q,
  result,
  page,
  pages,
  capped,
  listed,
  query,
  retired,
  notRead,
  scope = "",
  keep = {},
  filter = {},
  counties = [],
}) => {
  return (
    <Layout
      title={q ? `Search: ${q}${page > 1 ? ` (page ${page} of ${pages})` : ""}` : "Search"}
      head={q && !retired ? <FeedHead path="/search" query={query} /> : undefined}
    >
      <h1>
        Search
        <Scope text={q} />
      </h1>
      {scope ? (
        <p class="search-scope">
          Only in: <bdi>{scope}</bdi> (
          <a href={`/search?${new URLSearchParams({ q })}`}>search everywhere</a>)
        </p>
      ) : null}
      <SearchBox q={q} keep={keep} />
      {q ? (
        <FilterForm
          action="/search"
          filter={filter}
          counties={counties}
          records
          keep={{ q, government: filter.government, source: filter.source }}
        />
      ) : null}
      {retired && !result ? <RetiredNotice r={retired} here="searched here" /> : null}
      {notRead && !retired ? <NotReadNotice n={notRead} here={SEARCH_HERE} /> : null}
      {!result ? (
        q ? (
          <p class="muted no-word">{noWordText(q, "")}</p>
        ) : (
          <p class="muted">
            Type a word or two: a government, a county, a kind of records or a title.
          </p>
        )
      ) : (
        <>
          {retired ? null : (
            <>
              <FeedLinks path="/search" query={query} what="New records that match, as they come" />
              <p class="small">
                This search, every match as ranked here: <a href={`/api/search${query}`}>API</a>
              </p>
            </>
          )}
          {result.governments.length > 0 ? (
            <section>
              <h2>Governments</h2>
              <ul class="found-governments">
                {result.governments.map((g) => (
                  <li>
                    <a href={`/governments/${encodeURIComponent(g.id)}`}>
                      <bdi>{g.name}</bdi>
                    </a>{" "}
                    <span class="muted small">
                      {KindLabel(g.kind)}
                      {g.county ? (
                        <>
                          {" "}
                          ·{" "}
                          <a href={countyHref(g.county)}>
                            <bdi>{g.county}</bdi> County
                          </a>
                        </>
                      ) : null}
                    </span>
                  </li>
                ))}
              </ul>
            </section>
          ) : null}
          {result.sources.length > 0 ? (
            <section>
              <h2>Record pages</h2>
              <ul class="found-sources">
                {result.sources.map((s) => (
                  <li>
                    <a href={`/sources/${encodeURIComponent(s.id)}`}>
                      {s.name ? <bdi>{s.name}</bdi> : recordsLabel(s.records)}
                    </a>{" "}
                    <span class="muted small">
                      {recordsLabel(s.records)} · <bdi>{s.governmentName}</bdi>
                    </span>
                  </li>
                ))}
              </ul>
            </section>
          ) : null}
          <h2>Records</h2>
          {retired ? (
            <RetiredNotice r={retired} here="searched here" />
          ) : (
            <p id="record-total">
              {result.recordTotal === 0 ? (
                <>
                  No record titles match
                  {scope ? (
                    <>
                      {" "}
                      in <bdi>{scope}</bdi>
                    </>
                  ) : null}
                  .
                </>
              ) : (
                <>
                  {countOf(result.recordTotal, "record")}{" "}
                  {result.recordTotal === 1 ? "matches" : "match"}
                  {scope ? (
                    <>
                      {" "}
                      in <bdi>{scope}</bdi>
                    </>
                  ) : null}
                  , best first; page {page} of {pages}.
                </>
              )}
            </p>
          )}
          {capped ? (
            <p class="notice" id="search-cut">
              Only the best {listed} are listed, on {pages} pages. To find the others, narrow the
              search with more words.
            </p>
          ) : null}
          <Wide>
            <NewList items={result.records} />
          </Wide>
          {pages > 1 ? (
            <nav class="pages" aria-label="Pages">
              {page > 1 ? (
                <a rel="prev" href={`/search${query}&page=${page - 1}`}>
                  Previous
                </a>
              ) : null}
              {page < pages ? (
                <a rel="next" href={`/search${query}&page=${page + 1}`}>
                  Next
                </a>
              ) : null}
            </nav>
          ) : null}
        </>
      )}
    </Layout>
  );
};
