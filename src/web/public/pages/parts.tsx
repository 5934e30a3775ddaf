/** Small pieces the public pages share: status badges, outcome text, record links, filters. */
import type { Child, FC } from "hono/jsx";
import type { Filter } from "../filters.js";
import { GOVERNMENT_KINDS, RECORD_KINDS } from "../filters.js";
import {
  httpHref,
  KIND_LABELS,
  outcomeLabel,
  reasonShown,
  recordsLabel,
  timeEt,
} from "../format.js";
import type { Outcome, ReadStatus } from "../state.js";

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
  const l = outcomeLabel(o.outcome, o.reason);
  const reason = refusalWords(o) ?? reasonShown(o.outcome, o.reason);
  return (
    <span class="outcome">
      <span class={`status tone-${l.tone}`}>{l.text}</span>
      {reason ? <span class="reason"> {reason}</span> : null}
      {o.evidence ? <Evidence o={o} said={reason} /> : null}
    </span>
  );
};

/**
 * Evidence "providers" that are no vendor: the checker's own readings (a refusal page of no
 * known vendor, a status, the connection, TLS, the site's own image CAPTCHA). The public reads
 * no "by generic" or "by image-captcha" of them.
 */
const NOT_A_VENDOR = new Set(["generic", "http", "connection", "tls", "image-captcha"]);

/**
 * P21, P23: a refusal page in words a resident reads, for the pages (the API and the console
 * keep the checker's own reason): a vendor's challenge or block page, or a page that looks like
 * a refusal; undefined for any other outcome.
 */
function refusalWords(o: Outcome): string | undefined {
  const e = o.evidence;
  if ((o.outcome !== "refused" && o.outcome !== "recheck-still-no") || e === undefined)
    return undefined;
  // Only the checker's own words for such a page (net/classify.ts refusedBy): "PROVIDER
  // VERDICT: marker", after "refused: " in a recheck's.
  const reason = o.reason?.replace(/^refused: /, "");
  // P15, P21: "connection closed on every attempt" (net/classify.ts closed), and the status the
  // last attempt's answer began with, when it began at all (the only one kept): a 200 cut off
  // is no page that was given. An earlier attempt may have closed before or after its head.
  if (e.provider === "connection" && e.verdict === "closed")
    return o.status !== undefined
      ? `a connection closed before the answer was whole, on every attempt (the last began as HTTP ${o.status})`
      : "a connection closed before the answer was whole, on every attempt";
  if (!reason?.startsWith(`${e.provider} ${e.verdict}: `)) return undefined;
  if (e.verdict === "challenge") return "a “prove you are human” page";
  if (e.verdict === "block") return "a page that blocks the checker";
  if (e.verdict === "suspected")
    return "a page that reads as a refusal (“access denied” or the like)";
  return undefined;
}

export const Evidence: FC<{ o: Outcome; said?: string | null | undefined }> = ({
  o,
  said = o.reason,
}) =>
  o.evidence && NOT_A_VENDOR.has(o.evidence.provider) ? (
    // Its status, unless the words shown say it already ("HTTP 403").
    o.status !== undefined && !said?.includes(`HTTP ${o.status}`) ? (
      <span class="evidence small"> (HTTP {o.status})</span>
    ) : null
  ) : o.evidence ? (
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

/**
 * One GET form; empty fields mean "any", so no client script is needed. `keep`: the page's other
 * parameters the form does not show (a window or night, a government or source), sent again as
 * hidden fields so filtering keeps them; an empty one is left out, never sent empty.
 */
export const FilterForm: FC<{
  action: string;
  filter: Filter;
  counties: readonly string[];
  records?: boolean;
  keep?: Readonly<Record<string, string | undefined>>;
}> = ({ action, filter, counties, records, keep = {} }) => (
  <form class="filter" method="get" action={action}>
    {Object.entries(keep).map(([name, value]) =>
      value ? <input type="hidden" name={name} value={value} /> : null,
    )}
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
              {recordsLabel(k)}
            </option>
          ))}
        </select>
      </label>
    ) : null}
    <button type="submit">Show</button>
  </form>
);

/**
 * Text a site or the catalog supplied, shown inline (a record's title, a government's, a record
 * page's or a county's name, a site owner's), is always inside a `<bdi>`: a right-to-left override
 * or isolate it carries (U+202A–U+202E, U+2066–U+2069) cannot reorder the words around it.
 */

/**
 * P6: the record's own link, shown for people to follow; we never open it. A record without
 * an http(s) link of its own points to where it is listed (`fallback`), marked as such.
 */
export const RecordTitle: FC<{ title: string; url: string | null; fallback?: string }> = ({
  title,
  url,
  fallback,
}) => {
  const own = httpHref(url);
  if (own)
    return (
      <a href={own} rel="nofollow noopener" class="record">
        <bdi>{title}</bdi>
      </a>
    );
  const where = fallback?.startsWith("/") ? fallback : httpHref(fallback);
  return where ? (
    <>
      <span class="record">
        <bdi>{title}</bdi>
      </span>{" "}
      <a href={where} rel="nofollow noopener" class="small listed">
        (where it is listed)
      </a>
    </>
  ) : (
    <span class="record">
      <bdi>{title}</bdi>
    </span>
  );
};

/** `<link rel=alternate>` for the three feeds of a list (`path` + `.atom` etc.). */
export const FeedHead: FC<{ path: string; query: string }> = ({ path, query }) => (
  <>
    <link rel="alternate" type="application/atom+xml" title="Atom" href={`${path}.atom${query}`} />
    <link rel="alternate" type="application/rss+xml" title="RSS" href={`${path}.rss${query}`} />
    <link
      rel="alternate"
      type="application/feed+json"
      title="JSON Feed"
      href={`${path}.json${query}`}
    />
  </>
);

/** Visible links to the same feeds, and to the JSON API when there is one. */
export const FeedLinks: FC<{ path: string; query: string; what: Child; api?: string }> = ({
  path,
  query,
  what,
  api,
}) => (
  <p class="small feeds">
    {what}: <a href={`${path}.atom${query}`}>Atom</a> · <a href={`${path}.rss${query}`}>RSS</a> ·{" "}
    <a href={`${path}.json${query}`}>JSON Feed</a>
    {api ? (
      <>
        {" "}
        · <a href={api}>API</a>
      </>
    ) : null}
  </p>
);

/** A link when it is http(s), the bare text otherwise. */
export const ExternalLink: FC<{ url: string; children?: Child }> = ({ url, children }) => {
  const href = httpHref(url);
  return href ? <a href={href}>{children ?? url}</a> : <span>{children ?? url}</span>;
};

/** A heading's scope after its name (": Summit County"), isolated from the words around it. */
export const Scope: FC<{ text: string | undefined }> = ({ text }) =>
  text ? (
    <span class="muted">
      : <bdi>{text}</bdi>
    </span>
  ) : null;
