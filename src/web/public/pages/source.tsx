import type { FC } from "hono/jsx";
import type { WayChoice } from "../../../night/types.js";
import { Layout } from "../../layout.js";
import type { GovernmentSummary, RecordItem, SourceSummary } from "../data/directory.js";
import type { Outcome, ReadStatus } from "../data/source-state.js";
import { dateEt, nightShort, outcomeLabel, recordsLabel } from "../format.js";
import { ExternalLink, OutcomeText, ReadBadge, RecordTitle, WhenText } from "./parts.js";

export interface SourcePageData {
  source: SourceSummary;
  government?: GovernmentSummary;
  status: ReadStatus;
  /** The nights that ran, newest first, with this source's outcome where it was checked. */
  nights: { night: string; outcome?: Outcome }[];
  records: RecordItem[];
  recordsShown: number;
}

/** P4: which way in the last night used and why better ones were passed over. */
const WayText: FC<{ way?: WayChoice; night?: string }> = ({ way, night }) => {
  if (!way) return <span class="muted">not recorded</span>;
  return (
    <span class="way">
      {way.used ? (
        <>
          {way.used.access}
          {way.used.platform ? ` (${way.used.platform})` : ""}: <ExternalLink url={way.used.url} />
        </>
      ) : (
        `none worked${night ? ` the night of ${nightShort(night)}` : ""}`
      )}
      {way.skipped.length > 0 ? (
        <ul class="small skipped">
          {way.skipped.map((s) => (
            <li>
              passed over {s.access}: {s.why}
            </li>
          ))}
        </ul>
      ) : null}
    </span>
  );
};

/** P23: each night's answer, a no with its reason and evidence; a night not checked says so. */
const NightCells: FC<{ nights: SourcePageData["nights"] }> = ({ nights }) => (
  <ol class="nights" aria-label="The last nights, newest first">
    {nights.map(({ night, outcome }) => {
      if (!outcome)
        return (
          <li class="tone-none" data-night={night}>
            <b>{nightShort(night)}</b>not checked
          </li>
        );
      const l = outcomeLabel(outcome.outcome);
      return (
        <li
          class={`tone-${l.tone}`}
          data-night={night}
          data-outcome={outcome.outcome}
          title={outcome.reason ?? l.text}
        >
          <b>{nightShort(night)}</b>
          {l.text}
          {outcome.newRecords > 0 ? <span class="small"> · {outcome.newRecords} new</span> : null}
        </li>
      );
    })}
  </ol>
);

export const SourcePage: FC<{ d: SourcePageData }> = ({ d }) => {
  const s = d.source;
  const govName = d.government?.name ?? s.governmentId;
  const title = `${s.name ?? recordsLabel(s.records)} · ${govName}`;
  const last = d.nights.find((n) => n.outcome)?.outcome;
  const lastTone = last ? outcomeLabel(last.outcome).tone : undefined;
  return (
    <Layout title={title}>
      <h1>
        {s.name ?? recordsLabel(s.records)} <span class="muted">· {govName}</span>
      </h1>
      {s.retiredAt ? (
        <p class="retired">
          Retired: this page left the directory's catalog on <WhenText iso={s.retiredAt} />. It is
          no longer checked; what was noted before is kept below.
        </p>
      ) : null}
      <dl class="facts">
        <dt>Government</dt>
        <dd>
          <a href={`/governments/${encodeURIComponent(s.governmentId)}`}>{govName}</a>
          {d.government?.county ? <span class="muted"> · {d.government.county} County</span> : null}
        </dd>
        <dt>Records</dt>
        <dd>{s.records}</dd>
        <dt>Public page</dt>
        <dd class="public-link">
          <ExternalLink url={s.url} />
        </dd>
        <dt>Status</dt>
        <dd class="read-status">
          <ReadBadge status={d.status} />
          {d.status.since ? (
            <span class="muted small">
              {" "}
              since <WhenText iso={d.status.since} />
            </span>
          ) : null}
          {!d.status.reading ? (
            <p class="small">
              A person decided not to read this page for now; it stays listed here with its link.
            </p>
          ) : null}
        </dd>
        <dt>Way in</dt>
        <dd>
          <WayText {...(last?.way ? { way: last.way, night: last.night } : {})} />
        </dd>
      </dl>
      {last && lastTone === "no" ? (
        <section class="last-no notice">
          <strong>The night of {nightShort(last.night)}, the site said no.</strong>{" "}
          <OutcomeText o={last} />
          <p class="small">
            The page stays in the next night's check, asked the same way and at the same pace.
          </p>
        </section>
      ) : null}
      <h2>The last nights</h2>
      {d.nights.length === 0 ? (
        <p class="muted">No night has been checked yet.</p>
      ) : (
        <>
          <NightCells nights={d.nights} />
          {last && lastTone !== "no" ? (
            <p class="last-outcome small">
              Last checked the night of {nightShort(last.night)}: <OutcomeText o={last} />
            </p>
          ) : null}
        </>
      )}
      <h2>Newest records</h2>
      {d.records.length === 0 ? (
        <p class="muted">No records noted yet.</p>
      ) : (
        <table class="records">
          <thead>
            <tr>
              <th>Record</th>
              <th>Date</th>
              <th>Kind</th>
              <th>First seen</th>
            </tr>
          </thead>
          <tbody>
            {d.records.map((r) => (
              <tr>
                <td>
                  <RecordTitle title={r.title} url={r.url} />
                </td>
                <td class="nowrap">{dateEt(r.date)}</td>
                <td>{recordsLabel(r.kind ?? s.records)}</td>
                <td class="small">{nightShort(r.firstSeenNight)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p class="small">
        <a href={`/api/sources/${encodeURIComponent(s.id)}`}>This page as JSON</a>
      </p>
    </Layout>
  );
};
