/**
 * Granicus OpenCities calendars (`/ocapi/calendars/getcalendaritems`): `{success, data:[{Date,
 * DD, MM, YYYY, Items:[{CalendarId, Id, Name, DateTime}]}]}`. Traps, both seen in Columbus's
 * answer: the group `Date` is day-first (`02/03/2026` is 2 March) while the item `DateTime` is
 * month-first (`3/2/2026 5:00:00 PM`), and the groups are not in date order; days without a
 * meeting carry a `No Meetings` placeholder item, which is not a record. The list gives no
 * page per item (the detail is another API call, which P6 forbids), so records have no link.
 */

import { toIsoDate } from "../dates.js";
import type { Extraction } from "../record.js";
import { arr, decode, obj, parseJson, str } from "./support/body.js";
import { allRecords, type ListedMeeting } from "./support/records.js";
import type { Platform, PlatformRequest } from "./types.js";

const PLACEHOLDER = /^\s*no meetings?\s*(scheduled)?\s*$/i;

export const granicusOpencities: Platform = {
  name: "granicus-opencities",
  access: "api",
  firstRequest(url: string): PlatformRequest {
    return { method: "GET", url, accept: "application/json" };
  },
  extract(body: Uint8Array, url: string): Extraction {
    const j = parseJson(decode(body));
    if (!j.ok) return { records: [], note: j.why };
    const root = obj(j.value);
    const meetings: ListedMeeting[] = [];
    let placeholders = 0;
    for (const g of arr(root?.["data"])) {
      const group = obj(g);
      if (!group) continue;
      const groupDay = toIsoDate(str(group["Date"]) ?? "", { order: "dmy" });
      for (const it of arr(group["Items"])) {
        const o = obj(it);
        const id = str(o?.["Id"]);
        const title = str(o?.["Name"]);
        if (!o || !id || !title) continue;
        if (PLACEHOLDER.test(title)) {
          placeholders++;
          continue;
        }
        let date = toIsoDate(str(o["DateTime"]) ?? "", { order: "mdy" });
        // The two orders must agree on the day; if they do not, trust the group's own fields.
        if (groupDay && date && date.slice(0, 10) !== groupDay) date = groupDay;
        meetings.push({ id, title, date: date ?? groupDay });
      }
    }
    const out: Extraction = { records: allRecords(meetings, url) };
    if (out.records.length === 0) {
      out.note = root
        ? "No Meetings: the calendar lists only placeholders"
        : "not an OpenCities calendar answer";
    } else if (placeholders > 0) {
      out.note = `${placeholders} "No Meetings" placeholders skipped`;
    }
    return out;
  },
};
