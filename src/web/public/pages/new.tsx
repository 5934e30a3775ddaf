import type { FC } from "hono/jsx";
import type { NewCounts, NewItems, NewRecord } from "../../../store/read/new-records.js";
import { CHANGED_CAP, CHANGED_LOOK_BACK, NEW_CAP } from "../../../store/read/new-records.js";
import { Layout, Wide } from "../../layout.js";
import { type Filter, filterQuery } from "../filters.js";
import { countOf, dateEt, nightShort, ownKind, recordsLabel } from "../format.js";
import { type NotRead, NotReadNotice } from "../not-read.js";
import { type Retired, RetiredNotice } from "../retired.js";
import type { NewWindow, NightState } from "../windows.js";
import { FeedHead, FeedLinks, FilterForm, RecordTitle, Scope } from "./parts.js";

/** The list of new records, shared by /new, the home page and search. */
export const NewList: FC<{ items: readonly NewRecord[] }> = ({ items }) =>
  items.length === 0 ? null : (
    <Wide>
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
                <RecordTitle
                  title={r.title}
                  url={r.url}
                  fallback={`/sources/${encodeURIComponent(r.sourceId)}`}
                />
                {ownKind(r) ? (
                  <span class="muted small"> ({recordsLabel(ownKind(r) as string)})</span>
                ) : null}
              </td>
              <td class="nowrap">{dateEt(r.date)}</td>
              <td>
                <a href={`/governments/${encodeURIComponent(r.governmentId)}`}>
                  <bdi>{r.governmentName}</bdi>
                </a>
                {r.county ? (
                  <span class="muted small">
                    {" "}
                    · <bdi>{r.county}</bdi> County
                  </span>
                ) : null}
              </td>
              <td>
                <a href={`/sources/${encodeURIComponent(r.sourceId)}`}>
                  {r.sourceName ? <bdi>{r.sourceName}</bdi> : recordsLabel(r.sourceRecords)}
                </a>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Wide>
  );

export interface NewPageData {
  window: NewWindow;
  items: NewRecord[];
  capped: boolean;
  /**
   * P6: records new in the nights before the window that a night of it brought up to date
   * (retitled, redated, of another kind): never new again, in none of the counts.
   */
  changed: NewItems;
  counts: NewCounts;
  nights: { night: string; state: NightState }[];
  /** When the window holds nothing: the latest earlier night that did. */
  earlier?: { night: string; count: number };
}

/** The window links: since yesterday, 7 days, 30 days (and the chosen night). */
export const WindowLinks: FC<{ current: NewWindow; filter: Filter }> = ({ current, filter }) => {
  const base = filterQuery(filter);
  const withWindow = (w: string) => {
    const p = new URLSearchParams(base.slice(1));
    if (w !== "yesterday") p.set("window", w);
    const s = p.toString();
    return `/new${s ? `?${s}` : ""}`;
  };
  const items: [string, string][] = [
    ["yesterday", "Since yesterday"],
    ["7d", "Last 7 days"],
    ["30d", "Last 30 days"],
  ];
  return (
    <nav aria-label="Window">
      <ul class="windows">
        {items.map(([w, text]) => (
          <li>
            {current.key === w ? (
              <strong aria-current="page">{text}</strong>
            ) : (
              <a href={withWindow(w)}>{text}</a>
            )}
          </li>
        ))}
        <li>
          <form method="get" action="/new" class="inline">
            {Object.entries(filter).map(([k, v]) => (
              <input type="hidden" name={k} value={String(v)} />
            ))}
            <label>
              One night{" "}
              <input
                type="date"
                name="night"
                value={current.key === "night" ? current.range.from : ""}
              />
            </label>{" "}
            <button type="submit">Show</button>
          </form>
        </li>
      </ul>
    </nav>
  );
};

/**
 * Honest wording for the nights of the window: running, incomplete, did not run, not listed. A
 * finished night goes without saying, and so does one not started yet, unless no night of the
 * window has run (none has yet, or the window came before the first): then "nothing new" would
 * hide "never checked", so each night says why, as /api/new does.
 */
export const NightNotes: FC<{ nights: NewPageData["nights"] }> = ({ nights }) => {
  const noneRan = nights.every((n) => n.state.kind === "not-yet");
  const worth = nights.filter(
    (n) => n.state.kind !== "finished" && (n.state.kind !== "not-yet" || noneRan),
  );
  if (worth.length === 0) return null;
  return (
    <ul class="notice night-notes">
      {worth.map((n) => (
        <li data-night={n.night} data-state={n.state.kind}>
          {n.state.text}
        </li>
      ))}
    </ul>
  );
};

export const CountsTable: FC<{ counts: NewCounts; filter: Filter; window: NewWindow }> = ({
  counts,
  filter,
  window,
}) => {
  if (counts.total === 0) return null;
  const link = (extra: Record<string, string>) => {
    const p = new URLSearchParams(filterQuery({ ...filter, ...extra }).slice(1));
    for (const [k, v] of Object.entries(window.query)) p.set(k, v);
    return `/new?${p.toString()}`;
  };
  return (
    <details class="counts">
      <summary>{counts.total} new: by county and by kind of records</summary>
      <div class="table-wrap">
        <table class="by-county">
          <thead>
            <tr>
              <th>County</th>
              <th>New</th>
            </tr>
          </thead>
          <tbody>
            {counts.byCounty.map((c) => (
              <tr>
                <td>
                  {c.county ? (
                    <a href={link({ county: c.county })}>
                      <bdi>{c.county}</bdi>
                    </a>
                  ) : (
                    // Statewide bodies, and those whose county the catalog does not give.
                    "No county listed"
                  )}
                </td>
                <td>{c.count}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <table class="by-records">
          <thead>
            <tr>
              <th>Records</th>
              <th>New</th>
            </tr>
          </thead>
          <tbody>
            {counts.byRecords.map((c) => (
              <tr>
                <td>
                  <a href={link({ records: c.records })}>{recordsLabel(c.records)}</a>
                </td>
                <td>{c.count}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
};

/**
 * `retired`: the filter names a record page or government that left the catalog. The list holds
 * the current catalog only, so the page says where its records are kept instead of "no new
 * records", and offers no feed of it.
 */
export const NewPage: FC<{
  data: NewPageData;
  filter: Filter;
  scope: string;
  counties: readonly string[];
  retired?: Retired | undefined;
  /** P26: the filter names a record page that is not read (not-read.tsx): said above the list. */
  notRead?: NotRead | undefined;
}> = ({ data, filter, scope, counties, retired, notRead }) => {
  const p = new URLSearchParams(filterQuery(filter).slice(1));
  for (const [k, v] of Object.entries(data.window.query)) p.set(k, v);
  const q = p.toString() ? `?${p.toString()}` : "";
  return (
    <Layout
      title={`New on record ${data.window.label}${scope ? `: ${scope}` : ""}`}
      head={retired ? undefined : <FeedHead path="/new" query={q} />}
    >
      <h1>
        New on record {data.window.label}
        <Scope text={scope} />
      </h1>
      <WindowLinks current={data.window} filter={filter} />
      {notRead && !retired ? <NotReadNotice n={notRead} /> : null}
      {retired ? (
        <RetiredNotice r={retired} here="listed here" />
      ) : (
        <p class="window">
          {data.counts.total === 0
            ? `No new records ${data.window.label}`
            : `${countOf(data.counts.total, "new record")} ${data.window.label}`}
          {scope ? (
            <>
              {" "}
              (<bdi>{scope}</bdi>)
            </>
          ) : null}
          {data.counts.total === 0 ? "." : ", the last found first."}
          {data.counts.alreadyListed > 0
            ? ` ${alreadyListedText(data.counts.alreadyListed)}`
            : null}
          {data.earlier ? (
            <>
              {" "}
              The latest earlier night with new records is{" "}
              <a
                href={`/new?${new URLSearchParams({ ...flat(filter), night: data.earlier.night })}`}
              >
                the night of {nightShort(data.earlier.night, data.window.today)}
              </a>{" "}
              ({data.earlier.count}).
            </>
          ) : null}
        </p>
      )}
      <NightNotes nights={data.nights} />
      <FilterForm
        action="/new"
        filter={filter}
        counties={counties}
        records
        keep={{ government: filter.government, source: filter.source, ...data.window.query }}
      />
      {retired ? null : (
        <FeedLinks path="/new" query={q} what="Follow this list" api={`/api/new${q}`} />
      )}
      <CountsTable counts={data.counts} filter={filter} window={data.window} />
      {data.capped ? (
        <p class="notice">
          More than {NEW_CAP} records are new; the newest {NEW_CAP} are shown. Narrow the list by
          county or kind to see the rest.
        </p>
      ) : null}
      <NewList items={data.items} />
      {retired || data.changed.items.length === 0 ? null : (
        <section aria-labelledby="changed">
          <h2 id="changed">Changed {data.window.label}</h2>
          <p>
            {data.changed.items.length === 1
              ? "A record new on record"
              : `${countOf(data.changed.items.length, "record")} new on record`}{" "}
            in the {CHANGED_LOOK_BACK} nights before, which{" "}
            {data.changed.items.length === 1 ? "its list shows" : "their lists show"} retitled,
            redated or of another kind {data.window.label}, as{" "}
            {data.changed.items.length === 1 ? "it reads" : "they read"} now. Not new again, and not
            counted above.
            {data.changed.capped ? ` Only the latest ${CHANGED_CAP} changes are shown.` : null}
          </p>
          <NewList items={data.changed.items} />
        </section>
      )}
    </Layout>
  );
};

/** What the counts leave out: records first seen that were not new (migration 021). */
export function alreadyListedText(n: number): string {
  return n === 1
    ? "Not counted: 1 record that its page already listed when New on Record first read it (or that was on an older page of its list); it is not new, and is shown on its page."
    : `Not counted: ${countOf(n, "record")} that their pages already listed when New on Record first read them (or that were on older pages of their lists); they are not new, and are shown on their pages.`;
}

function flat(f: Filter): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(f)) if (typeof v === "string") out[k] = v;
  return out;
}
