/**
 * Granicus OpenCities calendars (`/ocapi/calendars/getcalendaritems`): `{success, data:[{Date,
 * DD, MM, YYYY, Items:[{CalendarId, Id, Name, DateTime}]}]}`. The group says its day three
 * ways: `DD`, `MM`, `YYYY` as numbers (the one that cannot be misread), and `Date`, which in
 * Columbus's answer is day-first (`02/03/2026` is 2 March) while the items' `DateTime` is
 * month-first (`3/2/2026 5:00:00 PM`). Another site may write both day-first, so no order is
 * assumed: each field's values decide their order together (a part over 12), and an item
 * whose values cannot decide is read the way that puts it on its group's day — keeping its
 * time. Groups are not in date order; days without a meeting carry a `No Meetings`
 * placeholder item, which is not a record. The list gives no page per item (the detail is
 * another API call, which P6 forbids), so records have no link.
 */

import { type DayOrder, dayOrderOf, toIsoDate } from "../dates.js";
import { readJson } from "../extract/json.js";
import type { Extraction, ReadContext } from "../record.js";
import { arr, obj, str } from "./support/body.js";
import { allRecords, type ListedMeeting } from "./support/records.js";
import type { Platform, PlatformRequest } from "./types.js";

const PLACEHOLDER = /^\s*no meetings?\s*(scheduled)?\s*$/i;

const pad = (n: number) => String(n).padStart(2, "0");

interface Item {
  id: string;
  title: string;
  at: string;
  /** The group's day, YYYY-MM-DD, when the group says it. */
  day: string | undefined;
}

/** The group's day from its numeric DD/MM/YYYY fields, else from `Date` read in `order`. */
function groupDay(group: Record<string, unknown>, order: DayOrder): string | undefined {
  const [y, m, d] = [group["YYYY"], group["MM"], group["DD"]].map((v) => Number(str(v)));
  if (Number.isInteger(y) && Number.isInteger(m) && Number.isInteger(d)) {
    const iso = toIsoDate(`${y}-${pad(m!)}-${pad(d!)}`);
    if (iso) return iso;
  }
  return toIsoDate(str(group["Date"]) ?? "", { order });
}

export const granicusOpencities: Platform = {
  name: "granicus-opencities",
  access: "api",
  firstRequest(url: string): PlatformRequest {
    return { method: "GET", url, accept: "application/json" };
  },
  extract(body: Uint8Array, url: string, ctx: ReadContext = {}): Extraction {
    const j = readJson(body, ctx.contentType);
    if (!j.ok) return { records: [], note: j.why };
    const root = obj(j.value);
    const groups = arr(root?.["data"]).flatMap((g) => (obj(g) ? [obj(g)!] : []));
    // Each field's values decide its order together; Columbus writes the group Date day-first.
    const groupOrder = dayOrderOf(groups.map((g) => str(g["Date"]))) ?? "dmy";
    const items: Item[] = [];
    let placeholders = 0;
    for (const group of groups) {
      const day = groupDay(group, groupOrder);
      for (const it of arr(group["Items"])) {
        const o = obj(it);
        const id = str(o?.["Id"]);
        const title = str(o?.["Name"]);
        if (!o || !id || !title) continue;
        if (PLACEHOLDER.test(title)) {
          placeholders++;
          continue;
        }
        items.push({ id, title, at: str(o["DateTime"]) ?? "", day });
      }
    }
    const itemOrder = dayOrderOf(items.map((i) => i.at));
    const meetings: ListedMeeting[] = items.map((i) => {
      const read = (order: DayOrder) => toIsoDate(i.at, { zone: ctx.zone, order });
      let date: string | undefined;
      if (itemOrder) date = read(itemOrder);
      else {
        // Undecided values: the reading that agrees with the group's day.
        const readings = [read("mdy"), read("dmy")].filter((d) => d !== undefined);
        date = readings.find((d) => i.day === undefined || d.slice(0, 10) === i.day) ?? readings[0];
      }
      // The two fields must agree on the day; if they do not, the group's numbers win.
      if (i.day && (!date || date.slice(0, 10) !== i.day)) date = i.day;
      return { id: i.id, title: i.title, date };
    });
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
