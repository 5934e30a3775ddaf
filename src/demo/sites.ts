/**
 * The demo's government sites: small Ohio-like sites generated here and served on loopback,
 * each in the shape of a platform the checker reads (the shapes of the saved pages in the
 * project's platform fixtures, cut down and with invented names). Nothing here is real:
 * every government, meeting and permit is made up, and nothing listens outside 127.0.0.0/8.
 *
 * Each site is its own host (127.0.0.21 …), so each is its own site for P9 and the night
 * works them side by side; where the system allows only 127.0.0.1 they share it (one lane,
 * a slower night). `night` moves them on: the second night some records are new.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface DemoSource {
  id: string;
  government: { id: string; name: string; kind: string; county: string };
  records: string;
  name: string;
  /** What this site shows of the checker (for the lines the demo prints). */
  shows: string;
  /** The catalog entry's own lines after id/government/records/name (YAML, two-space indent). */
  yaml(url: string): string[];
  path: string;
  handle(req: IncomingMessage, body: string, res: ServerResponse, night: number): void;
  /** Milliseconds before answering (the slow site). */
  delayMs?: number;
  robots?: string;
}

export interface DemoSite {
  source: DemoSource;
  origin: string;
  url: string;
  /** Requests this site answered, as a site owner's log would show them. */
  requests: { method: string; path: string; userAgent: string }[];
}

export interface DemoSites {
  sites: DemoSite[];
  /** Which night the sites answer for (1, then 2). */
  night: number;
  catalogYaml(): string;
  close(): Promise<void>;
}

const DAY = 86_400_000;
const pad = (n: number) => String(n).padStart(2, "0");
const ymd = (t: number) => new Date(t).toISOString().slice(0, 10);
const mdy = (t: number) => {
  const d = new Date(t);
  return `${pad(d.getUTCMonth() + 1)}/${pad(d.getUTCDate())}/${d.getUTCFullYear()}`;
};
const mdyShort = (t: number) => {
  const d = new Date(t);
  return `${d.getUTCMonth() + 1}/${d.getUTCDate()}/${d.getUTCFullYear()}`;
};
const MONTHS = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split(" ");
const spelled = (t: number) => {
  const d = new Date(t);
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()}`;
};
const esc = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

function send(res: ServerResponse, status: number, type: string, body: string, extra = {}): void {
  res.writeHead(status, { "content-type": type, ...extra }).end(body);
}
const html = (res: ServerResponse, body: string) =>
  send(res, 200, "text/html; charset=utf-8", body);
const page = (title: string, main: string) =>
  `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title></head><body><h1>${esc(title)}</h1>${main}</body></html>`;

/** Meeting dates: `n` days before the demo's day, newest first. */
const daysAgo = (today: number, ...n: number[]) => n.map((k) => today - k * DAY);

/** The sources, given the demo's day (UTC midnight of today). */
export function demoSources(today: number): DemoSource[] {
  const agendaCenter: DemoSource = {
    id: "millbrook-council-agendas",
    government: {
      id: "village-of-millbrook",
      name: "Village of Millbrook",
      kind: "village",
      county: "Delaware",
    },
    records: "agendas",
    name: "Village Council agendas and minutes",
    shows: "a CivicPlus Agenda Center, searched by date and read back a year a night (P7)",
    path: "/AgendaCenter",
    yaml: (url) => [`url: ${url}`, "platform: civicplus-agendacenter"],
    handle(req, _body, res) {
      const u = new URL(req.url ?? "/", "http://x");
      if (!u.pathname.startsWith("/AgendaCenter/Search")) {
        return html(res, page("Agenda Center", "<p>Use the search.</p>"));
      }
      const from = Date.parse(toIso(u.searchParams.get("startDate")));
      const to = Date.parse(toIso(u.searchParams.get("endDate")));
      const meetings = [
        ...daysAgo(today, 6, 20, 34).map((t, i) => ({
          t,
          id: 300 - i,
          title: "Regular Council Meeting",
        })),
        ...daysAgo(today, 400, 430).map((t, i) => ({
          t,
          id: 200 - i,
          title: "Regular Council Meeting",
        })),
      ].filter((m) => m.t >= from && m.t <= to);
      if (meetings.length === 0) {
        return html(res, page("Agenda Center", "<p>No results found in the date range.</p>"));
      }
      const rows = meetings
        .map((m) => {
          const key = `${mdy(m.t).replace(/\//g, "")}-${m.id}`;
          return `<tr class="catAgendaRow"><td><h4><a name="_${key}"></a><strong>${spelled(m.t)}</strong></h4><p>${m.title}</p></td><td><a href="/AgendaCenter/ViewFile/Agenda/_${key}">Agenda</a></td><td><a href="/AgendaCenter/ViewFile/Minutes/_${key}">Minutes</a></td></tr>`;
        })
        .join("");
      html(
        res,
        page(
          "Agenda Center",
          `<div class="listing"><h2>▼ Village Council</h2><table>${rows}</table></div>`,
        ),
      );
    },
  };

  const legistar: DemoSource = {
    id: "riverbend-council-meetings",
    government: {
      id: "city-of-riverbend",
      name: "City of Riverbend",
      kind: "city",
      county: "Franklin",
    },
    records: "meetings",
    name: "City Council meetings",
    shows: "a Legistar calendar (a Telerik grid, read from the list itself: P6)",
    path: "/Calendar.aspx",
    yaml: (url) => [`url: ${url}`, "platform: legistar-html"],
    handle(_req, _body, res) {
      const rows = daysAgo(today, 3, 10, 17, 24)
        .map((t, i) => {
          const id = 900 - i;
          const cls = i % 2 ? "rgAltRow" : "rgRow";
          return `<tr class="${cls}"><td><a href="DepartmentDetail.aspx?ID=1">City Council</a></td><td>${mdyShort(t)}</td><td><a href="View.ashx?M=IC&amp;ID=${id}">iCal</a></td><td><span id="x_${id}_lblTime">7:00 PM</span></td><td>Council Chambers</td><td><a href="MeetingDetail.aspx?ID=${id}&amp;GUID=G${id}">Meeting details</a></td><td><a href="View.ashx?M=A&amp;ID=${id}&amp;GUID=G${id}">Agenda</a></td></tr>`;
        })
        .join("");
      html(
        res,
        page(
          "City of Riverbend - Calendar",
          `<table class="rgMasterTable"><thead><tr><th>Name</th><th>Meeting Date</th><th></th><th>Time</th><th>Location</th><th>Details</th><th>Agenda</th></tr></thead><tbody>${rows}</tbody></table>`,
        ),
      );
    },
  };

  const boardDocs: DemoSource = {
    id: "millbrook-schools-board-meetings",
    government: {
      id: "millbrook-city-schools",
      name: "Millbrook City Schools",
      kind: "school-district",
      county: "Delaware",
    },
    records: "meetings",
    name: "Board of Education meetings",
    shows: "BoardDocs: one POST to its meetings list, answered in JSON (an API before a page: P4)",
    path: "/oh/millbrook/Board.nsf/Public?committee=A9DEMO0001",
    yaml: (url) => [`url: "${url}"`, "platform: boarddocs"],
    handle(req, _body, res) {
      if (req.method !== "POST" || !(req.url ?? "").includes("BD-GetMeetingsList")) {
        return html(res, page("BoardDocs", "<script>/* the app loads here */</script>"));
      }
      const list = daysAgo(today, 5, 19, 33).map((t, i) => ({
        unique: `DEMO${400 - i}`,
        name: i === 1 ? "SPECIAL BOARD MEETING" : "REGULAR BOARD MEETING",
        numberdate: ymd(t).replace(/-/g, ""),
      }));
      send(res, 200, "application/json", JSON.stringify([...list, {}]));
    },
  };

  // Posted in the morning of their day, as a CivicPlus feed's pubDate is a posting time (the
  // platform fixtures: `Fri, 17 Apr 2026 08:16:41 -0500`): 14:15 UTC is 9:15 or 10:15 in Ohio.
  // Midnight UTC, a day's start written as an instant, is the evening before in Ohio, and the
  // directory shows the day the instant falls on there (docs/catalog.md).
  const notices = daysAgo(today, 1, 8, 15).map((t, i) => ({
    t: t + 14 * 3_600_000 + 15 * 60_000,
    title: `Public notice ${40 - i}: ${["road closure", "zoning hearing", "budget hearing"][i]}`,
  }));
  const rss: DemoSource = {
    id: "harmon-county-notices",
    government: { id: "harmon-county", name: "Harmon County", kind: "county", county: "Knox" },
    records: "notices",
    name: "Public notices (RSS)",
    shows: "an RSS feed with an ETag: the second night asks If-None-Match and gets 304 (P12)",
    path: "/RSSFeed.aspx?ModID=1&CID=Public-Notices-4",
    // No `access:`: a URL alone is read as a feed.
    yaml: (url) => [`url: "${url}"`],
    handle(req, _body, res) {
      const etag = '"notices-v1"';
      if (req.headers["if-none-match"] === etag) {
        res.writeHead(304, { etag }).end();
        return;
      }
      const origin = `http://${req.headers.host ?? "127.0.0.1"}`;
      const items = notices
        .map(
          (it, i) =>
            `<item><title>${esc(it.title)}</title><link>${origin}/CivicAlerts.aspx?AID=${500 - i}</link><guid>${origin}/CivicAlerts.aspx?AID=${500 - i}</guid><pubDate>${new Date(it.t).toUTCString()}</pubDate></item>`,
        )
        .join("");
      send(
        res,
        200,
        "application/rss+xml",
        `<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>Harmon County: Public Notices</title><link>${origin}/</link><description>Notices</description>${items}</channel></rss>`,
        { etag },
      );
    },
  };

  const GRID = "ctl00$Main$gvResults";
  const BUTTON = "ctl00$Main$btnSearch";
  const FROM = "ctl00$Main$txtFrom";
  const permits = [1, 2, 3].map((p) =>
    [1, 2].map((i) => {
      const n = (p - 1) * 2 + i;
      return {
        title: `Building permit B-${2600 - n}`,
        t: today - n * 4 * DAY,
        doc: `/Permits/B${2600 - n}.pdf`,
      };
    }),
  );
  const aspx = (state: string, from: string, grid: string) =>
    page(
      "Harmon County Building Permits",
      `<form method="post" action="./Search.aspx" id="aspnetForm">
<input type="hidden" name="__EVENTTARGET" value="" /><input type="hidden" name="__EVENTARGUMENT" value="" />
<input type="hidden" name="__VIEWSTATE" value="${state}" /><input type="hidden" name="__EVENTVALIDATION" value="EV-${state}" />
<label>Issued from <input type="text" name="${FROM}" value="${esc(from)}" /></label>
<input type="submit" name="${BUTTON}" value="Search" />${grid}</form>`,
    );
  const gridOf = (p: number) => {
    const rows = (permits[p - 1] ?? [])
      .map(
        (r) =>
          `<tr class="row"><td><a href="${r.doc}">${r.title}</a></td><td>${mdy(r.t)}</td></tr>`,
      )
      .join("");
    const pager = [1, 2, 3]
      .map((n) =>
        n === p
          ? `<td><span>${n}</span></td>`
          : `<td><a href="javascript:__doPostBack('${GRID}','Page$${n}')">${n}</a></td>`,
      )
      .join("");
    return `<table id="ctl00_Main_gvResults"><tr><th>Permit</th><th>Issued</th></tr>${rows}<tr class="pager"><td colspan="2"><table><tr>${pager}</tr></table></td></tr></table>`;
  };
  const form: DemoSource = {
    id: "harmon-county-building-permits",
    government: harmon(),
    records: "permits",
    name: "Building permits (search form)",
    shows: "an ASP.NET search form: filled in and posted back, its result pages turned (P5)",
    path: "/Permits/Search.aspx",
    yaml: (url) => [
      `url: ${url}`,
      "form:",
      `  fields: { "${FROM}": "{today-60d}" }`,
      `  submit: "${BUTTON}"`,
      `  pager: "${GRID}"`,
      "extract:",
      "  items: '#ctl00_Main_gvResults tr.row'",
      "  title: 'td:nth-child(1) a'",
      "  link: 'td:nth-child(1) a'",
      "  date: 'td:nth-child(2)'",
      "backfill: { pagesPerNight: 2 }",
    ],
    handle(req, body, res) {
      if (req.method !== "POST") return html(res, aspx("VS-FORM", "", ""));
      const f = Object.fromEntries(new URLSearchParams(body));
      const m = /^Page\$(\d)$/.exec(f["__EVENTARGUMENT"] ?? "");
      const p = f["__EVENTTARGET"] === GRID && m ? Number(m[1]) : f[BUTTON] ? 1 : 0;
      if (p < 1 || p > 3) return send(res, 400, "text/plain", "bad postback");
      html(res, aspx(`VS-P${p}`, f[FROM] ?? "", gridOf(p)));
    },
  };

  const refusing: DemoSource = {
    id: "eastfield-township-minutes",
    government: {
      id: "eastfield-township",
      name: "Eastfield Township",
      kind: "township",
      county: "Licking",
    },
    records: "minutes",
    name: "Trustee meeting minutes",
    shows:
      "a site that says no (403): the checker stops there for the night and shows the no (P21, P23)",
    path: "/minutes",
    yaml: (url) => [`url: ${url}`, "extract: { items: 'li', link: 'a' }"],
    handle(_req, _body, res) {
      send(
        res,
        403,
        "text/html",
        page("403 Forbidden", "<p>Access denied. Your request was blocked.</p>"),
      );
    },
  };

  const slow: DemoSource = {
    id: "slowwater-village-bids",
    government: {
      id: "village-of-slowwater",
      name: "Village of Slowwater",
      kind: "village",
      county: "Ross",
    },
    records: "bids",
    name: "Bids and RFPs",
    shows: "a slow site (4 s to answer): waited for, well inside the 30 s limit (P14)",
    path: "/bids",
    delayMs: 4_000,
    yaml: (url) => [`url: ${url}`, "extract: { items: 'li.bid', title: a, link: a, date: time }"],
    handle(_req, _body, res) {
      const items = daysAgo(today, 2, 12)
        .map(
          (t, i) =>
            `<li class="bid"><a href="/bids/${70 - i}">Bid ${70 - i}: ${["salt dome roof", "street paving"][i]}</a> <time>${ymd(t)}</time></li>`,
        )
        .join("");
      html(res, page("Bids", `<ul>${items}</ul>`));
    },
  };

  const disallowed: DemoSource = {
    id: "closedport-city-permits",
    government: {
      id: "city-of-closedport",
      name: "City of Closedport",
      kind: "city",
      county: "Erie",
    },
    records: "permits",
    name: "Permits issued",
    shows: "robots.txt disallows everything: only robots.txt is read, never the page (P18)",
    path: "/permits",
    robots: "User-agent: *\nDisallow: /\n",
    yaml: (url) => [`url: ${url}`, "extract: { items: 'li', link: 'a' }"],
    handle(_req, _body, res) {
      html(res, page("Permits", "<ul><li><a href='/p/1'>never read</a></li></ul>"));
    },
  };

  const changing: DemoSource = {
    id: "changeville-council-minutes",
    government: {
      id: "city-of-changeville",
      name: "City of Changeville",
      kind: "city",
      county: "Summit",
    },
    records: "minutes",
    name: "Council minutes",
    shows: "a page whose records change between nights: the second night finds two new ones",
    path: "/government/minutes",
    // An `extract` recipe without `access:` reads a page.
    yaml: (url) => [
      `url: ${url}`,
      "extract: { items: 'li.doc', title: a, link: a, date: '.date' }",
    ],
    handle(_req, _body, res, night) {
      const docs = [
        ...(night >= 2
          ? [
              { t: today, title: "Council minutes (special session)" },
              { t: today - DAY, title: "Finance Committee minutes" },
            ]
          : []),
        ...daysAgo(today, 7, 14, 21).map((t) => ({ t, title: "Council minutes" })),
      ];
      const items = docs
        .map(
          (d) =>
            `<li class="doc"><a href="/docs/${ymd(d.t)}-${d.title.length}.pdf">${d.title}</a> <span class="date">${spelled(d.t)}</span></li>`,
        )
        .join("");
      html(res, page("Council minutes", `<ul>${items}</ul>`));
    },
  };

  return [agendaCenter, legistar, boardDocs, rss, form, refusing, slow, disallowed, changing];
}

function harmon(): DemoSource["government"] {
  return { id: "harmon-county", name: "Harmon County", kind: "county", county: "Knox" };
}

function toIso(mdyText: string | null): string {
  const m = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(mdyText ?? "");
  return m ? `${m[3]}-${m[1]}-${m[2]}T00:00:00Z` : "invalid";
}

/** Starts every demo site; `today` is UTC midnight of the demo's day. */
export async function startDemoSites(today: number): Promise<DemoSites> {
  const servers: Server[] = [];
  const sites: DemoSite[] = [];
  const state = { night: 1 };
  // A slow site's answers waiting to be sent: dropped when the sites close (a demo stopped
  // mid-night ends then, not when the last of them would have been sent).
  const waiting = new Set<NodeJS.Timeout>();
  let host = 21;
  let shared = false;
  for (const source of demoSources(today)) {
    const site: DemoSite = { source, origin: "", url: "", requests: [] };
    const server = createServer((req, res) => {
      let body = "";
      req.setEncoding("utf8");
      req.on("data", (c: string) => {
        if (body.length < 100_000) body += c;
      });
      req.on("end", () => {
        const ua = req.headers["user-agent"];
        site.requests.push({
          method: req.method ?? "GET",
          path: req.url ?? "/",
          userAgent: Array.isArray(ua) ? ua.join(", ") : (ua ?? ""),
        });
        if (req.url === "/robots.txt") {
          if (source.robots) send(res, 200, "text/plain", source.robots);
          else send(res, 200, "text/plain", "User-agent: *\nDisallow: /admin/\n");
          return;
        }
        const answer = () => source.handle(req, body, res, state.night);
        if (source.delayMs) {
          const timer = setTimeout(() => {
            waiting.delete(timer);
            answer();
          }, source.delayMs);
          waiting.add(timer);
        } else answer();
      });
    });
    const address = await listenOn(server, shared ? "127.0.0.1" : `127.0.0.${host}`).catch(
      async () => {
        // Only 127.0.0.1 here (macOS, some containers): every site shares it.
        shared = true;
        return listenOn(server, "127.0.0.1");
      },
    );
    host++;
    servers.push(server);
    site.origin = `http://${address.address}:${address.port}`;
    site.url = `${site.origin}${source.path}`;
    sites.push(site);
  }
  return {
    sites,
    get night() {
      return state.night;
    },
    set night(n: number) {
      state.night = n;
    },
    catalogYaml: () => catalogYaml(sites),
    close: async () => {
      for (const timer of waiting) clearTimeout(timer);
      waiting.clear();
      await Promise.all(
        servers.map(
          (s) =>
            new Promise<void>((done) => {
              s.closeAllConnections();
              s.close(() => done());
            }),
        ),
      );
    },
  };
}

function listenOn(server: Server, host: string): Promise<AddressInfo> {
  return new Promise((ok, fail) => {
    const onError = (err: Error) => fail(err);
    server.once("error", onError);
    server.listen(0, host, () => {
      server.off("error", onError);
      ok(server.address() as AddressInfo);
    });
  });
}

/** The demo's catalog file, as an operator would write it (docs/catalog.md). */
function catalogYaml(sites: DemoSite[]): string {
  const govs = new Map(sites.map((s) => [s.source.government.id, s.source.government]));
  const lines = [
    "# The demo's catalog: invented governments on loopback sites (nor demo).",
    "governments:",
  ];
  for (const g of govs.values()) {
    lines.push(`  - { id: ${g.id}, name: ${g.name}, kind: ${g.kind}, county: ${g.county} }`);
  }
  lines.push("sources:");
  for (const s of sites) {
    lines.push(
      `  - id: ${s.source.id}`,
      `    government: ${s.source.government.id}`,
      `    records: ${s.source.records}`,
      `    name: ${s.source.name}`,
      ...s.source.yaml(s.url).map((l) => `    ${l}`),
    );
  }
  return `${lines.join("\n")}\n`;
}
