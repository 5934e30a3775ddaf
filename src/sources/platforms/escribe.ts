/**
 * eScribe (`https://pub-<city>.escribemeetings.com`): the calendar page's ASP.NET PageMethod
 * `POST /MeetingsCalendarView.aspx/GetCalendarMeetings` with `{calendarStartDate,
 * calendarEndDate}` answers `{d:[Meeting]}`. Backfill (P7) asks for the year before the
 * previous window until one comes back empty. `StartDate` is local `YYYY/MM/DD HH:MM:SS`;
 * document links are relative to the site root, not to the PageMethod.
 */

import { toIsoDate } from "../dates.js";
import { readJson } from "../extract/json.js";
import type { Extraction, ReadContext } from "../record.js";
import { arr, obj, str } from "./support/body.js";
import { allRecords, type ListedDoc, type ListedMeeting } from "./support/records.js";
import { type DateWindow, firstWindow, olderWindow } from "./support/window.js";
import type { Platform, PlatformRequest } from "./types.js";

const METHOD = "/MeetingsCalendarView.aspx/GetCalendarMeetings";

function request(origin: string, w: DateWindow): PlatformRequest {
  return {
    method: "POST",
    url: `${origin}${METHOD}`,
    body: JSON.stringify({ calendarStartDate: w.from, calendarEndDate: w.to }),
    contentType: "application/json; charset=utf-8",
    accept: "application/json",
  };
}

export const escribe: Platform = {
  name: "escribe",
  access: "api",
  firstRequest(url: string, now: number): PlatformRequest {
    return request(new URL(url).origin, firstWindow(now));
  },
  extract(body: Uint8Array, url: string, ctx: ReadContext = {}): Extraction {
    const j = readJson(body, ctx.contentType);
    if (!j.ok) return { records: [], note: j.why };
    const root = obj(j.value);
    const list = root ? arr(root["d"]) : arr(j.value);
    const site = `${new URL(url).origin}/`;
    const meetings: ListedMeeting[] = [];
    for (const m of list) {
      const o = obj(m);
      const id = str(o?.["ID"]);
      const title = str(o?.["MeetingName"]);
      if (!o || !id || !title) continue;
      const docs: ListedDoc[] = [];
      for (const d of arr(o["MeetingDocumentLink"])) {
        const dobj = obj(d);
        const href = str(dobj?.["Url"]);
        const label = str(dobj?.["Title"]) ?? str(dobj?.["Type"]);
        if (!dobj || !href || !label) continue;
        docs.push({ label, href, key: /DocumentId=(\d+)/.exec(href)?.[1] ?? undefined });
      }
      const start = str(o["StartDate"])?.replace(/^(\d{4})\/(\d{2})\/(\d{2})/, "$1-$2-$3");
      meetings.push({
        id,
        title,
        date: start ? toIsoDate(start, { zone: ctx.zone }) : undefined,
        href: str(o["Url"]),
        docs,
      });
    }
    const out: Extraction = { records: allRecords(meetings, site) };
    if (out.records.length === 0)
      out.note = root ? "no meetings in this window" : "not an eScribe answer";
    return out;
  },
  nextRequest(prev, _body, extraction): PlatformRequest | undefined {
    if (extraction.records.length === 0 || !prev.body) return undefined;
    let w: DateWindow;
    try {
      const b = JSON.parse(prev.body) as { calendarStartDate?: string; calendarEndDate?: string };
      w = { from: String(b.calendarStartDate), to: String(b.calendarEndDate) };
    } catch {
      return undefined;
    }
    const older = olderWindow(w);
    return older ? request(new URL(prev.url).origin, older) : undefined;
  },
};
