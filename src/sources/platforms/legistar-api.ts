/**
 * Legistar Web API (`https://webapi.legistar.com/v1/<client>/events`), OData v3: pages of
 * `$top` events from `$skip`, newest first; a full page means there may be an older one
 * (P7). Date and time are separate fields (`EventDate` midnight is not the meeting time).
 * An unconfigured client answers HTTP 500 with `{Message, ExceptionMessage}`: no records, and
 * a note naming the reason, so the night reports "platform not configured", not "nothing new".
 */

import { toIsoDate } from "../dates.js";
import { readJson } from "../extract/json.js";
import type { Extraction, ReadContext } from "../record.js";
import { arr, obj, str } from "./support/body.js";
import { allRecords, type ListedDoc, type ListedMeeting } from "./support/records.js";
import type { Platform, PlatformRequest } from "./types.js";

/** Events per page: Legistar allows up to 1000; 200 keeps answers small and requests few. */
export const LEGISTAR_PAGE = 200;

function when(
  date: string | undefined,
  time: string | undefined,
  zone: string | undefined,
): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(date ?? "");
  if (!m) return undefined;
  const day = `${m[1]}-${m[2]}-${m[3]}`;
  // `EventTime` is `6:00 PM`; the ISO day keeps the order unambiguous.
  return (
    (time && toIsoDate(`${m[2]}/${m[3]}/${m[1]} ${time}`, { zone, order: "mdy" })) || toIsoDate(day)
  );
}

function pageUrl(url: string, skip: number, top: number): string {
  const u = new URL(url);
  u.searchParams.set("$top", String(top));
  u.searchParams.set("$skip", String(skip));
  if (!u.searchParams.has("$orderby")) u.searchParams.set("$orderby", "EventDate desc");
  return u.href;
}

export const legistarApi: Platform = {
  name: "legistar-api",
  access: "api",
  firstRequest(url: string): PlatformRequest {
    // A catalog may name the InSite site (`<client>.legistar.com`); its API is on webapi.
    const u = new URL(url);
    const client = /^([a-z0-9-]+)\.legistar\.com$/i.exec(u.hostname)?.[1];
    const api =
      client && client !== "webapi" ? `https://webapi.legistar.com/v1/${client}/events` : url;
    return { method: "GET", url: pageUrl(api, 0, LEGISTAR_PAGE), accept: "application/json" };
  },
  extract(body: Uint8Array, url: string, ctx: ReadContext = {}): Extraction {
    const j = readJson(body, ctx.contentType);
    if (!j.ok) return { records: [], note: j.why };
    const err = obj(j.value);
    if (err) {
      const why = str(err["ExceptionMessage"]) ?? str(err["Message"]) ?? "not an event list";
      return { records: [], note: `Legistar API error: ${why}` };
    }
    const events = arr(j.value);
    const meetings: ListedMeeting[] = [];
    for (const e of events) {
      const o = obj(e);
      const id = str(o?.["EventId"]);
      const title = str(o?.["EventBodyName"]);
      if (!o || !id || !title) continue;
      const docs: ListedDoc[] = [];
      const agenda = str(o["EventAgendaFile"]);
      const minutes = str(o["EventMinutesFile"]);
      if (agenda) docs.push({ label: "Agenda", href: agenda });
      if (minutes) docs.push({ label: "Minutes", href: minutes });
      meetings.push({
        id,
        title,
        date: when(str(o["EventDate"]), str(o["EventTime"]), ctx.zone),
        href: str(o["EventInSiteURL"]),
        docs,
      });
    }
    const out: Extraction = { records: allRecords(meetings, url) };
    if (events.length === 0) out.note = "no events";
    const u = new URL(url);
    const top = Number(u.searchParams.get("$top"));
    if (Number.isInteger(top) && top > 0 && events.length >= top) {
      out.next = pageUrl(url, Number(u.searchParams.get("$skip") ?? 0) + top, top);
    }
    return out;
  },
  nextRequest(_prev, _body, extraction): PlatformRequest | undefined {
    return extraction.next
      ? { method: "GET", url: extraction.next, accept: "application/json" }
      : undefined;
  },
};
