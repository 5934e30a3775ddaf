/**
 * NovusAgenda (`<city>.novusagenda.com/agendapublic/meetingsgeneral.aspx`): a Telerik RadGrid
 * (`…radGridMeetings_ctl00__N` rows) of Date `MM/DD/YY` (two-digit years), Meeting Type,
 * Location, an HTML agenda (only in an onclick `window.open('MeetingView.aspx?MeetingID=…')`),
 * the agenda PDF `DisplayAgendaPDF.ashx?MeetingID=N` and minutes `…?MinutesMeetingID=N`.
 * The id is the MeetingID. Later grid pages are RadGrid postbacks whose pager the fixtures do
 * not show working, so no backfill is claimed: the first page (newest) is read each night.
 */
import * as cheerio from "cheerio";
import { toIsoDate } from "../dates.js";
import type { Extraction } from "../record.js";
import { cleanText } from "../record-id.js";
import { decode } from "./support/body.js";
import { allRecords, type ListedDoc, type ListedMeeting } from "./support/records.js";
import type { Platform, PlatformRequest } from "./types.js";

export const novusagenda: Platform = {
  name: "novusagenda",
  access: "page",
  firstRequest(url: string): PlatformRequest {
    return { method: "GET", url, accept: "text/html" };
  },
  extract(body: Uint8Array, url: string): Extraction {
    const $ = cheerio.load(decode(body));
    const meetings: ListedMeeting[] = [];
    $("tr[id*='radGridMeetings_ctl00__']").each((_, tr) => {
      const row = $(tr);
      const cells = row.children("td");
      const day = cleanText(cells.eq(0).text());
      const title = cleanText(cells.eq(1).text());
      const docs: ListedDoc[] = [];
      let id: string | undefined;
      row.find("a").each((_, a) => {
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
      if (!title || !/\d/.test(day)) return;
      meetings.push({ id, title, date: toIsoDate(day), docs });
    });
    const records = allRecords(meetings, url);
    return records.length > 0 ? { records } : { records, note: "no meetings in the grid" };
  },
};
