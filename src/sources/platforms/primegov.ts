/**
 * PrimeGov public portal API (`https://<city>.primegov.com/api/v2/PublicPortal/…`):
 * `ListUpcomingMeetings` for what is new, `ListArchivedMeetings?year=YYYY` for backfill, a
 * year per step (P7), stopping at the first empty year. Each meeting lists its compiled
 * documents; the template name is the platform's word for it ("Agenda", "Notice of
 * Cancellation" — the only place a cancellation shows). Output type 1 is PDF, 3 is HTML.
 * A meeting with no documents yet has no link of its own in the list (none is invented).
 */

import { toIsoDate } from "../dates.js";
import { readJson } from "../extract/json.js";
import type { Extraction, ReadContext } from "../record.js";
import { arr, obj, str } from "./support/body.js";
import { allRecords, type ListedDoc, type ListedMeeting } from "./support/records.js";
import type { Platform, PlatformRequest } from "./types.js";

const API = "/api/v2/PublicPortal/";

function docHref(templateId: string, outputType: string | undefined): string {
  return outputType === "3"
    ? `/Portal/Meeting?meetingTemplateId=${templateId}`
    : `/Public/CompiledDocument?meetingTemplateId=${templateId}&compileOutputType=${outputType ?? "1"}`;
}

export const primegov: Platform = {
  name: "primegov",
  access: "api",
  firstRequest(url: string): PlatformRequest {
    const u = new URL(url);
    if (!u.pathname.includes(API)) u.href = `${u.origin}${API}ListUpcomingMeetings`;
    return { method: "GET", url: u.href, accept: "application/json" };
  },
  extract(body: Uint8Array, url: string, ctx: ReadContext = {}): Extraction {
    const j = readJson(body, ctx.contentType);
    if (!j.ok) return { records: [], note: j.why };
    const list = arr(j.value);
    const origin = new URL(url).origin;
    const meetings: ListedMeeting[] = [];
    for (const m of list) {
      const o = obj(m);
      const id = str(o?.["id"]);
      const title = str(o?.["title"]);
      if (!o || !id || !title) continue;
      const docs: ListedDoc[] = [];
      for (const d of arr(o["documentList"])) {
        const dobj = obj(d);
        const templateId = str(dobj?.["templateId"]);
        const name = str(dobj?.["templateName"]);
        if (!dobj || !templateId || !name) continue;
        docs.push({
          label: name,
          key: `doc-${str(dobj["id"]) ?? templateId}`,
          href: docHref(templateId, str(dobj["compileOutputType"])),
        });
      }
      const dt = str(o["dateTime"]);
      meetings.push({
        id,
        title,
        date: toIsoDate(dt ?? `${str(o["date"]) ?? ""} ${str(o["time"]) ?? ""}`, {
          zone: ctx.zone,
        }),
        docs,
      });
    }
    const out: Extraction = { records: allRecords(meetings, `${origin}/`) };
    if (out.records.length === 0)
      out.note = Array.isArray(j.value) ? "no meetings" : "not a PrimeGov list";
    return out;
  },
  nextRequest(prev, _body, extraction): PlatformRequest | undefined {
    const u = new URL(prev.url);
    if (u.pathname.endsWith("/ListUpcomingMeetings")) {
      // Backfill starts with the archive of the upcoming list's own year.
      const first = extraction.records.find((r) => r.date)?.date;
      const year = first ? Number(first.slice(0, 4)) : Number.NaN;
      if (!Number.isInteger(year)) return undefined;
      return {
        method: "GET",
        url: `${u.origin}${API}ListArchivedMeetings?year=${year}`,
        accept: "application/json",
      };
    }
    const year = Number(u.searchParams.get("year"));
    if (!u.pathname.endsWith("/ListArchivedMeetings") || !Number.isInteger(year)) return undefined;
    if (extraction.records.length === 0) return undefined;
    u.searchParams.set("year", String(year - 1));
    return { method: "GET", url: u.href, accept: "application/json" };
  },
};
