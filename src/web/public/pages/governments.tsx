import type { FC } from "hono/jsx";
import type {
  GovernmentSummary,
  LeadSummary,
  SourceSummary,
} from "../../../store/read/directory.js";
import { Layout, Wide } from "../../layout.js";
import { describeFilter, type Filter } from "../filters.js";
import {
  countOf,
  countyHref,
  evidenceParts,
  httpHref,
  nightShort,
  recordsLabel,
} from "../format.js";
import { LISTED_HERE, type NotRead, NotReadNotice, type NotReadPage } from "../not-read.js";
import type { Outcome, ReadStatus } from "../state.js";
import {
  ExternalLink,
  FeedHead,
  FeedLinks,
  FilterForm,
  KindLabel,
  OutcomeText,
  ReadBadge,
  Scope,
  WhenText,
} from "./parts.js";

/**
 * A government's kinds of records, each a link to the page where it posts them: from a county's
 * list, "bids" is one click away (home → county → bids). P26: a page not read says so beside its
 * link, with why (`notRead`, by page id).
 */
export const RecordKindLinks: FC<{
  sources: readonly SourceSummary[];
  notRead?: ReadonlyMap<string, NotReadPage>;
}> = ({ sources, notRead }) =>
  sources.length === 0 ? (
    <span class="muted small">none listed now</span>
  ) : (
    <ul class="kinds">
      {sources.map((s) => (
        <li>
          <a href={`/sources/${encodeURIComponent(s.id)}`} data-records={s.records}>
            {recordsLabel(s.records)}
          </a>
          {s.name ? (
            <span class="muted small">
              {" "}
              (<bdi>{s.name}</bdi>)
            </span>
          ) : null}
          {notRead?.has(s.id) ? (
            <span class="not-read-page">
              {" "}
              <span class="status tone-no">not read</span>{" "}
              <span class="reason">{notRead.get(s.id)?.reason}</span>
            </span>
          ) : null}
        </li>
      ))}
    </ul>
  );

/** Governments with their kinds of records, as on the county page and /governments. */
export const GovernmentTable: FC<{
  governments: readonly GovernmentSummary[];
  sources: ReadonlyMap<string, readonly SourceSummary[]>;
  notRead?: NotRead | undefined;
}> = ({ governments, sources, notRead }) => {
  const off = new Map((notRead?.pages ?? []).map((p) => [p.id, p]));
  return (
    <Wide>
      <table class="governments">
        <thead>
          <tr>
            <th>Government</th>
            <th>Kind</th>
            <th>Records it posts</th>
          </tr>
        </thead>
        <tbody>
          {governments.map((g) => (
            <tr id={`gov-${g.id}`}>
              <td>
                <a href={`/governments/${encodeURIComponent(g.id)}`}>
                  <bdi>{g.name}</bdi>
                </a>
              </td>
              <td>{KindLabel(g.kind)}</td>
              <td>
                <RecordKindLinks sources={sources.get(g.id) ?? []} notRead={off} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Wide>
  );
};

/**
 * How many of a county's governments the directory lists, and how many of them post records on
 * the pages listed (a government may have none listed now), in words that agree with the counts.
 */
export function countyCountText(county: string, total: number, posting: number): string {
  const where = `in ${county} County`;
  // One of Ohio's counties the directory lists no government in (yet, or no longer: "now" is
  // true of both): its page and feeds answer all the same, empty until something there is listed.
  if (total === 0)
    return `Nothing is listed in ${county} County now: the directory has no government there. Its feeds below stay empty until one is listed.`;
  if (posting === total) {
    return `${countOf(total, "government")} ${where} ${total === 1 ? "posts" : "post"} records on these pages. Follow a kind of records by opening it.`;
  }
  const listed = `${countOf(total, "government")} ${where} ${total === 1 ? "is" : "are"} listed`;
  if (posting === 0) {
    // "now": true of governments never given a record page and of those whose pages all left
    // the catalog alike, as each one's row below says ("none listed now").
    return `${listed}; ${total === 1 ? "it has no record page" : "none has a record page"} listed now.`;
  }
  return `${listed}; ${posting} of them ${posting === 1 ? "posts" : "post"} records on these pages. Follow a kind of records by opening it.`;
}

/** Where the county's name goes in its count line (a catalog text holds no control character). */
const PLACE = "\u0000";

/** A county: its governments and where each posts which records; its feeds and calendar. */
export const CountyPage: FC<{
  county: string;
  governments: readonly GovernmentSummary[];
  sources: ReadonlyMap<string, readonly SourceSummary[]>;
  /** P26: the county's record pages not read (not-read.tsx): said above its list, each row too. */
  notRead?: NotRead | undefined;
}> = ({ county, governments, sources, notRead }) => {
  const q = `?county=${encodeURIComponent(county)}`;
  const posting = governments.filter((g) => (sources.get(g.id)?.length ?? 0) > 0).length;
  return (
    <Layout title={`${county} County`} head={<FeedHead path="/new" query={q} />}>
      <h1>
        <bdi>{county}</bdi> County
      </h1>
      <p>
        <span class="county-count">
          {countyCountText(PLACE, governments.length, posting)
            .split(PLACE)
            .map((text, i) => (i === 0 ? text : [<bdi>{county}</bdi>, text]))}
        </span>{" "}
        <a href={`/new${q}`}>
          New in <bdi>{county}</bdi> County
        </a>{" "}
        · <a href={`/meetings.ics${q}`}>Upcoming meetings (iCalendar)</a>
      </p>
      <FeedLinks
        path="/new"
        query={q}
        what={
          <>
            New records in <bdi>{county}</bdi> County
          </>
        }
        api={`/api/counties/${encodeURIComponent(county)}`}
      />
      {notRead ? <NotReadNotice n={notRead} here={LISTED_HERE} /> : null}
      {governments.length > 0 ? (
        <GovernmentTable governments={governments} sources={sources} notRead={notRead} />
      ) : null}
    </Layout>
  );
};

const NO_COUNTY = "Statewide and other";

/**
 * The heading of the governments without a county: "Statewide and other" when each is a state
 * agency or another body; a city, village, township or district whose county the catalog does
 * not give (the shipped catalog leaves five empty rather than guess) is not statewide.
 */
const noCountyHeading = (list: readonly GovernmentSummary[]) =>
  list.every((g) => g.kind === "state-agency" || g.kind === "other")
    ? NO_COUNTY
    : "No county listed";

/** Governments grouped by county (those without one, most of them state agencies, last). */
export const GovernmentsPage: FC<{
  governments: readonly GovernmentSummary[];
  sources: ReadonlyMap<string, readonly SourceSummary[]>;
  filter: Filter;
  counties: readonly string[];
  /** P26: the selection's record pages not read: said above the list, each row too. */
  notRead?: NotRead | undefined;
}> = ({ governments, sources, filter, counties, notRead }) => {
  const groups = new Map<string, GovernmentSummary[]>();
  for (const g of governments) {
    const key = g.county ?? NO_COUNTY;
    const list = groups.get(key) ?? [];
    list.push(g);
    groups.set(key, list);
  }
  const scope = describeFilter(filter);
  return (
    <Layout title={`Governments${scope ? `: ${scope}` : ""}`}>
      <h1>
        Governments
        <Scope text={scope} />
      </h1>
      <FilterForm action="/governments" filter={filter} counties={counties} />
      <p class="muted">
        {countOf(governments.length, "government")}
        {scope ? (
          <>
            {" "}
            (<bdi>{scope}</bdi>)
          </>
        ) : null}
        .
      </p>
      {notRead ? <NotReadNotice n={notRead} here={LISTED_HERE} /> : null}
      {[...groups].map(([county, list]) => (
        <section class="county">
          <h2>
            {county === NO_COUNTY ? (
              noCountyHeading(list)
            ) : (
              <a href={countyHref(county)}>
                <bdi>{county}</bdi> County
              </a>
            )}
          </h2>
          <GovernmentTable governments={list} sources={sources} notRead={notRead} />
        </section>
      ))}
    </Layout>
  );
};

export interface SourceLine {
  source: SourceSummary;
  status: ReadStatus;
  last?: Outcome;
}

/** Where a catalog entry was seen: each piece linked when it can be opened. */
const Evidence: FC<{ evidence: string | null }> = ({ evidence }) => {
  const parts = evidenceParts(evidence);
  if (parts.length === 0) return <span class="muted">—</span>;
  return (
    <ul class="evidence">
      {parts.map((p) => (
        <li>
          {p.href ? (
            <a href={p.href} rel="nofollow noopener">
              {p.text}
            </a>
          ) : (
            <span>{p.text}</span>
          )}
        </li>
      ))}
    </ul>
  );
};

/**
 * Record pages the catalog lists as seen but not confirmed (its leads): never read by the
 * checker, shown so nothing seen is lost, each with its address, why it is not read, and where
 * it was seen. An address without a scheme, or a template, is shown as text, never linked.
 */
export const LeadTable: FC<{ leads: readonly LeadSummary[] }> = ({ leads }) => (
  <section id="leads">
    <h2>Record pages not yet confirmed</h2>
    <p class="small">
      Seen in public material but <strong>not yet confirmed</strong>: the checker does not read
      these pages yet (each says why), so nothing shows whether records are there. Listed so that
      nothing seen is lost. The record pages above are the ones the checker reads, unless their
      status says otherwise; each one's page shows what its nights found.
    </p>
    <Wide>
      <table class="leads">
        <thead>
          <tr>
            <th>Records</th>
            <th>Page</th>
            <th>Why it is not read yet</th>
            <th>Seen in</th>
          </tr>
        </thead>
        <tbody>
          {leads.map((l) => {
            const href = httpHref(l.url);
            return (
              <tr class="lead" data-confirmed="false">
                <td>
                  {recordsLabel(l.records)} <span class="status tone-none">not yet confirmed</span>
                </td>
                <td class="small">
                  {href ? (
                    <a href={href} rel="nofollow noopener">
                      {l.url}
                    </a>
                  ) : (
                    <code>{l.url}</code>
                  )}
                  {l.platform ? <span class="muted"> · {l.platform}</span> : null}
                </td>
                <td class="small">{l.why}</td>
                <td class="small">
                  <Evidence evidence={l.evidence} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </Wide>
  </section>
);

/**
 * P26: every current source is listed, read or not, with its link and the reason. A government
 * that left the catalog lists the record pages it had (retired with it), each page keeping its
 * records, and offers no feed or calendar: it is in none.
 */
export const GovernmentPage: FC<{
  government: GovernmentSummary;
  sources: readonly SourceLine[];
  leads?: readonly LeadSummary[];
  /** The night key of now: a night of another year is written with its year (nightShort). */
  today: string;
}> = ({ government: g, sources, leads = [], today }) => (
  <Layout
    title={g.name}
    head={
      g.retiredAt ? undefined : (
        <FeedHead path="/new" query={`?government=${encodeURIComponent(g.id)}`} />
      )
    }
  >
    <h1>
      <bdi>{g.name}</bdi>
    </h1>
    {g.retiredAt ? (
      <p class="retired">
        Retired: this government left the directory's catalog on <WhenText iso={g.retiredAt} />. Its
        record pages are no longer checked; each keeps what was noted from it, linked below, but its
        records are no longer in the lists and feeds of what is new, nor in search or the downloads.
      </p>
    ) : null}
    <dl class="facts">
      <dt>Kind</dt>
      <dd>{KindLabel(g.kind)}</dd>
      <dt>County</dt>
      <dd>
        {g.county ? (
          <a href={countyHref(g.county)}>
            <bdi>{g.county}</bdi>
          </a>
        ) : (
          "—"
        )}
      </dd>
      <dt>Website</dt>
      <dd>{g.website ? <ExternalLink url={g.website} /> : "—"}</dd>
    </dl>
    {g.retiredAt ? null : (
      <>
        <FeedLinks
          path="/new"
          query={`?government=${encodeURIComponent(g.id)}`}
          what="New records of this government"
        />
        <p class="small">
          <a href={`/meetings.ics?government=${encodeURIComponent(g.id)}`}>
            Upcoming meetings (iCalendar)
          </a>
        </p>
      </>
    )}
    <h2>{g.retiredAt ? "Where it posted records" : "Where it posts records"}</h2>
    {sources.length === 0 ? (
      <p class="muted">
        {g.retiredAt
          ? "No record pages were listed for this government."
          : // True of one never given a page and of one whose pages all left the catalog alike.
            "No record pages are listed for this government now."}
      </p>
    ) : (
      <Wide>
        <table class="sources">
          <thead>
            <tr>
              <th>Records</th>
              <th>Page</th>
              <th>Status</th>
              <th>Last night</th>
            </tr>
          </thead>
          <tbody>
            {sources.map(({ source: s, status, last }) => (
              <tr id={`source-${s.id}`}>
                <td>
                  <a href={`/sources/${encodeURIComponent(s.id)}`}>
                    {s.name ? <bdi>{s.name}</bdi> : recordsLabel(s.records)}
                  </a>
                  {s.name ? <span class="muted small"> · {s.records}</span> : null}
                </td>
                <td class="small">
                  <ExternalLink url={s.url} />
                  {s.access === "api" ? (
                    <span class="muted api-note"> (the site's API, for programs)</span>
                  ) : null}
                </td>
                <td>
                  {s.retiredAt ? (
                    <span class="status tone-none">retired</span>
                  ) : (
                    <ReadBadge status={status} />
                  )}
                </td>
                <td>
                  {last ? (
                    <>
                      <span class="muted small">{nightShort(last.night, today)}: </span>
                      <OutcomeText o={last} />
                    </>
                  ) : (
                    <span class="muted">not checked yet</span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </Wide>
    )}
    {leads.length > 0 ? <LeadTable leads={leads} /> : null}
  </Layout>
);
