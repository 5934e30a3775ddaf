/**
 * CivicClerk (`https://<tenant>.api.civicclerk.com/v1/Events`), an OData API: `{value:[Event]}`
 * and `@odata.nextLink` for the next page (P7). Each event lists its published files with the
 * platform's type (Agenda, Agenda Packet, Minutes, Other): one record per file.
 *
 * Trap: `startDateTime` ends in `Z` but is the local wall-clock time (City Bureau's spiders
 * strip it too; a 09:30 meeting is not 04:30 local). The UTC marker, however it is written
 * (`Z`, `+00:00`, a `.000` before it, spaces around), is dropped and the time read in the
 * government's zone (catalog `timezone`): a marker left on would be a wrong instant, silently.
 */

import { toIsoDate } from "../dates.js";
import { readJson } from "../extract/json.js";
import type { Extraction, ReadContext } from "../record.js";
import { arr, obj, str } from "./support/body.js";
import { allRecords, type ListedDoc, type ListedMeeting } from "./support/records.js";
import type { Platform, PlatformRequest } from "./types.js";

function wallClock(s: string | undefined, zone: string | undefined): string | undefined {
  if (!s) return undefined;
  return toIsoDate(s.trim().replace(/(?:\.\d+)?(?:Z|[+-]00:?00)$/i, ""), { zone });
}

/** `laceywa.api.civicclerk.com` → `https://laceywa.portal.civicclerk.com`, the public portal. */
function portalOrigin(apiUrl: string): string {
  const u = new URL(apiUrl);
  return `https://${u.hostname.replace(".api.", ".portal.")}`;
}

export const civicclerk: Platform = {
  name: "civicclerk",
  access: "api",
  firstRequest(url: string): PlatformRequest {
    const u = new URL(url);
    if (!/\/v1\/events$/i.test(u.pathname)) u.pathname = "/v1/Events";
    // Newest first, so the first page is what is new and nextLink walks back (P7).
    if (!u.searchParams.has("$orderby")) u.searchParams.set("$orderby", "startDateTime desc");
    return { method: "GET", url: u.href, accept: "application/json" };
  },
  extract(body: Uint8Array, url: string, ctx: ReadContext = {}): Extraction {
    const j = readJson(body, ctx.contentType);
    if (!j.ok) return { records: [], note: j.why };
    const root = obj(j.value);
    const events = root ? arr(root["value"]) : arr(j.value);
    const origin = new URL(url).origin;
    const portal = portalOrigin(url);
    const meetings: ListedMeeting[] = [];
    for (const e of events) {
      const o = obj(e);
      const id = str(o?.["id"]);
      const title = str(o?.["eventName"]) ?? str(o?.["agendaName"]);
      if (!o || !id || !title) continue;
      const docs: ListedDoc[] = [];
      for (const f of arr(o["publishedFiles"])) {
        const fo = obj(f);
        const fileId = str(fo?.["fileId"]);
        if (!fo || !fileId) continue;
        docs.push({
          label: str(fo["type"]) ?? str(fo["name"]) ?? "File",
          key: `file-${fileId}`,
          href: `${origin}/v1/Meetings/GetMeetingFileStream(fileId=${fileId},plainText=false)`,
        });
      }
      meetings.push({
        id,
        title,
        date: wallClock(str(o["startDateTime"]) ?? str(o["eventDate"]), ctx.zone),
        href: `${portal}/event/${id}/files`,
        docs,
      });
    }
    const out: Extraction = { records: allRecords(meetings, url) };
    const next = root ? str(root["@odata.nextLink"]) : undefined;
    if (next) out.next = new URL(next, url).href;
    if (out.records.length === 0) out.note = root ? "no events" : "not a CivicClerk answer";
    return out;
  },
  nextRequest(_prev, _body, extraction): PlatformRequest | undefined {
    return extraction.next
      ? { method: "GET", url: extraction.next, accept: "application/json" }
      : undefined;
  },
};
