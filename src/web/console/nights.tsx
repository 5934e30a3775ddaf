import type { Hono } from "hono";
import type { FC } from "hono/jsx";
import type { Db } from "../../store/db.js";
import { BASE, type ConsoleEnv } from "./auth.js";
import { ConsoleLayout, nyTime } from "./layout.js";
import {
  lastNight,
  listNights,
  type NightReport,
  nightReport,
  type SourceOutcome,
} from "./night-report.js";

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

const SourceLink: FC<{ id: string }> = ({ id }) => (
  <a href={`${BASE}/sources/${encodeURIComponent(id)}`}>{id}</a>
);

/** The night's report: the same view on the overview (last night) and on its own page. */
export const ReportView: FC<{ r: NightReport }> = ({ r }) => (
  <section>
    <p>
      Night <a href={`${BASE}/nights/${r.night}`}>{r.night}</a>: started {nyTime(r.startedAt)},{" "}
      {r.finishedAt ? `finished ${nyTime(r.finishedAt)}` : "not finished"}, {r.runs} run(s).{" "}
      <strong>{r.sources}</strong> source(s) checked, <strong>{r.totalRequests}</strong> request(s).
    </p>
    <h2>Outcomes by kind</h2>
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
    <h2>Nos ({r.nos.length})</h2>
    {r.nosBySite.length > 0 && (
      <p>By site: {r.nosBySite.map((s) => `${s.site} ${s.count}`).join(", ")}</p>
    )}
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
            <SourceLink id={o.source} />
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
    <h2>Unreached ({r.unreached.length})</h2>
    <ul>
      {r.unreached.map((o) => (
        <li>
          <SourceLink id={o.source} /> {o.reason ?? ""}
        </li>
      ))}
    </ul>
    <h2>Requests by site</h2>
    <table>
      <tr>
        <th>site</th>
        <th>requests</th>
        <th>bytes</th>
        <th />
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
  </section>
);

export function nightRoutes(app: Hono<ConsoleEnv>, db: Db): void {
  app.get("/", async (c) => {
    const night = await lastNight(db);
    const report = night ? await nightReport(db, night) : undefined;
    const open = await db
      .selectFrom("flags")
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .where("cleared_at", "is", null)
      .executeTakeFirst();
    return c.html(
      <ConsoleLayout title="Overview" csrf={c.get("session").csrfToken}>
        <p>
          <a href={`${BASE}/flags`}>
            <strong id="open-flags">{Number(open?.n ?? 0)}</strong> open flag(s)
          </a>{" "}
          waiting for a person (P24).
        </p>
        {report ? <ReportView r={report} /> : <p>No night has run yet.</p>}
      </ConsoleLayout>,
    );
  });

  app.get("/nights", async (c) => {
    const nights = await listNights(db);
    return c.html(
      <ConsoleLayout title="Nights" csrf={c.get("session").csrfToken}>
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
              <td>{n.finishedAt ? nyTime(n.finishedAt) : "not finished"}</td>
              <td>{n.runs}</td>
              <td>{n.sources}</td>
            </tr>
          ))}
        </table>
      </ConsoleLayout>,
    );
  });

  app.get("/nights/:night", async (c) => {
    const night = c.req.param("night");
    const report = /^\d{4}-\d{2}-\d{2}$/.test(night) ? await nightReport(db, night) : undefined;
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
        <ReportView r={report} />
      </ConsoleLayout>,
    );
  });
}
