/**
 * Diligent Community / iCompass CivicWeb (`*.civicweb.net`, `*.community.highbond.com`):
 * `GET /Services/MeetingsService.svc/meetings?from=YYYY-MM-DD&to=YYYY-MM-DD&loadall=true`
 * answers a JSON array of meetings with a local `MeetingDateTime`. Documents come from a
 * per-meeting call, which P6 forbids, so each meeting is one record linking to its public
 * page. Backfill (P7): the year before the previous window, until a window is empty.
 */

import { toIsoDate } from "../dates.js";
import { readJson } from "../extract/json.js";
import type { Extraction, ReadContext } from "../record.js";
import { arr, obj, str } from "./support/body.js";
import { allRecords, type ListedMeeting } from "./support/records.js";
import { type DateWindow, firstWindow, olderWindow } from "./support/window.js";
import type { Platform, PlatformRequest } from "./types.js";

const SERVICE = "/Services/MeetingsService.svc/meetings";

function request(origin: string, w: DateWindow): PlatformRequest {
  return {
    method: "GET",
    url: `${origin}${SERVICE}?from=${w.from}&to=${w.to}&loadall=true`,
    accept: "application/json",
  };
}

export const icompass: Platform = {
  name: "icompass",
  access: "api",
  firstRequest(url: string, now: number): PlatformRequest {
    return request(new URL(url).origin, firstWindow(now));
  },
  extract(body: Uint8Array, url: string, ctx: ReadContext = {}): Extraction {
    const j = readJson(body, ctx.contentType);
    if (!j.ok) return { records: [], note: j.why };
    const origin = new URL(url).origin;
    const meetings: ListedMeeting[] = [];
    for (const m of arr(j.value)) {
      const o = obj(m);
      const id = str(o?.["Id"]);
      const title = str(o?.["Name"]) ?? str(o?.["CleanName"]);
      if (!o || !id || !title) continue;
      // Midnight with an empty MeetingTime means "no time given" (32 of Dallas ISD's 80):
      // the record keeps only the day rather than claim a 00:00 meeting.
      const at = str(o["MeetingTime"]) ? str(o["MeetingDateTime"]) : undefined;
      meetings.push({
        id,
        title,
        date:
          (at && toIsoDate(at, { zone: ctx.zone })) ||
          toIsoDate((str(o["MeetingDateTime"]) ?? str(o["MeetingDate"]) ?? "").slice(0, 10)),
        href: `${origin}/Portal/MeetingInformation.aspx?Org=Cal&Id=${encodeURIComponent(id)}`,
      });
    }
    const out: Extraction = { records: allRecords(meetings, url) };
    if (out.records.length === 0)
      out.note = Array.isArray(j.value) ? "no meetings in this window" : "not a CivicWeb answer";
    return out;
  },
  nextRequest(prev, _body, extraction): PlatformRequest | undefined {
    if (extraction.records.length === 0) return undefined;
    const u = new URL(prev.url);
    const from = u.searchParams.get("from");
    const to = u.searchParams.get("to");
    if (!from || !to) return undefined;
    const older = olderWindow({ from, to });
    return older ? request(u.origin, older) : undefined;
  },
};
