/** Small pieces the public pages share: status badges, outcome text, record links, filters. */
import type { Child, FC } from "hono/jsx";
import type { Outcome, ReadStatus } from "../data/source-state.js";
import type { Filter } from "../filters.js";
import { GOVERNMENT_KINDS, RECORD_KINDS } from "../filters.js";
import { httpHref, KIND_LABELS, outcomeLabel, timeEt } from "../format.js";

/** P26: "not read" always comes with its reason and since when. */
export const ReadBadge: FC<{ status: ReadStatus }> = ({ status }) =>
  status.reading ? (
    <span class="status tone-yes">read</span>
  ) : (
    <span>
      <span class="status tone-no">not read</span> <span class="reason">{status.reason}</span>
    </span>
  );

/** P23: a night's no with its reason and the evidence (provider, vendor reference id). */
export const OutcomeText: FC<{ o: Outcome }> = ({ o }) => {
  const l = outcomeLabel(o.outcome);
  return (
    <span class="outcome">
      <span class={`status tone-${l.tone}`}>{l.text}</span>
      {o.reason ? <span class="reason"> {o.reason}</span> : null}
      {o.evidence ? <Evidence o={o} /> : null}
    </span>
  );
};

export const Evidence: FC<{ o: Outcome }> = ({ o }) =>
  o.evidence ? (
    <span class="evidence small">
      {" "}
      (by <span class="provider">{o.evidence.provider}</span>
      {o.evidence.reference ? (
        <>
          , reference <code class="reference">{o.evidence.reference}</code>
        </>
      ) : null}
      {o.status !== undefined ? `, HTTP ${o.status}` : ""})
    </span>
  ) : null;

export const WhenText: FC<{ iso: string }> = ({ iso }) => <time datetime={iso}>{timeEt(iso)}</time>;

export const KindLabel = (kind: string): string => KIND_LABELS[kind] ?? kind;

/** One GET form; empty fields mean "any", so no client script is needed. */
export const FilterForm: FC<{
  action: string;
  filter: Filter;
  counties: readonly string[];
  records?: boolean;
}> = ({ action, filter, counties, records }) => (
  <form class="filter" method="get" action={action}>
    <label>
      County
      <select name="county">
        <option value="">Any county</option>
        {counties.map((c) => (
          <option value={c} selected={filter.county === c}>
            {c}
          </option>
        ))}
      </select>
    </label>
    <label>
      Kind of government
      <select name="kind">
        <option value="">Any kind</option>
        {GOVERNMENT_KINDS.map((k) => (
          <option value={k} selected={filter.kind === k}>
            {KindLabel(k)}
          </option>
        ))}
      </select>
    </label>
    {records ? (
      <label>
        Records
        <select name="records">
          <option value="">Any records</option>
          {RECORD_KINDS.map((k) => (
            <option value={k} selected={filter.records === k}>
              {k}
            </option>
          ))}
        </select>
      </label>
    ) : null}
    <button type="submit">Show</button>
  </form>
);

/** P6: the record's own link, shown for people to follow; we never open it. */
export const RecordTitle: FC<{ title: string; url: string | null }> = ({ title, url }) =>
  url && httpHref(url) ? (
    <a href={httpHref(url)} rel="nofollow noopener" class="record">
      {title}
    </a>
  ) : (
    <span class="record">{title}</span>
  );

/** A link when it is http(s), the bare text otherwise. */
export const ExternalLink: FC<{ url: string; children?: Child }> = ({ url, children }) => {
  const href = httpHref(url);
  return href ? <a href={href}>{children ?? url}</a> : <span>{children ?? url}</span>;
};
