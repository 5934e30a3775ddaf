/**
 * CivicPlus Agenda Center (`/AgendaCenter`): one `div.listing` per body (its `h2` carries a
 * toggle glyph, ▼ or ►, to strip), one `tr.catAgendaRow` per meeting, the meeting id in
 * `<a name="_MMDDYYYY-ID">`. Documents are `/AgendaCenter/ViewFile/Agenda/_X` (with `?html=true`
 * the same agenda as HTML, so one record), `…?packet=true` (the packet) and
 * `/ViewFile/Minutes/_X`; `/PreviousVersions/` are old copies, not records.
 * The landing page shows only the current year per body; the Search endpoint takes a date
 * range (`startDate`/`endDate` as MM/DD/YYYY, one page, no pager), so that is the first
 * request, and backfill (P7) asks for the year before until a year has no results.
 */
import * as cheerio from "cheerio";
import { toIsoDate } from "../dates.js";
import type { Extraction } from "../record.js";
import { cleanText } from "../record-id.js";
import { decode } from "./support/body.js";
import { allRecords, type ListedDoc, type ListedMeeting } from "./support/records.js";
import { type DateWindow, firstWindow, olderWindow } from "./support/window.js";
import type { Platform, PlatformRequest } from "./types.js";

function mdy(iso: string): string {
  return `${iso.slice(5, 7)}/${iso.slice(8, 10)}/${iso.slice(0, 4)}`;
}

function searchRequest(origin: string, w: DateWindow): PlatformRequest {
  const q = `term=&CIDs=all&startDate=${mdy(w.from)}&endDate=${mdy(w.to)}&dateRange=&dateSelector=`;
  return { method: "GET", url: `${origin}/AgendaCenter/Search/?${q}`, accept: "text/html" };
}

function docOf(href: string): ListedDoc | undefined {
  if (!/\/AgendaCenter\/ViewFile\//i.test(href)) return undefined;
  if (/[?&]packet=true/i.test(href)) return { label: "Agenda Packet", key: "packet", href };
  if (/\/ViewFile\/Minutes\//i.test(href)) return { label: "Minutes", key: "minutes", href };
  if (/\/ViewFile\/Agenda\//i.test(href)) {
    // The PDF and its `?html=true` twin are one agenda; prefer the PDF link.
    return { label: "Agenda", key: "agenda", href: href.replace(/\?html=true$/i, "") };
  }
  return undefined;
}

function fromPage(text: string, url: string): Extraction {
  const $ = cheerio.load(text);
  const meetings: ListedMeeting[] = [];
  $("div.listing").each((_, div) => {
    const body = cleanText($(div).children("h2").first().text()).replace(/^[▼►▲◄\s]+/u, "");
    $(div)
      .find("tr.catAgendaRow")
      .each((_, tr) => {
        const row = $(tr);
        const name = row.find("a[name^='_']").first().attr("name") ?? "";
        const m = /^_(\d{2})(\d{2})(\d{4})-(\d+)$/.exec(name);
        const strong = cleanText(row.find("h4 strong, strong").first().text());
        const date = toIsoDate(strong) ?? (m ? toIsoDate(`${m[3]}-${m[1]}-${m[2]}`) : undefined);
        const rowTitle =
          cleanText(row.find("p").first().text()) ||
          cleanText(row.find("h4 a[title]").first().attr("title") ?? "");
        const title =
          body && !rowTitle.toLowerCase().includes(body.toLowerCase())
            ? `${body}: ${rowTitle || "Meeting"}`
            : rowTitle || body;
        const docs: ListedDoc[] = [];
        row.find("a[href]").each((_, a) => {
          const d = docOf($(a).attr("href") ?? "");
          if (d && !docs.some((x) => x.key === d.key)) docs.push(d);
        });
        const id = m ? name.slice(1) : undefined;
        if (title) meetings.push({ id, title, date, docs });
      });
  });
  const out: Extraction = { records: allRecords(meetings, url) };
  if (out.records.length === 0) {
    out.note = /No results found in/i.test(text)
      ? "No results found"
      : "no agenda rows on this page";
  }
  return out;
}

export const civicplusAgendacenter: Platform = {
  name: "civicplus-agendacenter",
  access: "page",
  firstRequest(url: string, now: number): PlatformRequest {
    return searchRequest(new URL(url).origin, firstWindow(now));
  },
  extract(body: Uint8Array, url: string): Extraction {
    return fromPage(decode(body), url);
  },
  nextRequest(prev, _body, extraction): PlatformRequest | undefined {
    if (extraction.records.length === 0) return undefined;
    const u = new URL(prev.url);
    const from = toIsoDate(u.searchParams.get("startDate") ?? "");
    const to = toIsoDate(u.searchParams.get("endDate") ?? "");
    if (!from || !to) return undefined;
    const older = olderWindow({ from, to });
    return older ? searchRequest(u.origin, older) : undefined;
  },
};
