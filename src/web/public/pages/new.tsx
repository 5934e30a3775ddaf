import type { FC } from "hono/jsx";
import { Layout } from "../../layout.js";
import type { NewOnRecord, NewRecord } from "../data/new-records.js";
import { NEW_CAP } from "../data/new-records.js";
import { describeFilter, type Filter, filterQuery } from "../filters.js";
import { dateEt, nightShort, recordsLabel, timeEt } from "../format.js";
import { FilterForm, RecordTitle } from "./parts.js";

/** The list of new records, shared by /new and the home page. */
export const NewList: FC<{ items: readonly NewRecord[] }> = ({ items }) =>
  items.length === 0 ? null : (
    <table class="new">
      <thead>
        <tr>
          <th>Record</th>
          <th>Date</th>
          <th>Government</th>
          <th>Records</th>
        </tr>
      </thead>
      <tbody>
        {items.map((r) => (
          <tr>
            <td>
              <RecordTitle title={r.title} url={r.url} />
            </td>
            <td class="nowrap">{dateEt(r.date)}</td>
            <td>
              <a href={`/governments/${encodeURIComponent(r.governmentId)}`}>{r.governmentName}</a>
              {r.county ? <span class="muted small"> · {r.county} County</span> : null}
            </td>
            <td>
              <a href={`/sources/${encodeURIComponent(r.sourceId)}`}>
                {r.sourceName ?? recordsLabel(r.sourceRecords)}
              </a>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );

export const NewPage: FC<{
  data: NewOnRecord;
  filter: Filter;
  counties: readonly string[];
}> = ({ data, filter, counties }) => {
  const q = filterQuery(filter);
  const scope = describeFilter(filter);
  return (
    <Layout
      title={`New on record${scope ? `: ${scope}` : ""}`}
      head={
        <>
          <link
            rel="alternate"
            type="application/atom+xml"
            title="New on record (Atom)"
            href={`/new.atom${q}`}
          />
          <link
            rel="alternate"
            type="application/rss+xml"
            title="New on record (RSS)"
            href={`/new.rss${q}`}
          />
          <link
            rel="alternate"
            type="application/feed+json"
            title="New on record (JSON Feed)"
            href={`/new.json${q}`}
          />
        </>
      }
    >
      <h1>New on record{scope ? <span class="muted">: {scope}</span> : null}</h1>
      {data.night ? (
        <p class="window">
          Records first seen on the latest night checked, the night of{" "}
          <strong>{nightShort(data.night.night)}</strong> (started {timeEt(data.night.startedAt)}
          {data.night.finishedAt
            ? `, finished ${timeEt(data.night.finishedAt)}`
            : ", still running"}
          ), across Ohio{scope ? `, ${scope}` : ""}. Newest first.
        </p>
      ) : (
        <p class="window">No night has been checked yet, so nothing is new on record.</p>
      )}
      <FilterForm action="/new" filter={filter} counties={counties} records />
      <p class="small">
        Follow this list: <a href={`/new.atom${q}`}>Atom</a> · <a href={`/new.rss${q}`}>RSS</a> ·{" "}
        <a href={`/new.json${q}`}>JSON Feed</a> · <a href={`/api/new${q}`}>API</a>
      </p>
      {data.capped ? (
        <p class="notice">
          More than {NEW_CAP} records are new; the newest {NEW_CAP} are shown. Narrow the list by
          county or kind to see the rest.
        </p>
      ) : null}
      {data.night && data.items.length === 0 ? <p class="muted">Nothing new matches.</p> : null}
      <NewList items={data.items} />
    </Layout>
  );
};
