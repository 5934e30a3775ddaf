import type { Hono } from "hono";
import type { FC } from "hono/jsx";
import { UsageError } from "../../errors.js";
import { parseDuration } from "../../night/duration.js";
import { MAX_OWNER_GAP_MS, MIN_GAP_MS } from "../../policy/constants.js";
import { leaveAlonePathProblem, shortenedPath } from "../../policy/leave-alone-path.js";
import { nightOf } from "../../policy/night-date.js";
import { checkPersonText, REASON_MAX } from "../../policy/person-text.js";
import { readSite, siteFromInput } from "../../policy/site.js";
import type { Db } from "../../store/db.js";
import { sourceCountsBySite } from "../../store/read/console.js";
import {
  clearSiteRules,
  heldSites,
  type SiteRule,
  type SiteRuleKind,
  type SiteState,
  setSiteRule,
  siteRules,
  siteState,
} from "../../store/site-rules.js";
import { echo } from "../public/echo.js";
import { countOf, wordFor } from "../public/format.js";
import { BASE, type ConsoleEnv } from "./auth.js";
import { ConsoleLayout, CsrfField, Message, nyTime, Wide } from "./layout.js";
import { consoleReads } from "./query.js";
import { CONSOLE_BY } from "./sources.js";

const KINDS: readonly SiteRuleKind[] = ["gap", "leave-alone", "not-read"];

const anchor = (site: string) => `site-${site.replace(/[^a-z0-9.-]/gi, "_")}`;
const sitesHref = (site?: string) => `${BASE}/sites${site ? `#${anchor(site)}` : ""}`;

function ruleText(r: SiteRule): string {
  if (r.kind === "gap") return `at least ${Number(r.value) / 1000} s between requests`;
  if (r.kind === "leave-alone") return `${r.value ?? "/"} left alone`;
  return "the whole site not read";
}

/** What the journal holds about the site now: a no tonight (P21), a Retry-After or a retry's wait (P15). */
const JournalState: FC<{ st: SiteState | undefined; night: string; now: number }> = ({
  st,
  night,
  now,
}) => {
  const lines: string[] = [];
  if (st?.closedNight)
    lines.push(
      `Said no on the night of ${st.closedNight}${st.closedNight === night ? " (tonight: nothing more goes there tonight)" : ""}: ${st.closedReason ?? "no reason recorded"}.`,
    );
  // Down (a 5xx after a request's retries): nothing more asked that night, and not a no.
  if (st?.downNight)
    lines.push(
      `Down on the night of ${st.downNight}${st.downNight === night ? " (tonight: nothing more goes there tonight; not a no)" : " (not a no)"}: ${st.downReason ?? "no reason recorded"}.`,
    );
  if (st?.notBefore !== undefined && st.notBefore > now)
    lines.push(
      `Held until ${nyTime(st.notBefore)}: a Retry-After, or the wait before a retry after a 429 or 5xx; no request before then.`,
    );
  if (st?.lastEndAt !== undefined) lines.push(`Last request ended ${nyTime(st.lastEndAt)}.`);
  if (lines.length === 0) lines.push("Nothing in the journal holds this site.");
  return (
    <ul class="journal small">
      {lines.map((l) => (
        <li>{l}</li>
      ))}
    </ul>
  );
};

/** The reason of an owner's request: their words and the date, one line (person-text.ts). */
const ReasonField: FC = () => (
  <label>
    Reason{" "}
    <input
      name="reason"
      size={40}
      required
      maxLength={REASON_MAX}
      placeholder="the owner's words, the date"
    />
  </label>
);

/** The three requests an owner can make, each with its reason (the owner's words, the date). */
const RuleForms: FC<{ site: string; csrf: string }> = ({ site, csrf }) => {
  const action = `${BASE}/sites/rules`;
  const reason = <ReasonField />;
  return (
    <div class="rule-forms">
      <form method="post" action={action}>
        <CsrfField token={csrf} />
        <input type="hidden" name="site" value={site} />
        <input type="hidden" name="kind" value="gap" />
        <label>
          Gap{" "}
          <input name="value" size={6} required placeholder="30s" aria-label="Gap (e.g. 30s, 2m)" />
        </label>{" "}
        {reason} <button type="submit">Set the gap</button>
      </form>
      <form method="post" action={action}>
        <CsrfField token={csrf} />
        <input type="hidden" name="site" value={site} />
        <input type="hidden" name="kind" value="leave-alone" />
        <label>
          Leave alone{" "}
          <input name="value" size={16} required placeholder="/permits/" pattern="/.*" />
        </label>{" "}
        {reason} <button type="submit">Leave these paths alone</button>
      </form>
      <form method="post" action={action}>
        <CsrfField token={csrf} />
        <input type="hidden" name="site" value={site} />
        <input type="hidden" name="kind" value="not-read" />
        {reason} <button type="submit">Do not read this site</button>
      </form>
    </div>
  );
};

const ClearButton: FC<{ r: SiteRule; csrf: string }> = ({ r, csrf }) => (
  <form class="inline" method="post" action={`${BASE}/sites/clear`}>
    <CsrfField token={csrf} />
    <input type="hidden" name="site" value={r.site} />
    <input type="hidden" name="kind" value={r.kind} />
    {r.kind === "leave-alone" ? <input type="hidden" name="value" value={r.value ?? "/"} /> : null}
    <button type="submit">Clear</button>
  </form>
);

type Checked =
  | { ok: true; site: string; kind: SiteRuleKind; value?: string; reason: string }
  | { ok: false; message: string };

/**
 * Every field is checked before the store is touched; a refusal says what to change. What it
 * says back of the form (the site, the gap, the path, and the reasons other modules give that
 * quote them) is echoed as the public side echoes a request (echo.ts): a NUL, a terminal's
 * escape or a direction mark typed into a field is written as its percent-escapes, never raw.
 */
export function checkRuleForm(body: Record<string, unknown>): Checked {
  const text = (k: string) => (typeof body[k] === "string" ? (body[k] as string).trim() : "");
  // As `nor site` reads it, and refused with the same reason (`gov`, `example..gov`).
  const read = readSite(text("site"));
  if (!read.ok)
    return {
      ok: false,
      message: `"${echo(text("site"))}" is not a site, host or URL: ${echo(read.reason)}.`,
    };
  const site = read.site;
  const kind = text("kind");
  if (!(KINDS as readonly string[]).includes(kind))
    return { ok: false, message: "Choose a gap, a path to leave alone, or not read." };
  // A person's one line of text, as `nor site --reason` takes it; one a reader would not see
  // is no reason.
  const person = checkPersonText(
    typeof body["reason"] === "string" ? body["reason"] : "",
    "reason",
  );
  if (!person.ok && person.empty)
    return {
      ok: false,
      message: "A site owner's request needs a reason (their words, the e-mail's date).",
    };
  if (!person.ok) return { ok: false, message: `The reason ${person.why}.` };
  const reason = person.text;
  const value = text("value");
  if (kind === "gap") {
    let ms: number;
    try {
      ms = parseDuration(value, "gap", MIN_GAP_MS);
    } catch (err) {
      if (err instanceof UsageError) return { ok: false, message: `${echo(err.message)}.` };
      throw err;
    }
    if (ms < MIN_GAP_MS)
      return {
        ok: false,
        message: `A gap of ${echo(value)} is under the ${MIN_GAP_MS / 1000} s floor (P10): the checker never asks a site faster than that, so nothing was changed.`,
      };
    if (ms > MAX_OWNER_GAP_MS)
      return {
        ok: false,
        message: `A gap of ${echo(value)} is longer than a night (at most 24h): to keep the checker off the site, mark it not read instead; nothing was changed.`,
      };
    return { ok: true, site, kind, value: String(ms), reason };
  }
  if (kind === "leave-alone") {
    const problem = leaveAlonePathProblem(value);
    if (problem !== undefined)
      return {
        ok: false,
        message: `A path to leave alone ${problem} (e.g. /permits/); "${echo(shortenedPath(value))}" does not, so nothing was changed.`,
      };
    return { ok: true, site, kind, value, reason };
  }
  return { ok: true, site, kind: "not-read", reason };
}

/**
 * What site owners asked by e-mail, kept per site with its reason and date: a longer gap,
 * paths left alone (a robots.txt Disallow for this checker), the whole site not read (P26: its
 * pages stay listed). The journal reads them when each request is admitted, so a change here
 * holds from the next request on, in every process (the same rules `nor site` sets).
 */
export function siteRoutes(app: Hono<ConsoleEnv>, db: Db, now: () => number, reads: Db = db): void {
  const render = async (csrf: string, message?: string) => {
    const t = now();
    const night = nightOf(t);
    const rules = await siteRules(reads);
    const held = await heldSites(reads, night, t);
    const sites = [...new Set([...rules.map((r) => r.site), ...held.map((h) => h.site)])].sort();
    const states = new Map<string, SiteState | undefined>();
    for (const h of held) states.set(h.site, h);
    for (const s of sites) if (!states.has(s)) states.set(s, await siteState(reads, s));
    const counts = await sourceCountsBySite(reads, sites);
    return (
      <ConsoleLayout title="Sites" csrf={csrf}>
        <Message text={message} />
        <p>
          What site owners asked for, kept per site with its reason and date, and what the journal
          holds about each site tonight. A request holds from the checker's next request to the site
          on, in every process. The reason is shown on the public pages of the sources it stops.
        </p>
        <p class="note">
          <span id="site-count">{sites.length}</span> {wordFor(sites.length, "site")} with an
          owner's request or held tonight ({night}).
        </p>
        {sites.map((site) => {
          const own = rules.filter((r) => r.site === site);
          return (
            <section id={anchor(site)} class="site-rules" data-site={site}>
              <h2>{site}</h2>
              <p class="small muted">
                {countOf(counts.get(site) ?? 0, "source")} of the catalog on this site.
              </p>
              {own.length === 0 ? (
                <p class="small">No owner's request in force.</p>
              ) : (
                <Wide label={`Requests in force for ${site}`}>
                  <table>
                    <tr>
                      <th>kind</th>
                      <th>request</th>
                      <th>reason</th>
                      <th>since</th>
                      <th>by</th>
                      <th>
                        <span class="visually-hidden">clear</span>
                      </th>
                    </tr>
                    {own.map((r) => (
                      <tr data-kind={r.kind}>
                        <td>{r.kind}</td>
                        <td>{ruleText(r)}</td>
                        <td>{r.reason}</td>
                        <td>{nyTime(r.at)}</td>
                        <td>{r.by}</td>
                        <td>
                          <ClearButton r={r} csrf={csrf} />
                        </td>
                      </tr>
                    ))}
                  </table>
                </Wide>
              )}
              <JournalState st={states.get(site)} night={night} now={t} />
              <details>
                <summary>Add a request for {site}</summary>
                <RuleForms site={site} csrf={csrf} />
              </details>
            </section>
          );
        })}
        <h2>Another site</h2>
        <form method="post" action={`${BASE}/sites/rules`} id="new-site">
          <CsrfField token={csrf} />
          <label>
            Site <input name="site" size={24} required placeholder="example.gov or a URL" />
          </label>{" "}
          <label>
            Request{" "}
            <select name="kind">
              <option value="gap">a longer gap</option>
              <option value="leave-alone">a path left alone</option>
              <option value="not-read">not read</option>
            </select>
          </label>{" "}
          <label>
            Gap or path <input name="value" size={16} placeholder="30s or /permits/" />
          </label>{" "}
          <ReasonField /> <button type="submit">Add</button>
        </form>
      </ConsoleLayout>
    );
  };

  app.get("/sites", consoleReads([], { title: "Sites" }), async (c) =>
    c.html(await render(c.get("session").csrfToken)),
  );

  app.post("/sites/rules", async (c) => {
    const csrf = c.get("session").csrfToken;
    const checked = checkRuleForm(await c.req.parseBody());
    if (!checked.ok) return c.html(await render(csrf, checked.message), 400);
    await setSiteRule(db, {
      site: checked.site,
      kind: checked.kind,
      ...(checked.value !== undefined ? { value: checked.value } : {}),
      reason: checked.reason,
      at: now(),
      by: CONSOLE_BY,
    });
    return c.redirect(sitesHref(checked.site), 303);
  });

  app.post("/sites/clear", async (c) => {
    const csrf = c.get("session").csrfToken;
    const body = await c.req.parseBody();
    const text = (k: string) => (typeof body[k] === "string" ? (body[k] as string).trim() : "");
    const site = siteFromInput(text("site"));
    const kind = text("kind");
    if (site === undefined || !(KINDS as readonly string[]).includes(kind))
      return c.html(await render(csrf, "Clear a request from its row below."), 400);
    // The path exactly as its row holds it (a hidden field): one stored before paths were
    // refused with spaces in them may end in one.
    const value = typeof body["value"] === "string" ? body["value"] : "";
    if (kind === "leave-alone" && value.trim() === "")
      return c.html(await render(csrf, "Name the path to read again."), 400);
    const n = await clearSiteRules(db, {
      site,
      kind: kind as SiteRuleKind,
      ...(kind === "leave-alone" ? { value } : {}),
      at: now(),
      by: CONSOLE_BY,
    });
    if (n === 0)
      return c.html(await render(csrf, `Nothing of that kind is in force for ${site}.`), 409);
    return c.redirect(sitesHref(site), 303);
  });
}
