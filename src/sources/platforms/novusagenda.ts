/**
 * NovusAgenda (`<city>.novusagenda.com/agendapublic/meetingsgeneral.aspx`): a Telerik RadGrid
 * of meetings with columns Meeting Date `MM/DD/YY` (two-digit years), Meeting Type, Meeting
 * Location, an HTML agenda (only in an onclick `window.open('MeetingView.aspx?MeetingID=…')`),
 * the agenda PDF `DisplayAgendaPDF.ashx?MeetingID=N` and minutes `…?MinutesMeetingID=N`. The
 * id is the MeetingID. The same page holds an agenda-items grid (Date, Title, Category,
 * Meeting Type…), another record shape: the meetings grid is the one the ASP.NET control
 * `radGridMeetings` names, else the grid whose headers and links are a meeting's (P6), and
 * each cell is read under its header. Later grid pages are RadGrid postbacks whose pager the
 * fixtures do not show working, so no backfill is claimed: the first page (newest) is read
 * each night.
 */
import type { CheerioAPI } from "cheerio";
import type { Element } from "domhandler";
import { decodeBody } from "../../policy/body-text.js";
import { answerDates, toIsoDate } from "../dates.js";
import { textOf } from "../extract/select.js";
import { type Extraction, type ReadContext, unreadable } from "../record.js";
import { visiblePage } from "./support/page.js";
import { allRecords, type ListedDoc, type ListedMeeting } from "./support/records.js";
import { cellAt, findColumn, headerNames, ownRows } from "./support/table.js";
import type { Platform, PlatformRequest } from "./types.js";

const MEETING_LINK = "a[href*='DisplayAgendaPDF.ashx' i], a[onclick*='MeetingView.aspx' i]";

interface MeetingsGrid {
  table: Element;
  date: number;
  type: number;
}

/** The meetings grid(s), by control name first, else by a meeting grid's headers and links. */
function meetingsGrids($: CheerioAPI): MeetingsGrid[] | { unreadable: string } {
  const shaped: (MeetingsGrid & { named: boolean; links: boolean })[] = [];
  const unread: string[] = [];
  for (const table of $("table").toArray()) {
    const id = table.attribs["id"] ?? "";
    const named = /radGridMeetings_ctl00$/i.test(id);
    const names = headerNames($, table) ?? [];
    const date = findColumn(names, /^meeting date$/, /^date$/);
    const type = findColumn(names, /^meeting type$/, /^meeting$/);
    const links = ownRows($, table).some((tr) => $(tr).find(MEETING_LINK).length > 0);
    if (date !== undefined && type !== undefined) shaped.push({ table, date, type, named, links });
    else if (named) unread.push(`${id} (columns: ${names.join(", ") || "none"})`);
  }
  if (unread.length > 0)
    return {
      unreadable: `NovusAgenda meetings grid without Meeting Date and Meeting Type headers: ${unread.join("; ")}`,
    };
  const named = shaped.filter((g) => g.named);
  return named.length > 0 ? named : shaped.filter((g) => g.links);
}

export const novusagenda: Platform = {
  name: "novusagenda",
  access: "page",
  firstRequest(url: string): PlatformRequest {
    return { method: "GET", url, accept: "text/html" };
  },
  extract(body: Uint8Array, url: string, ctx: ReadContext = {}): Extraction {
    const $ = visiblePage(decodeBody(body, ctx.contentType));
    const grids = meetingsGrids($);
    if ("unreadable" in grids) return unreadable(grids.unreadable);
    const rows = grids.flatMap((g) =>
      ownRows($, g.table)
        .filter((tr) => $(tr).children("td").length > 1 && !$(tr).parent().is("thead, tfoot"))
        .map((tr) => ({
          tr,
          day: textOf(cellAt($, tr, g.date)),
          title: textOf(cellAt($, tr, g.type)),
        })),
    );
    const opts = answerDates(
      rows.map((r) => r.day),
      ctx.zone,
    );
    const meetings: ListedMeeting[] = [];
    for (const { tr, day, title } of rows) {
      const docs: ListedDoc[] = [];
      let id: string | undefined;
      $(tr)
        .find("a")
        .each((_, a) => {
          const el = $(a);
          const href = el.attr("href") ?? "";
          const agenda = /DisplayAgendaPDF\.ashx\?MeetingID=(\d+)/i.exec(href);
          const minutes = /DisplayAgendaPDF\.ashx\?MinutesMeetingID=(\d+)/i.exec(href);
          if (agenda) {
            id = agenda[1];
            docs.push({ label: "Agenda", href, key: "agenda" });
          } else if (minutes) {
            docs.push({ label: "Minutes", href, key: `minutes-${minutes[1]}` });
          } else {
            id ??= /MeetingView\.aspx\?MeetingID=(\d+)/i.exec(el.attr("onclick") ?? "")?.[1];
          }
        });
      if (!title || !/\d/.test(day)) continue;
      meetings.push({ id, title, date: toIsoDate(day, opts), docs });
    }
    const records = allRecords(meetings, url);
    return records.length > 0 ? { records } : { records, note: "no meetings in the grid" };
  },
};
