import type { Hono } from "hono";
import type { FC } from "hono/jsx";
import { NO_OUTCOMES } from "../../night/types.js";
import type { Db } from "../../store/db.js";
import { openFlagCount, type SourceName, sourceNames } from "../../store/read/console.js";
import {
  lastNight,
  listNights,
  type NightReport,
  nightReport,
  type SourceOutcome,
} from "../../store/read/night-report.js";
import { countOf, wordFor } from "../public/format.js";
import { BASE, type ConsoleEnv } from "./auth.js";
import { ConsoleLayout, nyTime, Wide } from "./layout.js";
import { NightChart } from "./night-chart.js";
import { consoleReads } from "./query.js";

const isNo = (o: string) => NO_OUTCOMES.has(o as never);

/** A night's report with the names of its sources (the console names things by name). */
async function namedReport(db: Db, night: string) {
  const r = await nightReport(db, night, isNo);
  if (!r) return undefined;
  const names = await sourceNames(
    db,
    [...r.nos, ...r.unreached, ...r.cutShort].map((o) => o.source),
  );
  return { r, names };
}

const Evidence: FC<{ o: SourceOutcome }> = ({ o }) =>
  o.evidence ? (
    <span>
      {o.evidence.provider} · {o.evidence.verdict}
      {o.evidence.reference ? ` · ref ${o.evidence.reference}` : ""}
      {o.evidence.marker ? ` · ${o.evidence.marker}` : ""}
    </span>
  ) : (
    <span class="note">none recorded</span>
  );

/** A source by its name and its government's, with the id small for the operator's search. */
export const SourceLink: FC<{ id: string; names: ReadonlyMap<string, SourceName> }> = ({
  id,
  names,
}) => {
  const n = names.get(id);
  return (
    <>
      <a href={`${BASE}/sources/${encodeURIComponent(id)}`}>
        {n ? `${n.name} · ${n.governmentName}` : id}
      </a>
      {n ? <span class="muted small"> ({id})</span> : null}
    </>
  );
};

/**
 * How a night ended, as `nor status` says it: run to its end, or closed incomplete (interrupted
 * and not resumed before its time was over: some sources never reached).
 */
function finishedText(r: NightReport): string {
  if (!r.finishedAt) return "not finished";
  return r.closedIncomplete
    ? `closed incomplete ${nyTime(r.finishedAt)} (interrupted, and not resumed before its time was over)`
    : `finished ${nyTime(r.finishedAt)}`;
}

/** The night's report: the same view on the overview (last night) and on its own page. */
export const ReportView: FC<{ r: NightReport; names: ReadonlyMap<string, SourceName> }> = ({
  r,
  names,
}) => (
  <section>
    <p>
      Night <a href={`${BASE}/nights/${r.night}`}>{r.night}</a>: started {nyTime(r.startedAt)},{" "}
      {finishedText(r)}, {countOf(r.runs, "run")}. <strong>{r.sources}</strong>{" "}
      {wordFor(r.sources, "source")} checked, <strong>{r.totalRequests}</strong>{" "}
      {wordFor(r.totalRequests, "request")}.
    </p>
    {r.catalogNote !== null ? (
      <section id="catalog-note">
        <p>
          <strong>Its catalog files were not used</strong> (the next night imports them once they
          can be: <code>nor catalog check</code> reads them; an import refused for the sources it
          would retire needs every file, or <code>nor catalog import --allow-retire</code>):
        </p>
        <pre>{r.catalogNote}</pre>
      </section>
    ) : null}
    <NightChart input={r} />
    <h2>Outcomes by kind</h2>
    <Wide label="Outcomes by kind">
      <table>
        <tr>
          <th>outcome</th>
          <th>sources</th>
        </tr>
        {r.byKind.map((k) => (
          <tr>
            <td>
              <a href={`${BASE}/sources?outcome=${encodeURIComponent(k.kind)}`}>{k.kind}</a>
            </td>
            <td>{k.count}</td>
          </tr>
        ))}
      </table>
    </Wide>
    <h2>Nos ({r.nos.length})</h2>
    {r.nosBySite.length > 0 && (
      <p>By site: {r.nosBySite.map((s) => `${s.site} ${s.count}`).join(", ")}</p>
    )}
    <Wide label="Nos">
      <table>
        <tr>
          <th>source</th>
          <th>site</th>
          <th>outcome</th>
          <th>status</th>
          <th>reason</th>
          <th>evidence</th>
        </tr>
        {r.nos.map((o) => (
          <tr>
            <td>
              <SourceLink id={o.source} names={names} />
            </td>
            <td>{o.site}</td>
            <td>{o.outcome}</td>
            <td>{o.status ?? "-"}</td>
            <td>{o.reason ?? ""}</td>
            <td>
              <Evidence o={o} />
            </td>
          </tr>
        ))}
      </table>
    </Wide>
    <h2>Unreached ({r.unreached.length})</h2>
    <ul>
      {r.unreached.map((o) => (
        <li>
          <SourceLink id={o.source} names={names} /> {o.reason ?? ""}
        </li>
      ))}
    </ul>
    {r.cutShort.length > 0 ? (
      <>
        <h2>
          Cut short: by the deadline, or a recheck's redirect, or its own retry, not sent as the
          site was down or asked to wait ({r.cutShort.length})
        </h2>
        <ul>
          {r.cutShort.map((o) => (
            <li>
              <SourceLink id={o.source} names={names} /> {o.reason ?? ""}
            </li>
          ))}
        </ul>
      </>
    ) : null}
    <h2>Requests by site</h2>
    <Wide label="Requests by site">
      <table>
        <tr>
          <th>site</th>
          <th>requests</th>
          <th>bytes</th>
          <th>log</th>
        </tr>
        {r.requests.map((s) => (
          <tr>
            <td>{s.site}</td>
            <td>{s.requests}</td>
            <td>{s.bytes}</td>
            <td>
              <a href={`${BASE}/log?site=${encodeURIComponent(s.site)}&since=${r.night}`}>log</a>
            </td>
          </tr>
        ))}
      </table>
    </Wide>
  </section>
);

export function nightRoutes(app: Hono<ConsoleEnv>, db: Db): void {
  app.get("/", consoleReads([], { title: "Overview" }), async (c) => {
    const night = await lastNight(db);
    const report = night ? await namedReport(db, night) : undefined;
    const open = await openFlagCount(db);
    return c.html(
      <ConsoleLayout title="Overview" csrf={c.get("session").csrfToken}>
        <p>
          <a href={`${BASE}/flags`}>
            <strong id="open-flags">{open}</strong> open {wordFor(open, "flag")}
          </a>{" "}
          waiting for a person (P24).
        </p>
        {report ? <ReportView r={report.r} names={report.names} /> : <p>No night has run yet.</p>}
      </ConsoleLayout>,
    );
  });

  app.get("/nights", consoleReads([], { title: "Nights" }), async (c) => {
    const nights = await listNights(db);
    return c.html(
      <ConsoleLayout title="Nights" csrf={c.get("session").csrfToken}>
        <Wide label="Nights">
          <table>
            <tr>
              <th>night</th>
              <th>started</th>
              <th>finished</th>
              <th>runs</th>
              <th>sources</th>
            </tr>
            {nights.map((n) => (
              <tr>
                <td>
                  <a href={`${BASE}/nights/${n.night}`}>{n.night}</a>
                </td>
                <td>{nyTime(n.startedAt)}</td>
                <td>
                  {n.finishedAt
                    ? n.closedIncomplete
                      ? `closed incomplete ${nyTime(n.finishedAt)}`
                      : nyTime(n.finishedAt)
                    : "not finished"}
                  {n.catalogNote !== null ? " (its catalog files not used: see its report)" : ""}
                </td>
                <td>{n.runs}</td>
                <td>{n.sources}</td>
              </tr>
            ))}
          </table>
        </Wide>
      </ConsoleLayout>,
    );
  });

  app.get("/nights/:night", consoleReads([], { title: "Night" }), async (c) => {
    const night = c.req.param("night");
    const report = /^\d{4}-\d{2}-\d{2}$/.test(night) ? await namedReport(db, night) : undefined;
    if (!report) {
      return c.html(
        <ConsoleLayout title="No such night" csrf={c.get("session").csrfToken}>
          <p>No night {night} in the store.</p>
        </ConsoleLayout>,
        404,
      );
    }
    return c.html(
      <ConsoleLayout title={`Night ${night}`} csrf={c.get("session").csrfToken}>
        <ReportView r={report.r} names={report.names} />
      </ConsoleLayout>,
    );
  });
}
