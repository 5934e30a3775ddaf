/**
 * Granicus media sites (`<city>.granicus.com`): the `ViewPublisher.php?view_id=N` page (tables
 * `.listingTable` of upcoming events and archived clips, one `tr.listingRow` per meeting) and
 * its feed `ViewPublisherRSS.php?view_id=N&mode=agendas` (P4: the feed is preferred; the page
 * is the fallback). Ids are the platform's `clip:<clip_id>` / `event:<event_id>`, the same in
 * both, so switching ways in does not make old records look new.
 * Traps: dates padded with NBSP and double spaces; protocol-relative links; the video link is
 * only in an `onclick="window.open('//…MediaPlayer.php…')"`; the feed's pubDate offset is
 * wrong (-0800 for Florida), so the date comes from the title's `- Mon DD, YYYY`.
 */
import * as cheerio from "cheerio";
import { toIsoDate } from "../dates.js";
import type { Extraction } from "../record.js";
import { absoluteUrl, cleanText } from "../record-id.js";
import { decode } from "./support/body.js";
import { allRecords, type ListedDoc, type ListedMeeting } from "./support/records.js";
import { readRss } from "./support/rss.js";
import { dateInText } from "./support/text-date.js";
import type { Platform, PlatformRequest } from "./types.js";

function granicusId(href: string): string | undefined {
  const clip = /[?&]clip_id=(\d+)/.exec(href)?.[1];
  if (clip) return `clip:${clip}`;
  const ev = /[?&]event_id=(\d+)/.exec(href)?.[1];
  return ev ? `event:${ev}` : undefined;
}

function fromPage(text: string, url: string): Extraction {
  const $ = cheerio.load(text);
  const meetings: ListedMeeting[] = [];
  $("table.listingTable tr.listingRow").each((_, tr) => {
    const row = $(tr);
    const cells = row.children("td");
    const nameCell = cells.filter((_, td) =>
      ($(td).attr("headers") ?? "").split(" ").includes("Name"),
    );
    const title = cleanText((nameCell.length ? nameCell : cells.first()).text());
    const dateCell = cells.filter((_, td) => ($(td).attr("headers") ?? "").startsWith("Date"));
    const dateText = cleanText(dateCell.text()).replace(/\s+-\s+/, " ");
    const docs: ListedDoc[] = [];
    let id: string | undefined;
    row.find("a").each((_, a) => {
      const el = $(a);
      let href = el.attr("href") ?? "";
      if (!/^(https?:)?\/\//.test(href) && !href.startsWith("/")) {
        href = /window\.open\('([^']+)'/.exec(el.attr("onclick") ?? "")?.[1] ?? "";
      }
      const abs = absoluteUrl(href, url);
      if (!abs) return;
      id ??= granicusId(abs);
      docs.push({ label: cleanText(el.text()) || "Document", href: abs });
    });
    if (!title) return;
    meetings.push({ id, title, date: toIsoDate(dateText) ?? dateInText(dateText), docs });
  });
  const out: Extraction = { records: allRecords(meetings, url) };
  if (out.records.length === 0) {
    const empty = /Currently there are no [A-Za-z ]+/.exec(text)?.[0];
    out.note = empty ?? "no listing rows on this page";
  }
  return out;
}

function fromFeed(text: string, url: string): Extraction {
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
      dateInText(cut > 0 ? raw.slice(cut) : raw) ??
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
  extract(body: Uint8Array, url: string): Extraction {
    const text = decode(body);
    const head = text.slice(0, 1024);
    if (/<rss[\s>]/i.test(head) || /^\s*<\?xml/.test(head)) return fromFeed(text, url);
    return fromPage(text, url);
  },
};
