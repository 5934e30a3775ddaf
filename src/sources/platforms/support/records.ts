/**
 * Turning one listed meeting into records (P6: everything comes from the list; links are
 * noted, never opened). A meeting that lists documents gives one record per document, so a
 * new set of minutes for an old meeting is a new record; a meeting with none yet gives one
 * "meetings" record. Ids are the platform's: `MEETINGID` or `MEETINGID#doc-key`.
 */

import { shownText } from "../../../policy/shown-text.js";
import type { ExtractedRecord, RecordKind } from "../../record.js";
import { absoluteUrl, cleanText, dedupeRecords, recordId } from "../../record-id.js";

export interface ListedDoc {
  /** What the platform calls it: "Agenda", "Agenda Packet", "Minutes", "Notice of Cancellation". */
  label: string;
  /** Absolute or relative to the page. */
  href?: string | undefined;
  /** Stable key within the meeting; default the label as a slug. */
  key?: string | undefined;
  /** The platform's own kind, when it says more than the label. */
  kind?: RecordKind | undefined;
}

export interface ListedMeeting {
  id?: string | undefined;
  title: string;
  date?: string | undefined;
  href?: string | undefined;
  docs?: ListedDoc[];
}

/** The kind the platform's own words give (record.ts RecordKind). */
export function kindOf(label: string): RecordKind {
  const l = label.toLowerCase();
  if (l.includes("minute")) return "minutes";
  if (/cancel|notice|recess|postpone/.test(l)) return "notices";
  if (l.includes("agenda") || l.includes("packet")) return "agendas";
  return "other";
}

export function slug(s: string): string {
  return (
    s
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "") || "doc"
  );
}

/** One record, leaving out what the list does not give (exactOptionalPropertyTypes). */
export function makeRecord(
  r: {
    id?: string | undefined;
    title: string;
    date?: string | undefined;
    url?: string | undefined;
  },
  kind: RecordKind | string,
): ExtractedRecord {
  const title = cleanText(r.title);
  const base: { platformId?: string; url?: string; title: string; date?: string } = { title };
  if (r.id) base.platformId = r.id;
  if (r.url) base.url = r.url;
  if (r.date) base.date = r.date;
  // Stored as shown (policy/shown-text.ts); the id is the one earlier nights gave it.
  const out: ExtractedRecord = { id: recordId(base), title: shownText(title), kind };
  if (r.date) out.date = r.date;
  if (r.url) out.url = r.url;
  return out;
}

export function meetingRecords(m: ListedMeeting, base: string): ExtractedRecord[] {
  const meetingUrl = absoluteUrl(m.href, base);
  const docs = (m.docs ?? []).filter((d) => d.href === undefined || d.href !== "");
  if (docs.length === 0) {
    return [makeRecord({ id: m.id, title: m.title, date: m.date, url: meetingUrl }, "meetings")];
  }
  const out: ExtractedRecord[] = [];
  for (const d of docs) {
    const url = absoluteUrl(d.href, base) ?? meetingUrl;
    const key = d.key ?? slug(d.label);
    const id = m.id ? `${m.id}#${key}` : undefined;
    out.push(makeRecord({ id, title: m.title, date: m.date, url }, d.kind ?? kindOf(d.label)));
  }
  return out;
}

/** Records from many meetings, first of each id kept. */
export function allRecords(ms: Iterable<ListedMeeting>, base: string): ExtractedRecord[] {
  const out: ExtractedRecord[] = [];
  for (const m of ms) for (const r of meetingRecords(m, base)) out.push(r);
  return dedupeRecords(out);
}
