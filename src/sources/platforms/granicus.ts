/**
 * Granicus media sites (`<city>.granicus.com`): the `ViewPublisher.php?view_id=N` page (tables
 * `.listingTable` of upcoming events and archived clips, one `tr.listingRow` per meeting; every
 * listing whose columns include Name and Date is read, each cell under its own header, and
 * the meetings deduplicated — P6: never the first table by accident) and
 * its feed `ViewPublisherRSS.php?view_id=N&mode=agendas` (P4: the feed is preferred; the page
 * is the fallback). Ids are the platform's `clip:<clip_id>` / `event:<event_id>`, the same in
 * both, so switching ways in does not make old records look new.
 * Traps: dates padded with NBSP and double spaces; protocol-relative links; the video link is
 * only in an `onclick="window.open('//…MediaPlayer.php…')"`; the feed's pubDate offset is
 * wrong (-0800 for Florida), so the date comes from the title's `- Mon DD, YYYY`.
 */
import type { Cheerio, CheerioAPI } from "cheerio";
import type { Element } from "domhandler";
import { decodeBody } from "../../policy/body-text.js";
import { answerDates, toIsoDate } from "../dates.js";
import { descendantsWhere } from "../extract/descendants.js";
import { textOf } from "../extract/select.js";
import { type Extraction, type ReadContext, unreadable } from "../record.js";
import { absoluteUrl, cleanText } from "../record-id.js";
import { visiblePage } from "./support/page.js";
import { allRecords, type ListedDoc, type ListedMeeting } from "./support/records.js";
import { readRss } from "./support/rss.js";
import { cellAt, findColumn, headerNames, ownRows } from "./support/table.js";
import { dateInText } from "./support/text-date.js";
import type { Platform, PlatformRequest } from "./types.js";

function granicusId(href: string): string | undefined {
  const clip = /[?&]clip_id=(\d+)/.exec(href)?.[1];
  if (clip) return `clip:${clip}`;
  const ev = /[?&]event_id=(\d+)/.exec(href)?.[1];
  return ev ? `event:${ev}` : undefined;
}

function headerCell(
  $: CheerioAPI,
  tr: Element,
  test: (headers: string[]) => boolean,
): Cheerio<Element> {
  return $(tr)
    .children("td, th")
    .filter((_, td) => test(($(td).attr("headers") ?? "").split(/\s+/)));
}

function fromPage(text: string, url: string, ctx: ReadContext): Extraction {
  const $ = visiblePage(text);
  const rows: { tr: Element; title: string; dateText: string }[] = [];
  const unread: string[] = [];
  for (const table of $("table.listingTable").toArray()) {
    const own = ownRows($, table).filter((tr) => $(tr).is(".listingRow"));
    // A listing is a meetings list when it has Name and Date columns (P6: by meaning): its
    // header row says so, or its cells do (`headers="Name"`, `headers="Date …"`).
    const names = headerNames($, table) ?? [];
    const cols = {
      name: findColumn(names, /^name$/, /^(meeting|event|title)$/),
      date: findColumn(names, /^date$/, /^(meeting )?date/),
    };
    const saidByCells = own.some(
      (tr) =>
        headerCell($, tr, (h) => h.includes("Name")).length > 0 &&
        headerCell($, tr, (h) => h[0]?.startsWith("Date") ?? false).length > 0,
    );
    if ((cols.name === undefined || cols.date === undefined) && !saidByCells) {
      // Rows with meeting links under headers this reader does not know: which is the title?
      if (own.some((tr) => $(tr).find("a[href*='clip_id='], a[href*='event_id=']").length > 0))
        unread.push(cleanText($(table).attr("summary") ?? "") || "a listing table");
      continue;
    }
    for (const tr of own) {
      // The `headers` attribute names a cell's column; the header row says it otherwise.
      const byAttr = headerCell($, tr, (h) => h.includes("Name"));
      const title = textOf(byAttr.length > 0 ? byAttr : cellAt($, tr, cols.name));
      const dateAttr = headerCell($, tr, (h) => h[0]?.startsWith("Date") ?? false);
      const dateText = textOf(dateAttr.length > 0 ? dateAttr : cellAt($, tr, cols.date)).replace(
        /\s+-\s+/,
        " ",
      );
      rows.push({ tr, title, dateText });
    }
  }
  if (unread.length > 0)
    return unreadable(
      `Granicus listing of meetings without Name and Date columns: ${unread.join("; ")}`,
    );
  const opts = answerDates(
    rows.map((r) => r.dateText),
    ctx.zone,
  );
  const meetings: ListedMeeting[] = [];
  for (const { tr, title, dateText } of rows) {
    const docs: ListedDoc[] = [];
    let id: string | undefined;
    $(descendantsWhere([tr], (el) => el.name === "a")).each((_, a) => {
      const el = $(a);
      let href = el.attr("href") ?? "";
      if (!/^(https?:)?\/\//.test(href) && !href.startsWith("/")) {
        href = /window\.open\('([^']+)'/.exec(el.attr("onclick") ?? "")?.[1] ?? "";
      }
      const abs = absoluteUrl(href, url);
      if (!abs) return;
      id ??= granicusId(abs);
      docs.push({ label: textOf(el) || "Document", href: abs });
    });
    if (!title) continue;
    meetings.push({
      id,
      title,
      date: toIsoDate(dateText, opts) ?? dateInText(dateText, opts),
      docs,
    });
  }
  const out: Extraction = { records: allRecords(meetings, url) };
  if (out.records.length === 0) {
    const empty = /Currently there are no [A-Za-z ]+/.exec(text)?.[0];
    out.note = empty ?? "no listing rows on this page";
  }
  return out;
}

function fromFeed(text: string, url: string, ctx: ReadContext): Extraction {
  const feed = readRss(text);
  if (!feed.ok) return { records: [], note: feed.why };
  const minutes = /[?&]mode=minutes/i.test(url);
  const meetings: ListedMeeting[] = [];
  for (const it of feed.items) {
    const raw = it.get("title") ?? "";
    const link = absoluteUrl(it.get("link"), url);
    const cut = raw.lastIndexOf(" - ");
    const title = cut > 0 ? raw.slice(0, cut) : raw;
    const y = it.attr("gran:pubDateParts", "yr");
    const mo = it.attr("gran:pubDateParts", "mo");
    const d = it.attr("gran:pubDateParts", "day");
    const date =
      dateInText(cut > 0 ? raw.slice(cut) : raw, { zone: ctx.zone }) ??
      (y && mo && d ? toIsoDate(`${y}-${mo}-${d}`) : undefined);
    const id = link ? granicusId(link) : undefined;
    meetings.push({
      id,
      title,
      date,
      docs: [{ label: minutes ? "Minutes" : "Agenda", href: link }],
    });
  }
  const out: Extraction = { records: allRecords(meetings, url) };
  if (out.records.length === 0) out.note = "the feed has no items";
  return out;
}

export const granicus: Platform = {
  name: "granicus",
  access: "feed",
  firstRequest(url: string): PlatformRequest {
    // The catalog may give the page; its agenda feed has the same view_id (P4: feed first).
    const u = new URL(url);
    if (/\/ViewPublisher\.php$/i.test(u.pathname)) {
      u.pathname = "/ViewPublisherRSS.php";
      if (!u.searchParams.has("mode")) u.searchParams.set("mode", "agendas");
    }
    return { method: "GET", url: u.href, accept: "application/rss+xml, text/html;q=0.8" };
  },
  extract(body: Uint8Array, url: string, ctx: ReadContext = {}): Extraction {
    const text = decodeBody(body, ctx.contentType);
    const head = text.slice(0, 1024);
    if (/<rss[\s>]/i.test(head) || /^\s*<\?xml/.test(head)) return fromFeed(text, url, ctx);
    return fromPage(text, url, ctx);
  },
};
