/**
 * CivicPlus Agenda Center (`/AgendaCenter`): one section per body under its heading (an `h2`
 * carrying a toggle glyph, ▼ or ►, to strip), one `tr.catAgendaRow` per meeting, the meeting
 * id in `<a name="_MMDDYYYY-ID">`. Read by meaning (P6): the body's name is the heading of the
 * section the meeting's table sits under (never a category filter elsewhere on the page), the
 * title is in the cell holding the meeting's anchor, and the date is the one the page reads
 * out (`aria-label="Agenda for August 23, 2022"`). Documents are `/AgendaCenter/ViewFile/Agenda/_X` (with `?html=true`
 * the same agenda as HTML, so one record), `…?packet=true` (the packet) and
 * `/ViewFile/Minutes/_X`; `/PreviousVersions/` are old copies, not records.
 * The landing page shows only the current year per body; the Search endpoint takes a date
 * range (`startDate`/`endDate` as MM/DD/YYYY, one page, no pager), so that is the first
 * request, and backfill (P7) asks for the year before until a year has no results.
 */
import type { CheerioAPI } from "cheerio";
import type { AnyNode, Element } from "domhandler";
import { decodeBody } from "../../policy/body-text.js";
import { answerDates, toIsoDate } from "../dates.js";
import { descendantsWhere, isLink } from "../extract/descendants.js";
import { textOf } from "../extract/select.js";
import type { Extraction, ReadContext } from "../record.js";
import { cleanText } from "../record-id.js";
import { visiblePage } from "./support/page.js";
import { allRecords, type ListedDoc, type ListedMeeting } from "./support/records.js";
import { sectionHeading } from "./support/table.js";
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

/**
 * The body a meeting row belongs to: the heading of the section its table sits under. A table's
 * heading is looked for once (`byTable`, one page's), not again for each of its rows.
 */
function bodyName($: CheerioAPI, row: Element, byTable: Map<AnyNode, string>): string {
  const table = $(row).closest("table").get(0) ?? row;
  let name = byTable.get(table);
  if (name === undefined) {
    const h = sectionHeading($, table);
    // Collapsible headings carry a toggle glyph (▼ ►) before the name.
    name = h ? textOf(h).replace(/^[▼►▲◄\s]+/u, "") : "";
    byTable.set(table, name);
  }
  return name;
}

function fromPage(text: string, url: string, ctx: ReadContext): Extraction {
  const $ = visiblePage(text);
  const rows = $("tr.catAgendaRow")
    .toArray()
    .map((tr) => {
      const row = $(tr);
      // The meeting's anchor `_MMDDYYYY-ID` names it; its cell is the agenda cell, wherever
      // the columns are.
      const anchor = row
        .find("a[name^='_']")
        .filter((_, a) => /^_\d{8}-\d+$/.test($(a).attr("name") ?? ""));
      const name = anchor.attr("name") ?? "";
      const cell = anchor.closest("td").length > 0 ? anchor.closest("td") : row;
      // "Agenda for August 23, 2022": the date as the page reads it out.
      const label = cell.find("strong[aria-label]").attr("aria-label") ?? "";
      const said = /\bfor\s+(.+)$/i.exec(label)?.[1];
      const strong = textOf(cell.find("strong").first());
      const rowTitle =
        textOf(cell.find("p").first()) ||
        cleanText(
          cell
            .find("a[title]")
            .filter((_, a) => $(a).attr("title") !== "")
            .attr("title") ?? "",
        );
      return { tr, name, said, strong, rowTitle };
    });
  const opts = answerDates(
    rows.map((r) => r.strong),
    ctx.zone,
  );
  const meetings: ListedMeeting[] = [];
  const bodies = new Map<AnyNode, string>();
  for (const { tr, name, said, strong, rowTitle } of rows) {
    const m = /^_(\d{2})(\d{2})(\d{4})-(\d+)$/.exec(name);
    const date =
      (said && toIsoDate(said, opts)) ||
      toIsoDate(strong, opts) ||
      (m ? toIsoDate(`${m[3]}-${m[1]}-${m[2]}`) : undefined);
    const body = bodyName($, tr, bodies);
    const title =
      body && !rowTitle.toLowerCase().includes(body.toLowerCase())
        ? `${body}: ${rowTitle || "Meeting"}`
        : rowTitle || body;
    const docs: ListedDoc[] = [];
    $(descendantsWhere([tr], isLink)).each((_, a) => {
      const d = docOf($(a).attr("href") ?? "");
      if (d && !docs.some((x) => x.key === d.key)) docs.push(d);
    });
    const id = m ? name.slice(1) : undefined;
    if (title) meetings.push({ id, title, date, docs });
  }
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
  extract(body: Uint8Array, url: string, ctx: ReadContext = {}): Extraction {
    return fromPage(decodeBody(body, ctx.contentType), url, ctx);
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
