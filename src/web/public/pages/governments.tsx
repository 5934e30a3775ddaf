import type { FC } from "hono/jsx";
import { Layout } from "../../layout.js";
import type { GovernmentSummary, SourceSummary } from "../data/directory.js";
import type { Outcome, ReadStatus } from "../data/source-state.js";
import { describeFilter, type Filter } from "../filters.js";
import { nightShort, recordsLabel } from "../format.js";
import { ExternalLink, FilterForm, KindLabel, OutcomeText, ReadBadge } from "./parts.js";

const NO_COUNTY = "Statewide and other";

/** Governments grouped by county (those without one — state agencies — last). */
export const GovernmentsPage: FC<{
  governments: readonly GovernmentSummary[];
  filter: Filter;
  counties: readonly string[];
}> = ({ governments, filter, counties }) => {
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
      <h1>Governments{scope ? <span class="muted">: {scope}</span> : null}</h1>
      <FilterForm action="/governments" filter={filter} counties={counties} />
      <p class="muted">
        {governments.length} governments{scope ? ` (${scope})` : ""}.
      </p>
      {[...groups].map(([county, list]) => (
        <section class="county">
          <h2>{county === NO_COUNTY ? county : `${county} County`}</h2>
          <table>
            <thead>
              <tr>
                <th>Government</th>
                <th>Kind</th>
                <th>Record pages</th>
              </tr>
            </thead>
            <tbody>
              {list.map((g) => (
                <tr>
                  <td>
                    <a href={`/governments/${encodeURIComponent(g.id)}`}>{g.name}</a>
                  </td>
                  <td>{KindLabel(g.kind)}</td>
                  <td>{g.sources}</td>
                </tr>
              ))}
            </tbody>
          </table>
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

/** P26: every current source is listed, read or not, with its link and the reason. */
export const GovernmentPage: FC<{
  government: GovernmentSummary;
  sources: readonly SourceLine[];
}> = ({ government: g, sources }) => (
  <Layout title={g.name}>
    <h1>{g.name}</h1>
    {g.retiredAt ? (
      <p class="retired">This government is no longer in the directory's catalog.</p>
    ) : null}
    <dl class="facts">
      <dt>Kind</dt>
      <dd>{KindLabel(g.kind)}</dd>
      <dt>County</dt>
      <dd>
        {g.county ? (
          <a href={`/governments?county=${encodeURIComponent(g.county)}`}>{g.county}</a>
        ) : (
          "—"
        )}
      </dd>
      <dt>Website</dt>
      <dd>{g.website ? <ExternalLink url={g.website} /> : "—"}</dd>
    </dl>
    <h2>Where it posts records</h2>
    {sources.length === 0 ? (
      <p class="muted">No record pages are listed for this government yet.</p>
    ) : (
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
                  {s.name ?? recordsLabel(s.records)}
                </a>
                {s.name ? <span class="muted small"> · {s.records}</span> : null}
              </td>
              <td class="small">
                <ExternalLink url={s.url} />
              </td>
              <td>
                <ReadBadge status={status} />
              </td>
              <td>
                {last ? (
                  <>
                    <span class="muted small">{nightShort(last.night)}: </span>
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
    )}
  </Layout>
);
