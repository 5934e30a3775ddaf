import type { FC } from "hono/jsx";
import type { CountySummary, DirectoryCounts } from "../../../store/read/directory.js";
import { Layout } from "../../layout.js";
import { countOf, countyHref, nightShort } from "../format.js";
import { type NotRead, NotReadNotice } from "../not-read.js";
import { alreadyListedText, CountsTable, NewList, type NewPageData, NightNotes } from "./new.js";
import { FeedHead } from "./parts.js";

/** `keep`: a search's filter (county, kind, …), sent again so searching anew keeps it. */
export const SearchBox: FC<{ q?: string; keep?: Readonly<Record<string, string | undefined>> }> = ({
  q,
  keep = {},
}) => (
  <form class="search-big" method="get" action="/search">
    {Object.entries(keep).map(([name, value]) =>
      value ? <input type="hidden" name={name} value={value} /> : null,
    )}
    <label for="q">Search governments, record pages and record titles</label>
    <input id="q" type="search" name="q" value={q ?? ""} placeholder="e.g. bids Licking" />
    <button type="submit">Search</button>
  </form>
);

export const HomePage: FC<{
  counts: DirectoryCounts;
  latest: NewPageData;
  shown: number;
  counties: readonly CountySummary[];
  /** P26: the record pages not read anywhere (not-read.tsx), said under the newest, folded. */
  notRead?: NotRead | undefined;
}> = ({ counts, latest, shown, counties, notRead }) => (
  <Layout
    title="Ohio's public records, where they are posted"
    head={<FeedHead path="/new" query="" />}
  >
    <h1>Where Ohio's governments post public records</h1>
    <p>
      New on Record lists the pages where Ohio's counties, cities, villages, townships, school
      districts and other public bodies post agendas, minutes, bids, permits and notices. Each night
      a polite checker looks at those pages and notes what is new. We link to the records; we never
      open or copy them.
    </p>
    <SearchBox />
    <p class="counts">
      <strong>{counts.governments}</strong>{" "}
      {counts.governments === 1 ? "government" : "governments"}, <strong>{counts.sources}</strong>{" "}
      {counts.sources === 1 ? "record page" : "record pages"}, <strong>{counts.records}</strong>{" "}
      {counts.records === 1 ? "record" : "records"} noted so far.
    </p>
    <h2>New across Ohio {latest.window.label}</h2>
    <p class="muted">
      {latest.counts.total === 0
        ? `No new records ${latest.window.label}.`
        : `${countOf(latest.counts.total, "new record")} ${latest.window.label}${
            latest.counts.total > shown ? ` (the ${shown} found last shown)` : ""
          }.`}{" "}
      {latest.counts.alreadyListed > 0
        ? `${alreadyListedText(latest.counts.alreadyListed)} `
        : null}
      {latest.earlier ? (
        <>
          The latest earlier night with new records is{" "}
          <a href={`/new?night=${latest.earlier.night}`}>
            the night of {nightShort(latest.earlier.night, latest.window.today)}
          </a>{" "}
          ({latest.earlier.count}).{" "}
        </>
      ) : null}
      <a href="/new">All that is new on record</a> · <a href="/new?window=7d">last 7 days</a>
    </p>
    <NightNotes nights={latest.nights} />
    {notRead ? <NotReadNotice n={notRead} fold /> : null}
    <CountsTable counts={latest.counts} filter={{}} window={latest.window} />
    <NewList items={latest.items.slice(0, shown)} />
    <h2 id="counties">Counties</h2>
    {counties.length === 0 ? (
      <p class="muted">The directory is empty.</p>
    ) : (
      <ul class="counties">
        {counties.map((c) => (
          <li>
            <a href={countyHref(c.county)}>
              <bdi>{c.county}</bdi>
            </a>{" "}
            <span class="muted small">({c.governments})</span>
          </li>
        ))}
      </ul>
    )}
    <p>
      <a href="/governments">All governments</a> ·{" "}
      <a href="/governments?kind=state-agency">State agencies</a> ·{" "}
      <a href="/downloads">Downloads and API</a>
    </p>
  </Layout>
);
