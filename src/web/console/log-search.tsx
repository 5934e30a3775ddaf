import type { Hono } from "hono";
import { UsageError } from "../../errors.js";
import type { RequestLogEntry } from "../../net/types.js";
import { readSite } from "../../policy/site.js";
import type { Db } from "../../store/db.js";
import {
  type RequestLogCursor,
  type RequestLogFilter,
  SqlRequestLog,
} from "../../store/request-log.js";
import { toJson } from "../../store/request-log-view.js";
import { sourceKnown } from "../../store/source-known.js";
import { parseTimeArg, TIME_ARG_HELP } from "../../store/time-args.js";
import { echo } from "../public/echo.js";
import { countOf } from "../public/format.js";
import { BASE, type ConsoleEnv } from "./auth.js";
import { ConsoleLayout, Message, nyTime, Wide } from "./layout.js";
import { consoleReads } from "./query.js";

/** Rows shown on the page; the JSON download goes further (P27: find it in seconds). */
export const PAGE_CAP = 500;
export const JSON_CAP = 50_000;
/** Attempts read and written at a time in the JSON download. */
export const JSON_PAGE = 1_000;

const FIELDS = ["since", "until", "site", "url", "source"] as const;
type Form = Record<(typeof FIELDS)[number], string>;

/**
 * The form as `nor log` reads its options: times without a zone are New York time, --until
 * takes the end of the minute written, a pasted URL or host is reduced to its site (P9), and a
 * site that is none (a bare public suffix, an empty label) is refused with the reason. What a
 * refusal says back of the form is echoed (echo.ts), as the public side echoes a request: a
 * NUL, a terminal's escape or a direction mark typed is written as its percent-escapes.
 */
export function filterOf(f: Form): RequestLogFilter {
  const out: RequestLogFilter = {};
  if (f.since) out.since = timeOf(f.since, "Since").start;
  if (f.until) out.until = timeOf(f.until, "Until").end;
  if (out.since !== undefined && out.until !== undefined && out.since >= out.until) {
    throw new UsageError(`Since "${echo(f.since)}" is not before Until "${echo(f.until)}"`);
  }
  if (f.site) {
    // The check `nor log --site` makes (src/policy/site.ts): a value that names no site
    // (`gov`, `example..gov`) is refused with the reason, never searched for and found empty.
    const r = readSite(f.site);
    if (!r.ok)
      throw new UsageError(`Site: "${echo(f.site)}" is not a site, host or URL: ${echo(r.reason)}`);
    out.site = r.site;
  }
  if (f.url) out.urlContains = f.url;
  if (f.source) out.source = f.source.trim();
  return out;
}

/** parseTimeArg, its refusal (which quotes the text) echoed. */
function timeOf(text: string, flag: string): ReturnType<typeof parseTimeArg> {
  try {
    return parseTimeArg(text, flag);
  } catch (err) {
    if (err instanceof UsageError) throw new UsageError(echo(err.message));
    throw err;
  }
}

function evidenceText(e: RequestLogEntry): string {
  const ev = e.evidence;
  if (!ev) return "";
  return [ev.provider, ev.verdict, ev.reference ? `ref ${ev.reference}` : "", ev.marker ?? ""]
    .filter(Boolean)
    .join(" · ");
}

/**
 * A mistyped source id finds nothing, which would read as "nothing was asked": refused as
 * `nor log --source` refuses it, by the same store lookup, when nothing matches.
 */
async function refuseUnknownSource(
  db: Db,
  filter: RequestLogFilter,
  anyFound: () => Promise<boolean>,
): Promise<void> {
  if (filter.source === undefined || filter.source === "") return;
  if ((await sourceKnown(db, filter.source)) || (await anyFound())) return;
  throw new UsageError(
    `Source: this store has no source "${echo(filter.source)}" (\`nor status\` lists them)`,
  );
}

export function logRoutes(app: Hono<ConsoleEnv>, db: Db): void {
  const log = new SqlRequestLog(db);
  const formOf = (q: (k: string) => string | undefined): Form =>
    Object.fromEntries(FIELDS.map((k) => [k, (q(k) ?? "").trim()])) as Form;

  // Each field once, and no other (query.tsx): a repeated one is never cut to its first value.
  app.get("/log", consoleReads(FIELDS, { title: "Request log" }), async (c) => {
    const form = formOf((k) => c.req.query(k));
    const asked = FIELDS.some((k) => form[k] !== "");
    let message: string | undefined;
    let rows: RequestLogEntry[] = [];
    if (asked) {
      try {
        const filter = filterOf(form);
        rows = await log.query({ ...filter, limit: PAGE_CAP + 1 });
        if (rows.length === 0) await refuseUnknownSource(db, filter, async () => false);
      } catch (err) {
        if (!(err instanceof UsageError)) throw err;
        message = err.message;
      }
    }
    const capped = rows.length > PAGE_CAP;
    const shown = rows.slice(0, PAGE_CAP);
    const qs = new URLSearchParams(form).toString();
    return c.html(
      <ConsoleLayout title="Request log" csrf={c.get("session").csrfToken}>
        <form method="get" action={`${BASE}/log`}>
          <label>
            Since <input name="since" value={form.since} placeholder="2026-11-05 03:11" />
          </label>{" "}
          <label>
            Until <input name="until" value={form.until} placeholder="2026-11-05 03:13" />
          </label>{" "}
          <label>
            Site <input name="site" value={form.site} placeholder="example.gov or a URL" />
          </label>{" "}
          <label>
            URL contains <input name="url" value={form.url} />
          </label>{" "}
          <label>
            Source <input name="source" value={form.source} />
          </label>{" "}
          <button type="submit">Search</button>
        </form>
        <details>
          <summary>How times are read</summary>
          {/* The CLI's words for its flags, as the form names its fields. */}
          <pre>{TIME_ARG_HELP.replaceAll("--since", "Since").replaceAll("--until", "Until")}</pre>
        </details>
        <Message text={message} />
        {asked && !message && (
          <section>
            <p id="result-count">
              {capped
                ? `More than ${PAGE_CAP} attempts match; the first ${PAGE_CAP} are shown. Narrow the search, or download all as JSON.`
                : `${countOf(shown.length, "attempt")} ${shown.length === 1 ? "matches" : "match"}.`}{" "}
              <a href={`${BASE}/log.json?${qs}`}>Download this search as JSON</a>
            </p>
            <Wide label="Attempts found">
              <table>
                <tr>
                  <th>start (New York)</th>
                  <th>end</th>
                  <th>method</th>
                  <th>URL</th>
                  <th>status / outcome</th>
                  <th>purpose</th>
                  <th>bytes</th>
                  <th>source</th>
                  <th>evidence</th>
                </tr>
                {shown.map((e) => (
                  <tr>
                    <td>{nyTime(e.startedAt)}</td>
                    <td>{e.endedAt === null ? "(interrupted)" : nyTime(e.endedAt)}</td>
                    <td>{e.method}</td>
                    <td>
                      <code>{e.url}</code>
                    </td>
                    <td>
                      {e.status ?? "-"} {e.outcome}
                      {e.attempt > 1 ? ` #${e.attempt}` : ""}
                      {e.failure ? ` (${e.failure})` : ""}
                    </td>
                    <td>{e.purpose}</td>
                    <td>{e.bytes}</td>
                    <td>{e.source ?? "-"}</td>
                    <td>{evidenceText(e)}</td>
                  </tr>
                ))}
              </table>
            </Wide>
          </section>
        )}
      </ConsoleLayout>,
      message ? 400 : 200,
    );
  });

  // The same search as a file: UTC times, every field `nor log --jsonl` gives. Written a page
  // of rows at a time as they are read, so a download of 50,000 attempts never holds the event
  // loop longer than one page takes to turn into JSON (the reads themselves run off it).
  app.get("/log.json", consoleReads(FIELDS, "json"), async (c) => {
    const form = formOf((k) => c.req.query(k));
    let filter: RequestLogFilter;
    try {
      const asked = filterOf(form);
      await refuseUnknownSource(
        db,
        asked,
        async () => (await log.query({ ...asked, limit: 1 })).length > 0,
      );
      filter = asked;
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      return c.json({ error: err.message }, 400);
    }
    const enc = new TextEncoder();
    let after: RequestLogCursor | undefined;
    let count = 0;
    let done = false;
    // One row past the cap says whether the answer was cut.
    const wantNext = () => Math.min(JSON_PAGE, JSON_CAP + 1 - count);
    // The first page is read before the answer begins: a store found damaged there is answered
    // 503 and said to the operator (app.tsx onError), never a 200 that breaks off.
    let first: Awaited<ReturnType<typeof log.queryPage>> | undefined = await log.queryPage(
      filter,
      wantNext(),
      undefined,
    );
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(enc.encode(`{"search":${JSON.stringify(form)},"attempts":[`));
      },
      async pull(controller) {
        if (done) return;
        const want = wantNext();
        const page = first ?? (await log.queryPage(filter, want, after));
        first = undefined;
        const shown = page.entries.slice(0, JSON_CAP - count);
        if (shown.length > 0) {
          const items = shown.map((e) => JSON.stringify(toJson(e))).join(",");
          controller.enqueue(enc.encode(count === 0 ? items : `,${items}`));
        }
        count += shown.length;
        after = page.next;
        if (page.entries.length < want || count >= JSON_CAP) {
          const truncated = page.entries.length > shown.length;
          controller.enqueue(enc.encode(`],"count":${count},"truncated":${truncated}}`));
          controller.close();
          done = true;
        }
      },
    });
    return c.body(body, 200, {
      "Content-Type": "application/json; charset=UTF-8",
      "Content-Disposition": 'attachment; filename="request-log.json"',
    });
  });
}
