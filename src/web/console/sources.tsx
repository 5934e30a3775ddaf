import type { Hono } from "hono";
import { backfillJson, offText } from "../../night/backfill-words.js";
import { sayLeftAlone } from "../../night/left-alone.js";
import { OUTCOME_KINDS } from "../../night/types.js";
import { viaText } from "../../night/way-choice.js";
import { nightOf } from "../../policy/night-date.js";
import { checkPersonText, REASON_MAX } from "../../policy/person-text.js";
import { markSource, readingText, type StatusRow, statusRows } from "../../store/admin.js";
import { backfillsRead, restartBackfill } from "../../store/backfill.js";
import type { Db } from "../../store/db.js";
import { markShownAt } from "../../store/marks.js";
import { marksOf, sourceNames } from "../../store/read/console.js";
import { echo } from "../public/echo.js";
import { countOf } from "../public/format.js";
import { BASE, type ConsoleEnv } from "./auth.js";
import { ConsoleLayout, CsrfField, Message, nyTime, Wide } from "./layout.js";
import { consoleReads } from "./query.js";

/** Who a console mark is recorded as (P24: a person decided, through the console). */
export const CONSOLE_BY = "operator";

type Show = "all" | "reading" | "not-read" | "flagged";
const SHOWS: readonly Show[] = ["all", "reading", "not-read", "flagged"];

/**
 * The filter the Sources page was asked for, or what is wrong with it, naming the parameter: a
 * value not known is refused (400), never read as "all" or answered with no sources. An empty
 * value (the form's field left blank) means any.
 */
function sourcesFilter(
  show: string,
  outcome: string,
): { ok: true; show: Show; outcome: string } | { ok: false; message: string } {
  const s = show === "" ? "all" : SHOWS.find((x) => x === show);
  if (s === undefined)
    return {
      ok: false,
      message: `The query parameter "show" is "${echo(show)}", which the page does not know. Use one of: ${SHOWS.join(", ")}.`,
    };
  if (outcome !== "" && !OUTCOME_KINDS.some((k) => k === outcome))
    return {
      ok: false,
      message: `The query parameter "outcome" is "${echo(outcome)}", which is not an outcome. Use one of: ${OUTCOME_KINDS.join(", ")}; or leave it empty for any.`,
    };
  return { ok: true, show: s, outcome };
}

/**
 * Whether the nights read the source, as `nor status` and the reading column say it
 * (readingText): not when an import retired it or its site's owner asked not to be read,
 * whatever its own mark says.
 */
function readNow(r: StatusRow): boolean {
  return r.reading && r.retiredAt === undefined && r.siteNotRead === undefined;
}

/**
 * A source's status on its console page, as `nor status` says it (readingText): retired, its
 * site's owner's no (its own mark said beside it when that is "not read" too), its own mark.
 */
function statusWords(r: StatusRow): { word: string; why: string } {
  if (r.retiredAt !== undefined)
    return { word: "retired", why: ` (${r.retiredAt}: no longer in the catalog)` };
  if (r.siteNotRead !== undefined) {
    const own = r.reading
      ? ""
      : `; its own mark: not read${r.notReadReason ? `, ${r.notReadReason}` : ""}`;
    return { word: "not read", why: ` (${r.siteNotRead}${own})` };
  }
  return {
    word: r.reading ? "read" : "not read",
    why: r.notReadReason ? ` (${r.notReadReason})` : "",
  };
}

function keep(r: StatusRow, show: Show, outcome: string): boolean {
  if (show === "reading" && !readNow(r)) return false;
  if (show === "not-read" && readNow(r)) return false;
  if (show === "flagged" && r.flags.length === 0) return false;
  return outcome === "" || r.lastOutcome === outcome;
}

const sourceHref = (id: string) => `${BASE}/sources/${encodeURIComponent(id)}`;

/** `reads` serves the pages (off the event loop: src/store/read-pool.ts); `db` takes the marks. */
export function sourceRoutes(
  app: Hono<ConsoleEnv>,
  db: Db,
  now: () => number,
  reads: Db = db,
): void {
  // Each parameter once, and no other (query.tsx); each value one the page knows.
  app.get("/sources", consoleReads(["show", "outcome"], { title: "Sources" }), async (c) => {
    const asked = sourcesFilter(
      (c.req.query("show") ?? "").trim(),
      (c.req.query("outcome") ?? "").trim(),
    );
    const show: Show = asked.ok ? asked.show : "all";
    const outcome = asked.ok ? asked.outcome : (c.req.query("outcome") ?? "").trim();
    const rows = asked.ok
      ? (await sayLeftAlone(reads, await statusRows(reads), now())).filter((r) =>
          keep(r, show, outcome),
        )
      : [];
    const names = asked.ok ? await sourceNames(reads) : new Map();
    return c.html(
      <ConsoleLayout title="Sources" csrf={c.get("session").csrfToken}>
        <Message text={asked.ok ? undefined : asked.message} />
        <form method="get" action={`${BASE}/sources`}>
          <label>
            Show{" "}
            <select name="show">
              {SHOWS.map((s) => (
                <option value={s} selected={s === show}>
                  {s}
                </option>
              ))}
            </select>
          </label>{" "}
          <label>
            Last outcome <input name="outcome" value={outcome} placeholder="e.g. refused" />
          </label>{" "}
          <button type="submit">Filter</button>
        </form>
        {asked.ok && <p class="note">{countOf(rows.length, "source")}.</p>}
        {asked.ok && (
          <Wide label="Sources">
            <table>
              <tr>
                <th>source</th>
                <th>government</th>
                <th>reading</th>
                <th>last night</th>
                <th>outcome</th>
                <th>records</th>
                <th>new</th>
                <th>flags</th>
              </tr>
              {rows.map((r) => (
                <tr>
                  <td>
                    <a href={sourceHref(r.id)}>{names.get(r.id)?.name ?? r.id}</a>
                    <span class="muted small"> ({r.id})</span>
                  </td>
                  <td>{r.government}</td>
                  <td>{readingText(r)}</td>
                  <td>{r.lastNight ?? "-"}</td>
                  <td>{r.lastOutcome ? `${r.lastOutcome} ${r.lastReason ?? ""}` : "-"}</td>
                  <td>{r.recordsKnown}</td>
                  <td>{r.newLastNight}</td>
                  <td>{r.flags.join(", ")}</td>
                </tr>
              ))}
            </table>
          </Wide>
        )}
      </ConsoleLayout>,
      asked.ok ? 200 : 400,
    );
  });

  const page = async (
    id: string,
    csrf: string,
    message?: string,
    status: 200 | 400 | 409 = 200,
  ) => {
    const [row] = await sayLeftAlone(reads, await statusRows(reads, [id]), now());
    if (!row) return undefined;
    const marks = await marksOf(reads, id);
    const { states, overflows } = await backfillsRead(reads, [id]);
    const backfill = backfillJson(states.get(id), id, row.retiredAt, overflows.get(id));
    // P7, P26: the Restart button only where a restart is taken (it ended, given up or done, on
    // a source not retired: a retired one's state is "retired", and the page says why no
    // restart); "off" goes on by itself, and its words say so.
    const ended = backfill.state === "given-up" || backfill.state === "done";
    const name = (await sourceNames(reads, [id])).get(id);
    const via = row.lastOutcome
      ? viaText(row.way ? { used: row.way, skipped: row.skipped } : { skipped: row.skipped })
      : "-";
    const action = `${sourceHref(id)}/mark`;
    const said = statusWords(row);
    return {
      status,
      body: (
        <ConsoleLayout
          title={name ? `${name.name} · ${name.governmentName}` : `Source ${id}`}
          csrf={csrf}
        >
          <Message text={message} />
          <p>
            {row.government} · <code>{id}</code> ·{" "}
            {/^https?:/i.test(row.url) ? <a href={row.url}>{row.url}</a> : row.url} ·{" "}
            <a href={`/sources/${encodeURIComponent(id)}`}>its public page</a>
          </p>
          <p>
            Status: <strong id="reading">{said.word}</strong>
            {said.why}. Last night {row.lastNight ?? "-"}: {row.lastOutcome ?? "-"}{" "}
            {row.lastReason ?? ""}; via {via}. Records known {row.recordsKnown}, new last night{" "}
            {row.newLastNight}. Open flags: {row.flags.join(", ") || "none"}.
          </p>
          <p id="backfill">
            {/* P7: how far its older pages are read, or why that ended. */}
            {backfill.text.replace(/^older pages: /, "Older pages: ")}
          </p>
          {backfill.state === "retired" && row.retiredAt !== undefined && (
            <p id="no-restart">
              No restart: it was retired {row.retiredAt} (no longer in the catalog), so no night
              reads it.
            </p>
          )}
          {ended && row.retiredAt === undefined && (
            <form method="post" action={`${sourceHref(id)}/backfill`}>
              <CsrfField token={csrf} />
              <button type="submit">
                {backfill.state === "given-up"
                  ? "Restart its older pages from that page"
                  : "Read its older pages again from the list's first page"}
              </button>
            </form>
          )}
          {/* P24, P26: a retired source is read by no night: no mark to make (refused, 409). */}
          {row.retiredAt !== undefined ? null : row.reading ? (
            <form method="post" action={action}>
              <CsrfField token={csrf} />
              <input type="hidden" name="action" value="not-read" />
              <label>
                Reason (required, shown to the public, P24, P26){" "}
                <input name="reason" size={60} required maxLength={REASON_MAX} />
              </label>{" "}
              <button type="submit">Mark not read</button>
            </form>
          ) : (
            <form method="post" action={action}>
              <CsrfField token={csrf} />
              <input type="hidden" name="action" value="read" />
              <button type="submit">Resume reading</button>
            </form>
          )}
          <h2>Marks</h2>
          <Wide label="Marks">
            <table>
              <tr>
                <th>at</th>
                <th>change</th>
                <th>reason</th>
                <th>by</th>
                <th>night</th>
              </tr>
              {marks.map((m) => (
                <tr>
                  <td>{nyTime(markShownAt(m))}</td>
                  <td>{m.reading === 1 ? "read" : "not read"}</td>
                  <td>{m.reason ?? ""}</td>
                  <td>{m.by}</td>
                  <td>{m.night}</td>
                </tr>
              ))}
            </table>
          </Wide>
        </ConsoleLayout>
      ),
    };
  };

  const notFound = (id: string, csrf: string) => (
    <ConsoleLayout title="No such source" csrf={csrf}>
      <p>No source "{id}" in the store.</p>
    </ConsoleLayout>
  );

  app.get("/sources/:id", consoleReads([], { title: "Source" }), async (c) => {
    const csrf = c.get("session").csrfToken;
    const p = await page(c.req.param("id"), csrf);
    return p ? c.html(p.body, p.status) : c.html(notFound(c.req.param("id"), csrf), 404);
  });

  // P7: a backfill that ended goes on from the next night (`nor backfill restart`).
  app.post("/sources/:id/backfill", async (c) => {
    const id = c.req.param("id");
    const csrf = c.get("session").csrfToken;
    const o = await restartBackfill(db, id, { by: CONSOLE_BY, at: now() });
    if (o.kind === "unknown-source") return c.html(notFound(id, csrf), 404);
    if (o.kind === "restarted") return c.redirect(sourceHref(id), 303);
    const p = await page(
      id,
      csrf,
      o.kind === "going-on"
        ? "Its older pages are still being read: nothing changed."
        : o.kind === "retired"
          ? `It was retired ${o.at} (no longer in the catalog${o.renamedTo ? `; renamed to ${o.renamedTo}` : ""}): no night reads it, nothing changed.`
          : o.kind === "off"
            ? `${capital(offText(o.asked))}: nothing changed.`
            : "No night has read its list yet: nothing changed.",
      409,
    );
    return p ? c.html(p.body, p.status) : c.html(notFound(id, csrf), 404);
  });

  // P24: only a person marks a source not read, with a reason; resuming is recorded the same way.
  app.post("/sources/:id/mark", async (c) => {
    const id = c.req.param("id");
    const csrf = c.get("session").csrfToken;
    const body = await c.req.parseBody();
    const action = body["action"];
    const raw = typeof body["reason"] === "string" ? body["reason"] : "";
    if (action !== "read" && action !== "not-read") {
      const p = await page(id, csrf, "Choose to mark it not read or to resume reading.", 400);
      return p ? c.html(p.body, p.status) : c.html(notFound(id, csrf), 404);
    }
    // A person's one line of text, as `nor mark --reason` takes it; one a reader would not see
    // is no reason (P24 below).
    const checked = checkPersonText(raw, "reason");
    if (action === "not-read" && !checked.ok && !checked.empty) {
      const p = await page(id, csrf, `The reason ${checked.why}.`, 400);
      return p ? c.html(p.body, p.status) : c.html(notFound(id, csrf), 404);
    }
    const reason = checked.ok ? checked.text : "";
    const at = now();
    // A store that fails throws: the app answers 500, never "no such source".
    const outcome = await markSource(db, {
      source: id,
      reading: action === "read",
      ...(action === "not-read" ? { reason } : {}),
      by: CONSOLE_BY,
      at,
      night: nightOf(at),
    });
    const again = async (message: string, status: 400 | 409) => {
      const p = await page(id, csrf, message, status);
      return p ? c.html(p.body, p.status) : c.html(notFound(id, csrf), 404);
    };
    switch (outcome.kind) {
      case "marked":
        return c.redirect(sourceHref(id), 303);
      case "unknown-source":
        return c.html(notFound(id, csrf), 404);
      case "retired":
        return again(
          `It was retired ${outcome.at} (no longer in the catalog${outcome.renamedTo ? `; renamed to ${outcome.renamedTo}` : ""}): no night reads it, nothing changed.`,
          409,
        );
      case "reason-missing":
        return again("A reason is required to mark a source not read (P24).", 400);
      case "already":
        return again(
          outcome.reading
            ? "It is already read: nothing changed."
            : `It is already not read for that reason (since ${outcome.since ? nyTime(outcome.since) : "-"}): nothing changed.`,
          409,
        );
    }
  });
}

/** A sentence's first letter in capitals. */
function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
