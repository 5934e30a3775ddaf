import type { FC } from "hono/jsx";
import type { WayChoice } from "../../../night/types.js";
import { RECHECK_EVERY_NIGHTS, RECHECK_SOON_NIGHTS } from "../../../policy/constants.js";
import type {
  GovernmentSummary,
  RecordItem,
  SourceSummary,
} from "../../../store/read/directory.js";
import { Layout, Wide } from "../../layout.js";
import {
  dateEt,
  nightShort,
  onceEveryNights,
  outcomeLabel,
  reasonShown,
  recordsLabel,
} from "../format.js";
import type { Outcome, ReadStatus } from "../state.js";
import {
  ExternalLink,
  FeedHead,
  FeedLinks,
  OutcomeText,
  ReadBadge,
  RecordTitle,
  WhenText,
} from "./parts.js";

export interface SourcePageData {
  source: SourceSummary;
  government?: GovernmentSummary;
  status: ReadStatus;
  /** The last nights, newest first: this source's outcome, or why there is none. */
  nights: StripNight[];
  /** The latest night's outcome, however long ago (P23: a no is shown with its evidence). */
  last?: Outcome;
  records: RecordItem[];
  recordsShown: number;
  /** More records were noted from this page than `recordsShown`: the newest are listed. */
  moreRecords?: true;
  /** The night key of now: a night of another year is written with its year (nightShort). */
  today: string;
}

/** P4: which way in the last night used and why better ones were passed over. */
const WayText: FC<{ way?: WayChoice; night?: string; today: string }> = ({ way, night, today }) => {
  if (!way) return <span class="muted">not recorded</span>;
  return (
    <span class="way">
      {way.used ? (
        <>
          {way.used.access}
          {way.used.platform ? ` (${way.used.platform})` : ""}: <ExternalLink url={way.used.url} />
          {way.used.asked ? (
            <>
              {" "}
              (moved permanently: asked at <ExternalLink url={way.used.asked} />)
            </>
          ) : null}
        </>
      ) : (
        `none worked${night ? ` the night of ${nightShort(night, today)}` : ""}`
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

/** A night on the strip: checked (with its outcome), not checked that night, or no night ran. */
export type StripNight =
  | { night: string; state: "checked"; outcome: Outcome }
  | { night: string; state: "not-checked" }
  /** That night is still under way and has not reached this page yet. */
  | { night: string; state: "running" }
  | { night: string; state: "offline" }
  /** Before the directory's first night. */
  | { night: string; state: "before" }
  /** After it, but before this page was added to the catalog. */
  | { night: string; state: "not-yet-listed" }
  /** While this page was retired from the catalog. */
  | { night: string; state: "retired" };

function stripLabel(n: StripNight): { text: string; fill: string } {
  if (n.state === "offline") return { text: "checker offline (no night ran)", fill: "offline" };
  if (n.state === "not-checked") return { text: "not checked that night", fill: "none" };
  if (n.state === "running")
    return { text: "that night is still running: not reached yet", fill: "none" };
  if (n.state === "before") return { text: "before the directory began checking", fill: "none" };
  if (n.state === "not-yet-listed")
    return { text: "not yet listed in the directory", fill: "none" };
  if (n.state === "retired")
    return { text: "not in the directory's catalog (retired)", fill: "none" };
  const l = outcomeLabel(n.outcome.outcome, n.outcome.reason);
  return { text: l.text, fill: l.tone };
}

const CELL = 14;
const GAP = 3;
/** The line under the cells where a focused (or pointed-at) night says its words. */
const WORDS_Y = CELL + 22;
const WORDS_SIZE = 13;
/** Characters of that line that fit the strip's width; the table below has them all. */
const WORDS_MAX = 72;

const clip = (s: string) => (s.length > WORDS_MAX ? `${s.slice(0, WORDS_MAX - 1)}…` : s);

/**
 * The last nights as an SVG strip, oldest left, newest right: a picture for the eye, each night
 * a tap target (its <title> for a pointer, its words on a line under the strip while pointed
 * at) that opens its row in the table below. The table is where the nights are read, each
 * once: by a screen reader, and by keyboard, where Tab stops at each night's row (its date is a
 * link to the row itself) and the strip outlines that night's cell (CSS only: the site runs no
 * script). So the strip is hidden from assistive technology and out of the Tab order, and says
 * nothing the table does not.
 */
const NightStrip: FC<{ nights: readonly StripNight[]; today: string }> = ({ nights, today }) => {
  const oldestFirst = [...nights].reverse();
  const width = oldestFirst.length * (CELL + GAP);
  const height = WORDS_Y + 6;
  return (
    <figure class="strip">
      <svg viewBox={`0 0 ${width} ${height}`} width={width} height={height} aria-hidden="true">
        {oldestFirst.map((n, i) => {
          const label = nightWords(n, today);
          return (
            <a href={`#night-${n.night}`} tabindex={-1} data-night={n.night}>
              <title>{label}</title>
              <rect
                x={i * (CELL + GAP) + 1}
                y={2}
                width={CELL}
                height={CELL}
                rx={2}
                class={`fill-${stripLabel(n).fill}`}
              />
              <text x={1} y={WORDS_Y} font-size={WORDS_SIZE} class="words">
                {clip(label)}
              </text>
            </a>
          );
        })}
      </svg>
      <figcaption class="small muted">
        Green: yes · red: no · grey: skipped, not reached or cut short · yellow: trouble · dashed:
        not checked or not listed · pale: checker offline. Point at a night to read it here, or tap
        it to open its row; the table below says each night in words (Tab goes from night to night).
      </figcaption>
    </figure>
  );
};

/** A night in words: its date, its outcome or why there is none, and the reason. */
function nightWords(n: StripNight, today: string): string {
  const said = n.state === "checked" ? reasonShown(n.outcome.outcome, n.outcome.reason) : undefined;
  const reason = said ? `: ${said}` : "";
  return `${nightShort(n.night, today)}: ${stripLabel(n).text}${reason}`;
}

/**
 * P23: each night's answer in words, a no with its reason and evidence; each night's date is a
 * link to its own row, so Tab stops once per night.
 */
const NightTable: FC<{ nights: readonly StripNight[]; today: string }> = ({ nights, today }) => (
  <Wide>
    <table class="nights">
      <caption class="small muted">The last {nights.length} nights, newest first</caption>
      <thead>
        <tr>
          <th scope="col">Night</th>
          <th scope="col">Outcome</th>
          <th scope="col">New records</th>
        </tr>
      </thead>
      <tbody>
        {nights.map((n) => (
          <tr id={`night-${n.night}`} data-state={n.state}>
            <th scope="row" class="nowrap">
              <a href={`#night-${n.night}`} class="night" data-night={n.night}>
                {nightShort(n.night, today)}
              </a>
            </th>
            <td>
              {n.state === "checked" ? (
                <OutcomeText o={n.outcome} />
              ) : (
                <span class={`status tone-${n.state === "offline" ? "skip" : "none"}`}>
                  {stripLabel(n).text}
                </span>
              )}
            </td>
            <td>{n.state === "checked" ? n.outcome.newRecords : ""}</td>
          </tr>
        ))}
      </tbody>
    </table>
  </Wide>
);

/**
 * What becomes of the page after the latest night's no (P23) or a night the checker was offline,
 * said as it is for this page: only a page still read and in the catalog is in the next night's
 * check. A page marked not read by a person is only looked at again (P25); one whose site's owner
 * asked not to be read is sent no request at all; a retired one is no longer checked.
 */
const NextCheck: FC<{ status: ReadStatus; retired: boolean; after: "no" | "offline" }> = ({
  status,
  retired,
  after,
}) => {
  if (retired) {
    return (
      <p class="small next-check" data-next="retired">
        It has left the directory's catalog, so the checker asks it nothing more.
      </p>
    );
  }
  if (status.reading) {
    return (
      <p class="small next-check" data-next="read">
        {after === "no"
          ? "The page stays in the next night's check, asked the same way and at the same pace."
          : "The page is checked again the next night, first in its lane."}
      </p>
    );
  }
  if (status.siteOwner !== undefined) {
    return (
      <p class="small next-check" data-next="site-owner">
        The owner of its site asked that the site not be read, so the checker asks it nothing more
        {after === "no" ? ", not even whether this no still stands" : ""}.
      </p>
    );
  }
  return (
    <p class="small next-check" data-next="not-read">
      A person marked this page not read, so it is not in the nightly check and no records are taken
      from it. The checker only opens it to see{" "}
      {after === "no" ? "whether the no still stands" : "whether the site answers again"}: on up to{" "}
      {RECHECK_SOON_NIGHTS} nights soon after it was marked, then{" "}
      {onceEveryNights(RECHECK_EVERY_NIGHTS)}, and only when robots.txt allows. If the site answers
      again, a person decides whether to read the page again.
    </p>
  );
};

export const SourcePage: FC<{ d: SourcePageData }> = ({ d }) => {
  const s = d.source;
  const govName = d.government?.name ?? s.governmentId;
  const title = `${s.name ?? recordsLabel(s.records)} · ${govName}`;
  const last = d.last;
  const q = `?source=${encodeURIComponent(s.id)}`;
  const lastTone = last ? outcomeLabel(last.outcome, last.reason).tone : undefined;
  return (
    <Layout title={title} head={s.retiredAt ? undefined : <FeedHead path="/new" query={q} />}>
      <h1>
        {s.name ? <bdi>{s.name}</bdi> : recordsLabel(s.records)}{" "}
        <span class="muted">
          · <bdi>{govName}</bdi>
        </span>
      </h1>
      {s.retiredAt && s.renamedTo !== null ? (
        <p class="retired renamed" data-renamed-to={s.renamedTo}>
          Renamed: this page's id changed on <WhenText iso={s.retiredAt} /> to{" "}
          <a href={`/sources/${encodeURIComponent(s.renamedTo)}`}>
            <bdi>{s.renamedTo}</bdi>
          </a>
          . Its records, nights and marks moved with it and are listed on that page.
        </p>
      ) : s.retiredAt ? (
        <p class="retired">
          Retired: this page left the directory's catalog on <WhenText iso={s.retiredAt} />. It is
          no longer checked; what was noted before is kept below, but its records are no longer in
          the lists and feeds of what is new, nor in search or the downloads.
        </p>
      ) : null}
      <dl class="facts">
        <dt>Government</dt>
        <dd>
          <a href={`/governments/${encodeURIComponent(s.governmentId)}`}>
            <bdi>{govName}</bdi>
          </a>
          {d.government?.county ? (
            <span class="muted">
              {" "}
              · <bdi>{d.government.county}</bdi> County
            </span>
          ) : null}
        </dd>
        <dt>Records</dt>
        <dd>{s.records}</dd>
        <dt>{s.access === "api" ? "Read from" : "Public page"}</dt>
        <dd class="public-link">
          <ExternalLink url={s.url} />
        </dd>
        {s.access === "api" ? (
          <dd class="small muted api-note">
            An address for programs (the site's API), where the checker reads the list; it may not
            open as a page in a browser.
            {d.government?.website ? (
              <>
                {" "}
                The government's website: <ExternalLink url={d.government.website} />
              </>
            ) : null}
          </dd>
        ) : null}
        <dt>Status</dt>
        <dd class="read-status">
          {s.retiredAt ? (
            <span class="status tone-none">retired</span>
          ) : (
            <ReadBadge status={d.status} />
          )}
          {d.status.since ? (
            <span class="muted small">
              {" "}
              since <WhenText iso={d.status.since} />
            </span>
          ) : null}
          {!d.status.reading ? (
            d.status.siteOwner !== undefined ? (
              <p class="small site-owner">
                The owner of its site,{" "}
                <strong>
                  <bdi>{d.status.siteOwner}</bdi>
                </strong>
                , asked that the site not be read, so the checker sends it no request; this page
                stays listed here with its link.
              </p>
            ) : (
              <p class="small">
                A person decided not to read this page for now; it stays listed here with its link.
              </p>
            )
          ) : null}
        </dd>
        <dt>Way in</dt>
        <dd>
          <WayText {...(last?.way ? { way: last.way, night: last.night } : {})} today={d.today} />
        </dd>
      </dl>
      {last && lastTone === "offline" ? (
        <section class="checker-offline notice">
          <strong>
            The night of {nightShort(last.night, d.today)}, the checker itself could not reach the
            internet.
          </strong>{" "}
          That was the checker's own problem, not this site's: nothing was asked of it or judged
          about it that night. <OutcomeText o={last} />
          <NextCheck status={d.status} retired={s.retiredAt !== null} after="offline" />
        </section>
      ) : null}
      {last && lastTone === "no" ? (
        <section class="last-no notice">
          <strong>The night of {nightShort(last.night, d.today)}, the site said no.</strong>{" "}
          <OutcomeText o={last} />
          <NextCheck status={d.status} retired={s.retiredAt !== null} after="no" />
        </section>
      ) : null}
      <section class="nights-block" aria-labelledby="last-nights">
        <h2 id="last-nights">The last nights</h2>
        {!last ? <p class="muted">This page has not been checked yet.</p> : null}
        {last && lastTone !== "no" && lastTone !== "offline" ? (
          <p class="last-outcome small">
            Last checked the night of {nightShort(last.night, d.today)}: <OutcomeText o={last} />
          </p>
        ) : null}
        {d.nights.length === 0 ? null : (
          <>
            <NightStrip nights={d.nights} today={d.today} />
            <NightTable nights={d.nights} today={d.today} />
          </>
        )}
      </section>
      <h2>Newest records</h2>
      {s.retiredAt ? null : <FeedLinks path="/new" query={q} what="New records from this page" />}
      {d.records.length === 0 ? (
        <p class="muted">No records noted yet.</p>
      ) : (
        <Wide>
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
                    <RecordTitle title={r.title} url={r.url} fallback={s.url} />
                  </td>
                  <td class="nowrap">{dateEt(r.date)}</td>
                  <td>{recordsLabel(r.kind ?? s.records)}</td>
                  <td class="small">
                    {nightShort(r.firstSeenNight, d.today)}
                    {r.alreadyListed ? <span class="already"> (already listed)</span> : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Wide>
      )}
      {d.records.some((r) => r.alreadyListed) ? (
        <p class="muted small">
          Already listed: on the page when New on Record first read it (or on an older page of its
          list), so not new that night, and not in "New on record".
        </p>
      ) : null}
      {d.moreRecords ? (
        <p class="muted">
          Only the newest {d.recordsShown} records noted from this page are listed here; every
          record noted from every page is in the <a href="/downloads">downloads</a>.
        </p>
      ) : null}
      <p class="small">
        <a href={`/api/sources/${encodeURIComponent(s.id)}`}>This page as JSON</a>
      </p>
    </Layout>
  );
};
